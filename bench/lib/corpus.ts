/**
 * Builds a synthetic corpus straight into a database through the store's own schema: the
 * migrations create the tables, the rows are exactly what ingestion stores (the store's row
 * builders, canonical content and its hash, match and product keys, recall ids), and the
 * sources are registered with a freshness stamp. Bulk-loaded: secondary indexes and foreign
 * keys are dropped during the load and recreated from their own definitions afterwards.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { SQLite, type SqliteDatabase } from '../../src/store/engines/sqlite-driver.ts';
import pg from 'pg';
import { openStore } from '../../src/store/database.ts';
import { Worker } from 'node:worker_threads';
import type { WorkerProgress, WorkerTarget } from './corpus-worker.ts';
import { DATA_AS_OF, OBSERVED_LAST } from './corpus-rows.ts';
import { SOURCE_SHAPES, sourceCounts } from './synthetic.ts';
import { corpusPathOf } from '../../src/store/engines/sqlite-files.ts';

/** Bumped whenever the generator's output changes, so that cached corpora are rebuilt. */
export const GENERATOR_VERSION = 6;
export const SEED = 20_260_617;

export type Engine = 'sqlite' | 'postgres';

export interface CorpusInfo {
  generator: number;
  seed: number;
  engine: Engine;
  records: number;
  identifiers: number;
  revisions: number;
  buildSeconds: number;
  builtAt: string;
  location: string;
}

/** Parses `200k`, `2m`, `50000` into a record count. */
export function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  if (!m) throw new Error(`not a corpus size: ${text} (e.g. 200k, 2m)`);
  const scale = { '': 1, k: 1_000, m: 1_000_000 }[m[2]!.toLowerCase() as '' | 'k' | 'm'];
  return Math.round(Number(m[1]) * scale);
}

export function sizeLabel(records: number): string {
  if (records % 1_000_000 === 0) return `${records / 1_000_000}m`;
  if (records % 1_000 === 0) return `${records / 1_000}k`;
  return String(records);
}

/**
 * Generates and writes the corpus in two worker threads (sources are seeded independently, so
 * they split across workers without changing a row); returns the row counts.
 */
async function produce(
  records: number,
  target: (part: number) => WorkerTarget,
  label: string,
): Promise<WorkerProgress> {
  const started = Date.now();
  const counts = sourceCounts(records);
  const order = SOURCE_SHAPES.map((s, i) => ({ i, weight: counts.get(s.id)! * (s.identifiers + 6) })).sort(
    (x, y) => y.weight - x.weight,
  );
  const parts: { sources: number[]; weight: number }[] = [
    { sources: [], weight: 0 },
    { sources: [], weight: 0 },
  ];
  for (const o of order) {
    const lightest = parts[0]!.weight <= parts[1]!.weight ? parts[0]! : parts[1]!;
    lightest.sources.push(o.i);
    lightest.weight += o.weight;
  }
  const total: WorkerProgress = { recalls: 0, identifiers: 0, revisions: 0 };
  await Promise.all(
    parts.map(
      (part, n) =>
        new Promise<void>((resolve, reject) => {
          const worker = new Worker(new URL('./worker-entry.mjs', import.meta.url), {
            workerData: {
              module: new URL('./corpus-worker.ts', import.meta.url).href,
              records,
              seed: SEED,
              sources: part.sources,
              target: target(n),
            },
          });
          worker.on('error', reject);
          worker.on('message', (message: WorkerProgress | 'done') => {
            if (message === 'done') {
              void worker.terminate().then(() => resolve());
              return;
            }
            total.recalls += message.recalls;
            total.identifiers += message.identifiers;
            total.revisions += message.revisions;
            progress(label, total.recalls, records, started);
          });
        }),
    ),
  );
  return total;
}

function progress(label: string, done: number, total: number, started: number): void {
  const s = (Date.now() - started) / 1000;
  process.stderr.write(
    `\r${label}: ${done}/${total} records, ${s.toFixed(0)} s, ${Math.round(done / s)}/s   `,
  );
}

async function registerSources(
  database: { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string },
) {
  // The store's own migrations and source registration.
  const store = await openStore(database);
  await store.sources.register(
    SOURCE_SHAPES.map((s) => ({ id: s.id, agency: s.agency, jurisdiction: s.jurisdiction })),
  );
  await store.close();
}

/** Builds a SQLite corpus file of `records` records (replacing any file there). */
export async function buildSqliteCorpus(path: string, records: number): Promise<CorpusInfo> {
  const started = Date.now();
  mkdirSync(dirname(path), { recursive: true });
  for (const file of [path, corpusPathOf(path)])
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  await registerSources({ engine: 'sqlite', path });

  // The corpus tables are in the corpus file beside `path` (src/store/engines/sqlite-files.ts).
  const db = new SQLite(corpusPathOf(path));
  db.pragma('journal_mode = DELETE');
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('foreign_keys = OFF');
  db.pragma('cache_size = -1000000');
  db.pragma('temp_store = FILE');
  const indexes = db
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('recalls', 'identifiers', 'revisions')",
    )
    .all() as { name: string; sql: string }[];
  for (const ix of indexes) db.exec(`DROP INDEX "${ix.name}"`);

  const tables = (
    db
      .prepare(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name IN ('recalls', 'identifiers', 'revisions')",
      )
      .all() as { sql: string }[]
  ).map((t) => t.sql.replace(/REFERENCES\s+"?\w+"?\s*\("?\w+"?\)/gi, ''));
  const shards = [0, 1].map((n) => `${path}.shard${n}`);
  for (const shard of shards) rmSync(shard, { force: true });
  const counts = await produce(records, (n) => ({ engine: 'sqlite', shard: shards[n]!, tables }), 'sqlite');
  process.stderr.write('\nsqlite: copying shards…\n');
  for (const [n, shard] of shards.entries()) {
    db.exec(`ATTACH DATABASE '${shard}' AS shard${n}`);
    db.transaction(() => {
      for (const table of ['recalls', 'identifiers', 'revisions'])
        db.exec(`INSERT INTO main.${table} SELECT * FROM shard${n}.${table}`);
    })();
    db.exec(`DETACH DATABASE shard${n}`);
    rmSync(shard, { force: true });
  }
  const { recalls: done, identifiers, revisions } = counts;
  process.stderr.write('\nsqlite: building indexes…\n');
  for (const ix of indexes) db.exec(ix.sql);
  finishSources(db);
  db.pragma('journal_mode = WAL');
  db.close();
  return {
    generator: GENERATOR_VERSION,
    seed: SEED,
    engine: 'sqlite',
    records: done,
    identifiers,
    revisions,
    buildSeconds: (Date.now() - started) / 1000,
    builtAt: new Date().toISOString(),
    location: path,
  };
}

function finishSources(db: SqliteDatabase): void {
  db.prepare(
    'UPDATE sources SET data_as_of = ?, last_success_at = ?, last_attempt_at = ?, consecutive_failures = 0',
  ).run(DATA_AS_OF, OBSERVED_LAST, OBSERVED_LAST);
  db.prepare('UPDATE corpus_state SET version = version + 1, updated_at = ? WHERE id = 1').run(OBSERVED_LAST);
}

/** Creates (or re-creates) database `name` on the server of `adminUrl`; returns its URL. */
async function freshPgDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Builds a PostgreSQL corpus in database `name` (dropped and created anew). */
export async function buildPostgresCorpus(
  adminUrl: string,
  name: string,
  records: number,
): Promise<CorpusInfo> {
  const started = Date.now();
  const url = await freshPgDatabase(adminUrl, name);
  await registerSources({ engine: 'postgres', url });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("SET synchronous_commit = off; SET maintenance_work_mem = '1GB'");
  const constraints = (
    await client.query<{ table: string; name: string; def: string }>(
      `SELECT conrelid::regclass::text AS table, conname AS name, pg_get_constraintdef(oid) AS def
         FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text IN ('identifiers', 'revisions')`,
    )
  ).rows;
  for (const c of constraints) await client.query(`ALTER TABLE ${c.table} DROP CONSTRAINT ${c.name}`);
  const indexes = (
    await client.query<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes
        WHERE tablename IN ('recalls', 'identifiers') AND indexname NOT IN
          (SELECT conname FROM pg_constraint WHERE contype IN ('p', 'u'))`,
    )
  ).rows;
  for (const ix of indexes) await client.query(`DROP INDEX ${ix.name}`);

  const {
    recalls: done,
    identifiers,
    revisions,
  } = await produce(records, () => ({ engine: 'postgres', url }), 'postgres');
  process.stderr.write('\npostgres: building indexes and constraints…\n');
  for (const ix of indexes) await client.query(ix.def);
  for (const c of constraints) await client.query(`ALTER TABLE ${c.table} ADD CONSTRAINT ${c.name} ${c.def}`);
  await client.query(
    'UPDATE sources SET data_as_of = $1, last_success_at = $2, last_attempt_at = $2, consecutive_failures = 0',
    [DATA_AS_OF, OBSERVED_LAST],
  );
  await client.query('UPDATE corpus_state SET version = version + 1, updated_at = $1 WHERE id = 1', [
    OBSERVED_LAST,
  ]);
  await client.query('VACUUM ANALYZE');
  await client.end();
  return {
    generator: GENERATOR_VERSION,
    seed: SEED,
    engine: 'postgres',
    records: done,
    identifiers,
    revisions,
    buildSeconds: (Date.now() - started) / 1000,
    builtAt: new Date().toISOString(),
    location: url,
  };
}

/** The sidecar describing a built corpus, or undefined when missing or from another generator. */
export function readCorpusInfo(sidecar: string, records: number): CorpusInfo | undefined {
  if (!existsSync(sidecar)) return undefined;
  const info = JSON.parse(readFileSync(sidecar, 'utf8')) as CorpusInfo;
  return info.generator === GENERATOR_VERSION && info.seed === SEED && info.records === records
    ? info
    : undefined;
}

export function writeCorpusInfo(sidecar: string, info: CorpusInfo): void {
  mkdirSync(dirname(sidecar), { recursive: true });
  writeFileSync(sidecar, `${JSON.stringify(info, null, 2)}\n`);
}
