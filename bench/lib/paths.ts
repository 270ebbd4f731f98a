/** Where the benchmarks keep things. */
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
export const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
export const BIN = `${ROOT}/bin/recalls.js`;
export const PG_ADMIN_URL = process.env.RECALLS_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
