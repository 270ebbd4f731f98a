/**
 * Builds a synthetic corpus: `node --import tsx bench/generate.ts --corpus 2m --engine sqlite`.
 * SQLite corpora go to bench/corpus/sqlite-<size>.db, PostgreSQL ones to the database
 * recalls_bench_<size> on the local server; a sidecar bench/corpus/<engine>-<size>.json says
 * what was built, so that `npm run bench` reuses it.
 */
import { parseArgs } from 'node:util';
import {
  buildPostgresCorpus,
  buildSqliteCorpus,
  parseSize,
  readCorpusInfo,
  sizeLabel,
  writeCorpusInfo,
  type CorpusInfo,
  type Engine,
} from './lib/corpus.ts';
import { BENCH_DIR, PG_ADMIN_URL } from './lib/paths.ts';

export function corpusPaths(engine: Engine, records: number) {
  const label = sizeLabel(records);
  return {
    sidecar: `${BENCH_DIR}/corpus/${engine}-${label}.json`,
    sqlitePath: `${BENCH_DIR}/corpus/sqlite-${label}.db`,
    pgDatabase: `recalls_bench_${label}`,
  };
}

/** Returns the corpus, building it first unless an up-to-date one exists (or `rebuild`). */
export async function ensureCorpus(engine: Engine, records: number, rebuild = false): Promise<CorpusInfo> {
  const paths = corpusPaths(engine, records);
  const existing = rebuild ? undefined : readCorpusInfo(paths.sidecar, records);
  if (existing !== undefined) return existing;
  process.stderr.write(
    `building the ${sizeLabel(records)} ${engine} corpus (once; it is reused afterwards)\n`,
  );
  const info =
    engine === 'sqlite'
      ? await buildSqliteCorpus(paths.sqlitePath, records)
      : await buildPostgresCorpus(PG_ADMIN_URL, paths.pgDatabase, records);
  writeCorpusInfo(paths.sidecar, info);
  process.stderr.write(
    `built ${info.records} recalls, ${info.identifiers} identifiers, ${info.revisions} revisions in ${info.buildSeconds.toFixed(0)} s\n`,
  );
  return info;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      corpus: { type: 'string', default: '200k' },
      engine: { type: 'string', default: 'sqlite' },
      rebuild: { type: 'boolean', default: false },
    },
  });
  const engine = values.engine as Engine;
  if (engine !== 'sqlite' && engine !== 'postgres') throw new Error('--engine sqlite|postgres');
  const info = await ensureCorpus(engine, parseSize(values.corpus!), values.rebuild);
  process.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
}
