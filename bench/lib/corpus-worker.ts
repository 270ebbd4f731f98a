/**
 * A worker thread of the corpus builder: generates the rows of some sources and writes them
 * itself — into a shard SQLite file (which the main thread then copies in one statement per
 * table) or straight into PostgreSQL over its own connection — posting only progress counts.
 */
import { SQLite } from '../../src/store/engines/sqlite-driver.ts';
import pg from 'pg';
import { parentPort, workerData } from 'node:worker_threads';
import { rowsOf, IDENTIFIER_COLUMNS, RECALL_COLUMNS, REVISION_COLUMNS } from './corpus-rows.ts';
import { SOURCE_SHAPES, sourceCounts, syntheticRecalls } from './synthetic.ts';

export type WorkerTarget =
  { engine: 'sqlite'; shard: string; tables: string[] } | { engine: 'postgres'; url: string };

export interface WorkerProgress {
  recalls: number;
  identifiers: number;
  revisions: number;
}

const { records, seed, sources, target } = workerData as {
  records: number;
  seed: number;
  sources: number[];
  target: WorkerTarget;
};

interface Batch {
  recalls: unknown[][];
  identifiers: unknown[][];
  revisions: unknown[][];
}

const PG_TYPES: Record<string, string> = { revision: 'integer' };

async function writer(): Promise<{ write(b: Batch): Promise<void>; close(): Promise<void> }> {
  if (target.engine === 'sqlite') {
    const db = new SQLite(target.shard);
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    for (const sql of target.tables) db.exec(sql);
    const insert = (table: string, cols: readonly string[]) =>
      db.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
    const r = insert('recalls', RECALL_COLUMNS);
    const i = insert('identifiers', IDENTIFIER_COLUMNS);
    const v = insert('revisions', REVISION_COLUMNS);
    const load = db.transaction((b: Batch) => {
      for (const x of b.recalls) r.run(x);
      for (const x of b.identifiers) i.run(x);
      for (const x of b.revisions) v.run(x);
    });
    return {
      write: async (b) => load(b),
      close: async () => {
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  await client.query('SET synchronous_commit = off');
  const insertSql = (table: string, cols: readonly string[]) =>
    `INSERT INTO ${table} (${cols.join(', ')}) SELECT * FROM unnest(${cols
      .map((c, n) => `$${n + 1}::${PG_TYPES[c] ?? 'text'}[]`)
      .join(', ')})`;
  const transpose = (rows: unknown[][], width: number) =>
    Array.from({ length: width }, (_, c) => rows.map((r) => r[c] ?? null));
  return {
    async write(b) {
      await client.query('BEGIN');
      await client.query(insertSql('recalls', RECALL_COLUMNS), transpose(b.recalls, RECALL_COLUMNS.length));
      await client.query(
        insertSql('identifiers', IDENTIFIER_COLUMNS),
        transpose(b.identifiers, IDENTIFIER_COLUMNS.length),
      );
      if (b.revisions.length > 0)
        await client.query(
          insertSql('revisions', REVISION_COLUMNS),
          transpose(b.revisions, REVISION_COLUMNS.length),
        );
      await client.query('COMMIT');
    },
    close: () => client.end(),
  };
}

const out = await writer();
const counts = sourceCounts(records);
let batch: Batch = { recalls: [], identifiers: [], revisions: [] };
const flush = async () => {
  await out.write(batch);
  const progress: WorkerProgress = {
    recalls: batch.recalls.length,
    identifiers: batch.identifiers.length,
    revisions: batch.revisions.length,
  };
  parentPort!.postMessage(progress);
  batch = { recalls: [], identifiers: [], revisions: [] };
};
for (const i of sources) {
  const shape = SOURCE_SHAPES[i]!;
  for (const r of syntheticRecalls(shape, counts.get(shape.id)!, seed + i)) {
    const rows = rowsOf(r);
    batch.recalls.push(RECALL_COLUMNS.map((c) => rows.recall[c]));
    for (const x of rows.identifiers) batch.identifiers.push(IDENTIFIER_COLUMNS.map((c) => x[c]));
    for (const x of rows.revisions) batch.revisions.push(REVISION_COLUMNS.map((c) => x[c]));
    if (batch.recalls.length === 2_000) await flush();
  }
}
if (batch.recalls.length > 0) await flush();
await out.close();
parentPort!.postMessage('done');
