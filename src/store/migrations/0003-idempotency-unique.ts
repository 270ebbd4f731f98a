/**
 * One receipt per use of an Idempotency-Key: `idempotency_generation` numbers a key's uses (a new one after
 * 24 hours), unique with (key_id, idempotency_key), so concurrent uses cannot both record one. Older receipts
 * keep a null generation, outside the constraint (nulls are distinct on both engines), so stored duplicates
 * never fail it.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('checks').addColumn('idempotency_generation', 'integer').execute();
  // The unique index begins with the same two columns: the old index would only cost writes.
  await db.schema.dropIndex('checks_by_idempotency_key').execute();
  await db.schema
    .createIndex('checks_idempotency_unique')
    .on('checks')
    .columns(['key_id', 'idempotency_key', 'idempotency_generation'])
    .unique()
    .execute();
}
