/**
 * Records set aside: each source's last successful run keeps the records it could not read
 * (where, and why) for `recalls report`, and their count on the source's row.
 */
import type { Kysely } from 'kysely';
import type { Engine } from '../engine.ts';

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const text = engine.textType;
  await db.schema
    .alterTable('sources')
    .addColumn('set_aside', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('set_aside_records')
    .addColumn('source_id', text, (c) => c.notNull().references('sources.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('record', text, (c) => c.notNull())
    .addColumn('reason', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('set_aside_records_pk', ['source_id', 'position'])
    .execute();
}
