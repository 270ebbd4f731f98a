/**
 * What differs between the two storage engines. Everything else is shared query-builder code;
 * the few statements one engine spells differently live in its own file under engines/.
 */
import type { ColumnDataType, Expression, Kysely, Transaction } from 'kysely';
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
  /** Maps a driver error to a domain error where one applies (unique violation, busy, …). */
  isUniqueViolation(error: unknown): boolean;
  /** True when the error is the immutability trigger refusing a change. */
  isImmutableViolation(error: unknown): boolean;
  /**
   * Prepares `sql` (positional `?` placeholders, this engine's dialect) once; the same text
   * always returns the same statement.
   */
  prepare<R = Record<string, unknown>>(sql: string): Prepared<R>;
  /**
   * The condition `column` is one of a list passed as one parameter: `IN (SELECT value FROM
   * json_each(?))` on SQLite, `= ANY(?)` on PostgreSQL; `listParam` encodes the list for it.
   */
  inList(column: string): string;
  listParam(values: readonly string[]): unknown;
  /**
   * Inserts rows (values in `columns` order) inside the caller's open transaction, the engine's
   * fastest way: one prepared single-row statement per row on SQLite (in-process, no parse),
   * array-parameter multi-row statements on PostgreSQL. `integers` names the integer columns.
   */
  insertRows(
    trx: Transaction<Database>,
    table: string,
    columns: readonly string[],
    rows: readonly (readonly unknown[])[],
    integers?: readonly string[],
  ): Promise<void>;
  /** Runs one statement with `?` placeholders inside the caller's open transaction. */
  runIn(trx: Transaction<Database>, sql: string, params: readonly unknown[]): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
}
