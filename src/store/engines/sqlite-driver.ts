/**
 * The SQLite driver for this Node: better-sqlite3 13 on Node ≥ 22; on Node 20 (which 13 does not run on) the
 * optional `better-sqlite3-v12`, never loaded on Node 24, where its statements abort the process when
 * garbage-collected (`Assertion failed: (env) != nullptr`).
 */
import { createRequire } from 'node:module';
import type Driver from 'better-sqlite3';

/** The first Node major whose driver is better-sqlite3 13. */
const NODE_API_DRIVER_FROM = 22;

const major = Number(process.versions.node.split('.')[0]);
/** The package the driver is loaded from on this Node. */
export const SQLITE_DRIVER = major >= NODE_API_DRIVER_FROM ? 'better-sqlite3' : 'better-sqlite3-v12';

/** The better-sqlite3 `Database` class for this Node. */
export const SQLite = createRequire(import.meta.url)(SQLITE_DRIVER) as typeof Driver;
export type SqliteDatabase = Driver.Database;
export type SqliteStatement = Driver.Statement;
