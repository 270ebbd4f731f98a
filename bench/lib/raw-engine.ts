/** A second connection under the store, for the benchmarks' own reads (fixtures, snapshots). */
import type { Config } from '../../src/config.ts';
import type { Engine } from '../../src/store/engine.ts';
import { openPostgres } from '../../src/store/engines/postgres.ts';
import { openSqlite } from '../../src/store/engines/sqlite.ts';

export function openRawEngine(database: Config['database']): Engine {
  return database.engine === 'sqlite' ? openSqlite(database.path) : openPostgres(database.url);
}
