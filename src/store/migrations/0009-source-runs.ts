/**
 * Each source's last run as the admin listener's metrics show it: how long it took and how many records its
 * last success read. Null until a run records them.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sources').addColumn('last_run_ms', 'integer').execute();
  await db.schema.alterTable('sources').addColumn('last_run_records', 'integer').execute();
}
