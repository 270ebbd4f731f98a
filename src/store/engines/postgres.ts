/**
 * The shared engine for several API nodes: PostgreSQL through `pg`'s connection pool.
 */
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Engine, Prepared } from '../engine.ts';
import type { Database } from '../schema.ts';

export function openPostgres(url: string): Engine {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle pooled connection that the server closes (a restart, a terminated backend) is
  // reported here; the pool drops it and the next query connects anew. Without a listener the
  // event would crash the process.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const statements = new Map<string, Prepared<unknown>>();

  /** A named statement: each pooled connection parses and plans it once. */
  function prepare<R>(text: string): Prepared<R> {
    const cached = statements.get(text);
    if (cached !== undefined) return cached as Prepared<R>;
    let n = 0;
    const numbered = text.replace(/\?/g, () => `$${++n}`);
    const name = `recalls_${statements.size + 1}`;
    const prepared: Prepared<R> = {
      all: (values) => pool.query({ name, text: numbered, values: [...values] }).then((r) => r.rows as R[]),
      run: (values) => pool.query({ name, text: numbered, values: [...values] }).then((r) => r.rowCount ?? 0),
    };
    statements.set(text, prepared as Prepared<unknown>);
    return prepared;
  }

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
    prepare,
    inList: (column) => `${column} = ANY(?::text[])`,
    listParam: (values) => [...values],
    async insertRows(trx, table, columns, rows, integers = []) {
      const text =
        `INSERT INTO ${table} (${columns.join(', ')}) SELECT * FROM unnest(` +
        columns.map((c, i) => `$${i + 1}::${integers.includes(c) ? 'integer' : 'text'}[]`).join(', ') +
        ')';
      for (let from = 0; from < rows.length; from += 2000) {
        const chunk = rows.slice(from, from + 2000);
        const arrays = columns.map((_, c) => chunk.map((r) => r[c] ?? null));
        await trx.executeQuery(CompiledQuery.raw(text, arrays));
      }
    },
    async runIn(trx, text, params) {
      let n = 0;
      await trx.executeQuery(
        CompiledQuery.raw(
          text.replace(/\?/g, () => `$${++n}`),
          [...params],
        ),
      );
    },
    close: () => db.destroy(),
  };
}
