/** The drivers, for the benchmark's own reads of a corpus. */
import { SQLite } from '../../src/store/engines/sqlite-driver.ts';
import pg from 'pg';

export { SQLite };
export function pgClient(url: string): pg.Client {
  return new pg.Client({ connectionString: url });
}
