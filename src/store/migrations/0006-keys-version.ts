/**
 * `corpus_state.keys_version`, moved by a trigger on every change to `api_keys` whoever makes it (the CLI, an
 * operator's SQL), so that nodes keep keys in memory and drop them when it moves; on PostgreSQL every change of
 * `corpus_state` is also announced to the nodes' listeners (store-state.ts).
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../engine.ts';

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .alterTable('corpus_state')
    .addColumn('keys_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  for (const statement of engine.stateSignalSql()) await sql.raw(statement).execute(db);
}
