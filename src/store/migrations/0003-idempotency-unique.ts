/**
 * One receipt per use of an Idempotency-Key: `idempotency_generation` numbers the uses of a key
 * (1, then 2 once the first has expired after 24 hours …), and (key_id, idempotency_key,
 * idempotency_generation) is unique, so concurrent requests with one key cannot both record a
 * receipt. Receipts written before this migration keep a null generation: they stay outside the
 * constraint (nulls are distinct on both engines), so duplicates already stored never make it fail.
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
