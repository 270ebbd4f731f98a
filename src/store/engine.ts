/**
 * What differs between the two storage engines. Everything else is shared query-builder code;
 * the few statements one engine spells differently live in its own file under engines/.
 */
import type { ColumnDataType, CompiledQuery, Expression, Kysely, SqlBool, Transaction } from 'kysely';
import type { Database } from './schema.ts';

/**
 * A statement prepared once and run many times straight on the driver: the hot read paths and
 * the quota update skip the query builder's per-call compilation and the driver's re-parse.
 */
export interface Prepared<R> {
  /** The rows of a query. */
  all(params: readonly unknown[]): Promise<R[]>;
  /** Runs a write; the number of rows it changed. */
  run(params: readonly unknown[]): Promise<number>;
}

/** Distinct statements an engine keeps prepared; past this, statements are prepared per call. */
export const PREPARED_LIMIT = 500;

export interface Engine {
  readonly name: 'sqlite' | 'postgres';
  readonly db: Kysely<Database>;
  /**
   * Column type for text. PostgreSQL compares text by the database's collation, which may
   * ignore punctuation; keys and keyset positions must compare byte-wise on both engines.
   */
  readonly textType: ColumnDataType | Expression<unknown>;
  /** Column type of an auto-incrementing integer primary key. */
  readonly serialPrimaryKey: 'integer' | 'bigserial';
  /** Statements that make stored receipts refuse UPDATE and DELETE (and TRUNCATE where it exists). */
  receiptImmutabilitySql(): string[];
  /**
   * Prepares a statement: text with positional `?` placeholders, or a query compiled by `db`
   * (already in this engine's dialect). The same text returns the same statement while it is
   * among the PREPARED_LIMIT kept.
   */
  prepare<R = Record<string, unknown>>(query: string | CompiledQuery<R>): Prepared<R>;
  /**
   * The condition `column` is one of the list passed as the one parameter `list` (`listParam`
   * encodes it): `in (select value from json_each(?))` on SQLite, `= any(?)` on PostgreSQL.
   */
  inList(column: Expression<string | null>, list: unknown): Expression<SqlBool>;
  listParam(values: readonly string[]): unknown;
  /**
   * Inserts rows (values in `columns` order) inside the caller's open transaction, the engine's
   * fastest way: one prepared single-row statement per row on SQLite (in-process, no parse),
   * array-parameter multi-row statements on PostgreSQL. `integers` names the integer columns.
   */
  insertRows<T extends keyof Database>(
    trx: Transaction<Database>,
    table: T,
    columns: readonly (keyof Database[T] & string)[],
    rows: readonly (readonly unknown[])[],
    integers?: readonly (keyof Database[T] & string)[],
  ): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
}
