/**
 * The one step of the SQLite schema that is not a numbered migration: the corpus tables move from the service's
 * file to the corpus file (engines/sqlite-files.ts), with their rows, indexes and triggers, on a database made
 * before the split and on a new one (the migrations make every table in the service file). It needs two
 * transactions of its own and a VACUUM, so it runs after the migrations, outside their lock (the SQLite
 * engine's `ready`), each transaction taking the write lock and reading again what is left to move.
 */
import { CORPUS_TABLES, MOVED } from '../engines/sqlite-files.ts';
import type { SqliteDatabase } from '../engines/sqlite-driver.ts';

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
 * is finished on the next open, from whichever copy is whole. Nothing to do once moved (one query).
 */
export function moveCorpusTables(db: SqliteDatabase): void {
  const inMainNow = () =>
    db
      .prepare(
        `SELECT name FROM main.sqlite_master WHERE type = 'table' AND name IN (${CORPUS_TABLES.map(() => '?').join(', ')}, ${CORPUS_TABLES.map(() => '?').join(', ')})`,
      )
      .pluck()
      .all(...CORPUS_TABLES, ...CORPUS_TABLES.map((t) => `${t}${MOVED}`)) as string[];
  if (inMainNow().length === 0) return;
  db.pragma('foreign_keys = OFF');
  try {
    // Read again under the write lock: another process opening the same new files may have moved them meanwhile.
    db.transaction(() => {
      const present = new Set(inMainNow());
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
