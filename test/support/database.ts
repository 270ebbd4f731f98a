/**
 * The engine the integration suites run on: SQLite by default, PostgreSQL when
 * RECALLS_TEST_ENGINE=postgres (each test service then gets a database of its own, dropped
 * afterwards). RECALLS_TEST_PG_URL names the server (default: this machine's, trust auth).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import type { Config } from '../../src/config.ts';
import type { Engine } from '../../src/store/engine.ts';
import { openPostgres } from '../../src/store/engines/postgres.ts';
import { openSqlite } from '../../src/store/engines/sqlite.ts';

export const TEST_ENGINE: 'sqlite' | 'postgres' =
  process.env.RECALLS_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
export const PG_ADMIN_URL = process.env.RECALLS_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  database: Config['database'];
  /** The value to pass as DATABASE_URL to a child process. */
  url: string;
  drop(): Promise<void>;
}

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/**
 * The `skip` option of a suite that does not run on the test engine (it opens its own SQLite
 * file, uses PostgreSQL whatever the engine, or needs no database): the default (SQLite) pass
 * runs it, and the PostgreSQL pass skips it rather than run it again.
 */
export function sqliteOnly(why: string): string | false {
  return TEST_ENGINE === 'postgres' ? `run by the SQLite pass only: ${why}` : false;
}

/** A fresh, empty database on the test engine (`dir` holds the SQLite file). */
export async function createTestDatabase(dir: string, engine = TEST_ENGINE): Promise<TestDatabase> {
  if (engine === 'sqlite') {
    const path = join(dir, 'recalls.db');
    return { database: { engine: 'sqlite', path }, url: path, drop: async () => {} };
  }
  const name = `recalls_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    database: { engine: 'postgres', url: url.toString() },
    url: url.toString(),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  };
}

/** The DATABASE_URL of a database, for a `recalls` command in a child process. */
export function databaseUrl(database: Config['database']): string {
  return database.engine === 'sqlite' ? database.path : database.url;
}

/** A second, raw connection to a test database, for tests that look under the store. */
export function openRawEngine(database: Config['database']): Engine {
  return database.engine === 'sqlite' ? openSqlite(database.path) : openPostgres(database.url);
}
