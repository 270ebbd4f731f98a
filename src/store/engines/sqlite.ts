/**
 * The embedded engine: one SQLite file through better-sqlite3, in WAL mode so that readers
 * never wait for the daily writer.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Engine } from '../engine.ts';
import type { Database } from '../schema.ts';

export function openSqlite(path: string): Engine {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const connection = new SQLite(path);
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('busy_timeout = 30000');
  connection.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });
  return {
    name: 'sqlite',
    db,
    textType: 'text',
    serialPrimaryKey: 'integer',
    receiptImmutabilitySql: () => [
      `CREATE TRIGGER checks_refuse_update BEFORE UPDATE ON checks
         BEGIN SELECT RAISE(ABORT, 'receipts are immutable'); END`,
      `CREATE TRIGGER checks_refuse_delete BEFORE DELETE ON checks
         BEGIN SELECT RAISE(ABORT, 'receipts are immutable'); END`,
    ],
    isUniqueViolation: (error) =>
      error instanceof Error &&
      'code' in error &&
      String(error.code).startsWith('SQLITE_CONSTRAINT_PRIMARYKEY')
        ? true
        : error instanceof Error && 'code' in error && error.code === 'SQLITE_CONSTRAINT_UNIQUE',
    isImmutableViolation: (error) => error instanceof Error && /receipts are immutable/.test(error.message),
    close: () => db.destroy(),
  };
}
