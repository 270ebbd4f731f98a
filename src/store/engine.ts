/** What differs between the SQLite and PostgreSQL engines; the rest is shared query-builder code. */
import type {
  AliasedRawBuilder,
  ColumnDataType,
  CompiledQuery,
  Expression,
  Kysely,
  RawBuilder,
  SqlBool,
  Transaction,
} from 'kysely';
import type { Database } from './schema.ts';
import type { StoreStateWatch } from './store-state.ts';

/**
 * The database can't be used as it is, for a reason said in one line for the operator: a migration failed or
 * came from a newer release, a SQLite file can't be opened, or one of the two is missing. The CLI prints it
 * without a stack.
 */
export class DatabaseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseError';
  }
}

/** A statement prepared once and run many times on the driver (no per-call compile or re-parse). */
export interface Prepared<R> {
  all(params: readonly unknown[]): Promise<R[]>;
  /** Runs a write; returns the number of rows changed. */
  run(params: readonly unknown[]): Promise<number>;
}

/** On SQLite, how long one try of a serving write waits for the write lock, blocking the event loop. */
export const WRITE_TRY_MS = 5;
/** On SQLite, how long a command's write waits for the write lock before it fails (the connection's busy timeout). */
export const BUSY_DEADLINE_MS = 30_000;

/**
 * How long a request waits for the database before it fails (500 `/problems/internal` with `Retry-After`): on
 * SQLite, a serving write for the write lock (`withoutStall`); on PostgreSQL, for a pooled connection and, in
 * `serve`, each statement (`statement_timeout`, a row lock included). docs/scale.md, "Bounds".
 */
export const REQUEST_WAIT_MS = 5_000;

/**
 * Whether `error` is the database not answering within its bound: SQLite busy past its deadline, PostgreSQL's
 * statement timeout or lock timeout, or no pooled connection free in time.
 */
export function isDatabaseBusy(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code === '57014' || code === '55P03'))
    return true;
  return typeof message === 'string' && message === 'timeout exceeded when trying to connect';
}

/**
 * How long a node reports itself not ready (`/readyz`) after a serving write failed for want of space or
 * permission (a write that succeeds meanwhile does not end it: a small one may fit where a receipt does not).
 */
export const STORAGE_FAILURE_MS = 10_000;

/**
 * What stops the database being written, said for an operator, when `error` is a storage failure: no space
 * left (SQLite SQLITE_FULL, PostgreSQL 53100), read-only files or database (SQLITE_READONLY, 25006) or an I/O
 * error (SQLITE_IOERR, 58030); undefined for any other error.
 */
export function storageFailureOf(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code !== 'string') return undefined;
  const what =
    code === 'SQLITE_FULL' || code === '53100'
      ? 'the disk is full'
      : code.startsWith('SQLITE_READONLY') || code === '25006'
        ? 'the database is read-only'
        : code.startsWith('SQLITE_IOERR') || code === '58030'
          ? 'an I/O error'
          : undefined;
  return what === undefined ? undefined : `writes fail: ${what} (${code}: ${String(message).split('\n')[0]})`;
}

/** Both state rows (the corpus's and the keys'), read by `Engine.check`: on SQLite, a read of each file. */
export const STATE_ROWS =
  'SELECT (SELECT version FROM corpus_state WHERE id = 1) AS v, (SELECT keys_version FROM keys_state WHERE id = 1) AS k';

/** Distinct statements an engine keeps prepared; past this, statements are prepared per call. */
export const PREPARED_LIMIT = 500;

/** A storage engine: its Kysely handle and the few statements each engine spells its own way. */
export interface Engine {
  readonly name: 'sqlite' | 'postgres';
  readonly db: Kysely<Database>;
  /** Text column type, comparing byte-wise on both engines (a PostgreSQL collation may skip punctuation). */
  readonly textType: ColumnDataType | Expression<unknown>;
  readonly serialPrimaryKey: 'integer' | 'bigserial';
  /** Statements that make stored receipts refuse UPDATE and DELETE (and TRUNCATE where it exists). */
  receiptImmutabilitySql(): string[];
  /**
   * Migration 0006's statements: triggers that move `corpus_state.keys_version` on every change to `api_keys`
   * (whoever writes it) and, on PostgreSQL, NOTIFY each change of `corpus_state` on STATE_CHANNEL.
   */
  stateSignalSql(): string[];
  /**
   * Migration 0008's statements: the triggers on `api_keys` move `keys_state.keys_version` instead and, on
   * PostgreSQL, a change of `corpus_state` or `keys_state` announces both versions on STATE_CHANNEL.
   */
  keysStateSql(): string[];
  /** This node's watch of the shared state (store-state.ts); `clock` in milliseconds, monotonic. */
  watchState(clock?: () => number): StoreStateWatch;
  /** Runs once the schema is current: SQLite moves corpus tables still among the service's records to their file. */
  ready(): Promise<void>;
  /**
   * Throws, saying why, when the database this engine opened does not answer as itself now: a read of the
   * state rows fails (the server refuses, a table is gone), or on SQLite a file at its path is not the one
   * open (moved away, deleted or replaced: other processes opening the path would see another database).
   */
  check(): Promise<void>;
  /**
   * Runs a write made while serving so that a write lock held elsewhere never stalls the event loop for long:
   * on SQLite (whose driver waits synchronously) each try waits at most WRITE_TRY_MS for the lock, and between
   * tries the event loop runs, for up to REQUEST_WAIT_MS in all (then SQLITE_BUSY); PostgreSQL waits off the
   * event loop anyway, bounded by its statement timeout.
   * `write` may run more than once: it must be a whole transaction, or one statement.
   */
  withoutStall<T>(write: () => Promise<T>): Promise<T>;
  /**
   * Why the database cannot be written now (`storageFailureOf`), or undefined: a write through `withoutStall`
   * failed so within STORAGE_FAILURE_MS, or (SQLite) the write lock cannot be taken for another reason than
   * another writer holding it (read-only files).
   */
  writeProblem(): Promise<string | undefined>;
  /** Prepares `?`-placeholder text or a query compiled by `db`; reused while among PREPARED_LIMIT kept. */
  prepare<R = Record<string, unknown>>(query: string | CompiledQuery<R>): Prepared<R>;
  /**
   * A text column read as its UTF-8 bytes where the driver hands them over undecoded (SQLite: `CAST … AS BLOB`,
   * a Buffer), else as its text (PostgreSQL). For stored renderings that are only ever sent on (json-text.ts).
   */
  utf8(column: string): RawBuilder<string | Uint8Array>;
  /**
   * A text value as a JSON string, escaped byte for byte as `JSON.stringify` escapes it (SQLite `json_quote`,
   * PostgreSQL `to_json(…)::text`; both write `\b \t \n \f \r` short and other controls as lower-case
   * `\u00xx`, and leave the rest as it is). Never NULL for a non-NULL value.
   */
  jsonQuote(value: Expression<string>): RawBuilder<string>;
  /**
   * Aggregate: the group's texts joined by commas, in the order the rows come (from an ordered subquery), as
   * bytes where the driver hands them over undecoded (see `utf8`); NULL for no row.
   */
  commaJoined(text: Expression<string>): RawBuilder<string | Uint8Array | null>;
  /** Aggregate: each row's `values` as a JSON array, all of them in one JSON array text, in the same order. */
  jsonRows(values: readonly Expression<unknown>[]): RawBuilder<string>;
  /** `column` is in `list` (encoded by `listParam`): `json_each(?)` on SQLite, `= any(?)` on PostgreSQL. */
  inList(column: Expression<string | null>, list: unknown): Expression<SqlBool>;
  /** `values` as one parameter for `inList` and `listRows`, each distinct value once (a set, in first-seen order). */
  listParam(values: readonly string[]): unknown;
  /**
   * `list` (encoded by `listParam`) as rows of one column, `keys.value` (SQLite `json_each`, PostgreSQL
   * `unnest`): a statement joining it probes an index once per key. Unlike `inList`, SQLite builds no
   * temporary index of the list first (for 1000 keys, most of the statement's time). A join gives each
   * matching row once, since `listParam` keeps each value once.
   */
  listRows(list: unknown): AliasedRawBuilder<{ value: string }, 'keys'>;
  /** Bulk insert in `columns` order, in the caller's transaction: SQLite prepared rows, PostgreSQL arrays. */
  insertRows<T extends keyof Database>(
    trx: Transaction<Database>,
    table: T,
    columns: readonly (keyof Database[T] & string)[],
    rows: readonly (readonly unknown[])[],
    integers?: readonly (keyof Database[T] & string)[],
  ): Promise<void>;
  close(): Promise<void>;
}
