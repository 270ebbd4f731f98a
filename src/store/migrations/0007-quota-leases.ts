/**
 * Quota leases: `requests_leased` is the part of a key's monthly request quota that API nodes hold
 * (leased, not yet reported used or given back). Used plus leased never passes the limit.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('usage')
    .addColumn('requests_leased', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
