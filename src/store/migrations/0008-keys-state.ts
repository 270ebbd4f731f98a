/**
 * The keys version moves to a table of its own, `keys_state`, among the service's records: on SQLite the
 * corpus (with `corpus_state`) lives in a file of its own (engines/sqlite.ts), and a key's change must never
 * wait for a write to the corpus, nor a trigger reach into another file. The triggers on `api_keys` move
 * `keys_state.keys_version`; on PostgreSQL a change of either row is announced as before.
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../engine.ts';

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('keys_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('keys_version', 'integer', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO keys_state (id, keys_version) SELECT id, keys_version FROM corpus_state WHERE id = 1`.execute(
    db,
  );
  for (const statement of engine.keysStateSql()) await sql.raw(statement).execute(db);
  await db.schema.alterTable('corpus_state').dropColumn('keys_version').execute();
}
