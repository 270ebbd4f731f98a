/** The initial schema: sources, recalls with identifiers and revisions, keys, usage, receipts. */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../engine.ts';

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const text = engine.textType;
  await db.schema
    .createTable('sources')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('agency', text, (c) => c.notNull())
    .addColumn('jurisdiction', text, (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('data_as_of', 'text')
    .addColumn('last_success_at', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('recalls')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('source_id', text, (c) => c.notNull().references('sources.id'))
    .addColumn('record_id', text, (c) => c.notNull())
    .addColumn('jurisdiction', text, (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('summary', 'text')
    .addColumn('hazard_category', 'text')
    .addColumn('hazard_text', 'text')
    .addColumn('product_category', 'text')
    .addColumn('brands', text, (c) => c.notNull())
    .addColumn('models', text, (c) => c.notNull())
    .addColumn('severity', 'text')
    .addColumn('source_classification', 'text')
    .addColumn('remedy', 'text')
    .addColumn('recall_date', 'text')
    .addColumn('published_date', 'text')
    .addColumn('sort_date', text, (c) => c.notNull())
    .addColumn('countries', text, (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('content_hash', text, (c) => c.notNull())
    .addColumn('content', text, (c) => c.notNull())
    .addColumn('first_seen_at', text, (c) => c.notNull())
    .addColumn('last_seen_at', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('recalls_by_order').on('recalls').columns(['sort_date desc', 'id']).execute();
  await db.schema
    .createIndex('recalls_by_source_order')
    .on('recalls')
    .columns(['source_id', 'sort_date desc', 'id'])
    .execute();
  await db.schema.createIndex('recalls_by_recall_date').on('recalls').column('recall_date').execute();

  await db.schema
    .createTable('identifiers')
    .addColumn('recall_id', text, (c) => c.notNull().references('recalls.id'))
    .addColumn('kind', text, (c) => c.notNull())
    .addColumn('value', text, (c) => c.notNull())
    .addColumn('normalized', text, (c) => c.notNull())
    .addColumn('confidence', text, (c) => c.notNull())
    .addColumn('match_key', text, (c) => c.notNull())
    .addColumn('product_key', 'text')
    .execute();
  await db.schema
    .createIndex('identifiers_by_match_key')
    .on('identifiers')
    .columns(['match_key', 'recall_id'])
    .execute();
  await db.schema
    .createIndex('identifiers_by_product_key')
    .on('identifiers')
    .columns(['product_key', 'recall_id'])
    .execute();
  await db.schema.createIndex('identifiers_by_recall').on('identifiers').column('recall_id').execute();

  await db.schema
    .createTable('revisions')
    .addColumn('recall_id', text, (c) => c.notNull().references('recalls.id'))
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('observed_at', text, (c) => c.notNull())
    .addColumn('changed_fields', text, (c) => c.notNull())
    .addColumn('data_as_of', 'text')
    .addPrimaryKeyConstraint('revisions_pk', ['recall_id', 'revision'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('prefix', text, (c) => c.notNull())
    .addColumn('key_hash', text, (c) => c.notNull().unique())
    .addColumn('name', 'text')
    .addColumn('plan', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();

  await db.schema
    .createTable('usage')
    .addColumn('key_id', text, (c) => c.notNull().references('api_keys.id'))
    .addColumn('month', text, (c) => c.notNull())
    .addColumn('requests', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('identifiers', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_pk', ['key_id', 'month'])
    .execute();

  await db.schema
    .createTable('checks')
    .addColumn('seq', engine.serialPrimaryKey, (c) =>
      engine.name === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey(),
    )
    .addColumn('check_id', text, (c) => c.notNull().unique())
    .addColumn('key_id', text, (c) => c.notNull().references('api_keys.id'))
    .addColumn('label', 'text')
    .addColumn('performed_at', text, (c) => c.notNull())
    .addColumn('submitted_count', 'integer', (c) => c.notNull())
    .addColumn('submitted_digest', text, (c) => c.notNull())
    .addColumn('rejected', text, (c) => c.notNull())
    .addColumn('match_count', 'integer', (c) => c.notNull())
    .addColumn('result_digest', text, (c) => c.notNull())
    .addColumn('corpus_as_of', 'text')
    .addColumn('corpus_size', 'integer', (c) => c.notNull())
    .addColumn('matches', text, (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('request_hash', 'text')
    .execute();
  await db.schema.createIndex('checks_by_key').on('checks').columns(['key_id', 'seq']).execute();
  await db.schema
    .createIndex('checks_by_idempotency_key')
    .on('checks')
    .columns(['key_id', 'idempotency_key'])
    .execute();
  for (const statement of engine.receiptImmutabilitySql()) await sql.raw(statement).execute(db);

  await db.schema
    .createTable('corpus_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute();
  await sql`INSERT INTO corpus_state (id, version, updated_at) VALUES (1, 1, ${new Date().toISOString()})`.execute(
    db,
  );

  await db.schema
    .createTable('locks')
    .addColumn('name', text, (c) => c.primaryKey())
    .addColumn('holder', text, (c) => c.notNull())
    .addColumn('acquired_at', text, (c) => c.notNull())
    .addColumn('expires_at', text, (c) => c.notNull())
    .execute();
}
