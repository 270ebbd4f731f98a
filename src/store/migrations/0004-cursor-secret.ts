/** The per-database cursor secret (32 random bytes, migrated databases too) that signs paging cursors. */
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../engine.ts';

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('cursor_secret')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('secret', engine.textType, (c) => c.notNull())
    .execute();
  await sql`INSERT INTO cursor_secret (id, secret) VALUES (1, ${randomBytes(32).toString('hex')})`.execute(
    db,
  );
}
