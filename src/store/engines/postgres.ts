/**
 * The shared engine for several API nodes: PostgreSQL through `pg`'s connection pool.
 */
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Engine } from '../engine.ts';
import type { Database } from '../schema.ts';

export function openPostgres(url: string): Engine {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    name: 'postgres',
    db,
    textType: sql`text collate "C"`,
    serialPrimaryKey: 'bigserial',
    receiptImmutabilitySql: () => [
      `CREATE FUNCTION refuse_receipt_change() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN RAISE EXCEPTION 'receipts are immutable'; END $$`,
      `CREATE TRIGGER checks_refuse_change BEFORE UPDATE OR DELETE ON checks
         FOR EACH ROW EXECUTE FUNCTION refuse_receipt_change()`,
      `CREATE TRIGGER checks_refuse_truncate BEFORE TRUNCATE ON checks
         FOR EACH STATEMENT EXECUTE FUNCTION refuse_receipt_change()`,
    ],
    isUniqueViolation: (error) => error instanceof Error && 'code' in error && error.code === '23505',
    isImmutableViolation: (error) => error instanceof Error && /receipts are immutable/.test(error.message),
    close: () => db.destroy(),
  };
}
