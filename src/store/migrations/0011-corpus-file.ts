/**
 * SQLite: the corpus tables move from the service's file to the corpus file (engines/sqlite-files.ts), with their
 * rows, indexes and triggers: on a database made before the split, and on a new one (the migrations before this
 * one make every table in the service file). Nothing to do on PostgreSQL, nor where the tables moved already
 * (a database opened by a release that moved them on opening).
 *
 * The move commits on its own, in two transactions outside the migrations' one: the first writes both files
 * (copies in, old tables renamed aside), the second drops the old tables. In WAL mode each file commits on its
 * own, so a crash between the two files' commits of the first leaves one of them committed alone; this migration
 * is recorded only once the move is done, so the next open runs it again, and it finishes from whichever copy is
 * whole.
 */
import type { Kysely } from 'kysely';
import type { Engine } from '../engine.ts';
import { isSqlite } from '../engines/sqlite.ts';
import { CORPUS_TABLES, MOVED } from '../engines/sqlite-files.ts';
import type { SqliteDatabase } from '../engines/sqlite-driver.ts';

/**
 * Another process applied migrations while this one's move ran outside the migrations' lock: the migrations
 * are read again under the lock (`migrate`, database.ts), and those still pending applied.
 */
export class MigratedMeanwhile extends Error {}

export async function up(_db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (!isSqlite(engine)) return;
  const { connection } = engine;
  if (inMain(connection).length === 0) return;
  // The migrations run in one transaction holding the write lock (engines/sqlite.ts): committed here (those
  // before this one with it), taken again once the tables have moved, to record this one.
  const recorded = () => connection.prepare('SELECT count(*) FROM kysely_migration').pluck().get();
  const before = recorded();
  connection.exec('COMMIT');
  try {
    moveCorpusTables(connection);
  } catch (error) {
    connection.exec('BEGIN'); // for the migrations' COMMIT
    throw error;
  }
  connection.exec('BEGIN IMMEDIATE');
  if (recorded() !== before) throw new MigratedMeanwhile('another process migrated the database meanwhile');
}

/** The corpus tables still in the service file, and their old copies renamed aside. */
function inMain(db: SqliteDatabase): string[] {
  return db
    .prepare(
      `SELECT name FROM main.sqlite_master WHERE type = 'table' AND name IN (${CORPUS_TABLES.map(() => '?').join(', ')}, ${CORPUS_TABLES.map(() => '?').join(', ')})`,
    )
    .pluck()
    .all(...CORPUS_TABLES, ...CORPUS_TABLES.map((t) => `${t}${MOVED}`)) as string[];
}

/** `CREATE TABLE "recalls_moved_to_corpus" (… REFERENCES "sources_moved_to_corpus" …)` as `corpus."recalls"`. */
function inCorpus(createSql: string): string {
  let out = createSql.replace(
    /^CREATE (TABLE|UNIQUE INDEX|INDEX|TRIGGER) ("?)([\w]+)\2/i,
    'CREATE $1 corpus."$3"',
  );
  for (const table of CORPUS_TABLES) out = out.replaceAll(`${table}${MOVED}`, table);
  return out;
}

function schemaSql(
  db: SqliteDatabase,
  schema: 'main' | 'corpus',
  table: string,
): { type: string; name: string; sql: string }[] {
  return db
    .prepare(
      `SELECT type, name, sql FROM ${schema}.sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL ORDER BY type = 'table' DESC, rowid`,
    )
    .all(table) as { type: string; name: string; sql: string }[];
}

/**
 * Moves every corpus table still in the service file to the corpus file, with its rows, indexes and triggers:
 * a database made before the split, or one the migrations have just made. One transaction writes both files
 * (copies in, old tables renamed aside), a second drops the old tables; a crash between the two files' commits
 * is finished by the next run, from whichever copy is whole.
 */
function moveCorpusTables(db: SqliteDatabase): void {
  db.pragma('foreign_keys = OFF');
  try {
    // Read again under the write lock: another process opening the same new files may have moved them meanwhile.
    db.transaction(() => {
      const present = new Set(inMain(db));
      const inCorpusFile = new Set(
        db.prepare(`SELECT name FROM corpus.sqlite_master WHERE type = 'table'`).pluck().all() as string[],
      );
      for (const table of CORPUS_TABLES) {
        // The service file still serves this table: copy it whole, whatever an earlier try left in the corpus.
        const source = present.has(table)
          ? table
          : !inCorpusFile.has(table) && present.has(`${table}${MOVED}`)
            ? `${table}${MOVED}`
            : null;
        if (source === null) continue;
        db.exec(`DROP TABLE IF EXISTS corpus."${table}"`);
        const objects = schemaSql(db, 'main', source);
        for (const o of objects.filter((o) => o.type === 'table')) db.exec(inCorpus(o.sql));
        db.exec(`INSERT INTO corpus."${table}" SELECT * FROM main."${source}"`);
        for (const o of objects.filter((o) => o.type !== 'table')) db.exec(inCorpus(o.sql));
        if (source === table) db.exec(`ALTER TABLE main."${table}" RENAME TO "${table}${MOVED}"`);
      }
    }).immediate();
    db.transaction(() => {
      for (const table of [...CORPUS_TABLES].reverse())
        db.exec(`DROP TABLE IF EXISTS main."${table}${MOVED}"`);
    }).immediate();
  } finally {
    db.pragma('foreign_keys = ON');
  }
  // The service file keeps the freed pages until it is rewritten; once, after the move.
  db.exec('VACUUM main');
}
