/**
 * What differs between the two storage engines. Everything else is shared query-builder code;
 * the few statements one engine spells differently live in its own file under engines/.
 */
import type { ColumnDataType, Expression, Kysely } from 'kysely';
import type { Database } from './schema.ts';

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
  /** Releases connections. */
  close(): Promise<void>;
}
