/** The shared engine for several API nodes: PostgreSQL through `pg`'s connection pool. */
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { BoundedCache, CacheRegistry } from '../../node/caches.ts';
import {
  PREPARED_LIMIT,
  REQUEST_WAIT_MS,
  STATE_ROWS,
  STORAGE_FAILURE_MS,
  storageFailureOf,
  type Engine,
  type Prepared,
} from '../engine.ts';
import type { Database } from '../schema.ts';
import { PostgresStateWatch, STATE_CHANNEL } from './postgres-watch.ts';

/** `?` placeholders numbered `$1`, `$2`, … */
function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/** What a PostgreSQL engine bounds besides a pooled connection's wait (REQUEST_WAIT_MS). */
export interface PostgresBounds {
  /** Each statement's `statement_timeout` (a lock wait included); none when absent. */
  statementTimeoutMs?: number;
}

/**
 * Opens a pool of 10 connections on `url`; waiting for one fails after REQUEST_WAIT_MS ("timeout exceeded when
 * trying to connect"), and each statement after `bounds.statementTimeoutMs` when given (code 57014).
 */
export function openPostgres(url: string, caches = new CacheRegistry(), bounds: PostgresBounds = {}): Engine {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: REQUEST_WAIT_MS,
    ...(bounds.statementTimeoutMs === undefined ? {} : { statement_timeout: bounds.statementTimeoutMs }),
  });
  // An idle pooled connection that the server closes (a restart, a terminated backend) is
  // reported here; the pool drops it and the next query connects anew. Without a listener the
  // event would crash the process.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  /** The last serving write's storage failure (disk full, read-only), for STORAGE_FAILURE_MS. */
  let storageFailure: { reason: string; at: number } | undefined;
  // A named statement is parsed and planned once per pooled connection and stays there until
  // the connection closes, so names are never dropped or reused: past PREPARED_LIMIT distinct
  // texts, statements go unnamed (parsed on each run).
  const statements = caches.add(
    new BoundedCache<string, Prepared<unknown>>('prepared-statements', { max: PREPARED_LIMIT }),
  );

  function prepare<R>(query: string | CompiledQuery<R>): Prepared<R> {
    const text = typeof query === 'string' ? numbered(query) : query.sql;
    const cached = statements.get(text);
    if (cached !== undefined) return cached as Prepared<R>;
    const name = statements.size < PREPARED_LIMIT ? `recalls_${statements.size + 1}` : undefined;
    const prepared: Prepared<R> = {
      all: (values) => pool.query({ name, text, values: [...values] }).then((r) => r.rows as R[]),
      run: (values) => pool.query({ name, text, values: [...values] }).then((r) => r.rowCount ?? 0),
    };
    if (name !== undefined) statements.set(text, prepared as Prepared<unknown>);
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
    stateSignalSql: () => [
      `CREATE FUNCTION move_keys_version() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN UPDATE corpus_state SET keys_version = keys_version + 1 WHERE id = 1; RETURN NULL; END $$`,
      `CREATE TRIGGER api_keys_move_keys_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON api_keys
         FOR EACH STATEMENT EXECUTE FUNCTION move_keys_version()`,
      // Delivered at commit, to every node's listener; a rolled-back change announces nothing.
      `CREATE FUNCTION announce_store_state() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN PERFORM pg_notify('${STATE_CHANNEL}', NEW.version || ' ' || NEW.keys_version); RETURN NULL; END $$`,
      `CREATE TRIGGER corpus_state_announce AFTER UPDATE ON corpus_state
         FOR EACH ROW EXECUTE FUNCTION announce_store_state()`,
    ],
    keysStateSql: () => [
      `CREATE OR REPLACE FUNCTION move_keys_version() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN UPDATE keys_state SET keys_version = keys_version + 1 WHERE id = 1; RETURN NULL; END $$`,
      `CREATE OR REPLACE FUNCTION announce_store_state() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           PERFORM pg_notify('${STATE_CHANNEL}',
             (SELECT version FROM corpus_state WHERE id = 1) || ' ' || (SELECT keys_version FROM keys_state WHERE id = 1));
           RETURN NULL;
         END $$`,
      `CREATE TRIGGER keys_state_announce AFTER UPDATE ON keys_state
         FOR EACH ROW EXECUTE FUNCTION announce_store_state()`,
    ],
    watchState(clock) {
      return new PostgresStateWatch(this, url, clock);
    },
    ready: async () => {},
    async check() {
      const { rows } = await pool.query<{ v: unknown; k: unknown }>(STATE_ROWS);
      const row = rows[0];
      if (row === undefined || row.v === null || row.k === null)
        throw new Error('the state rows are missing');
    },
    async withoutStall(write) {
      try {
        return await write();
      } catch (error) {
        const failure = storageFailureOf(error);
        if (failure !== undefined) storageFailure = { reason: failure, at: Date.now() };
        throw error;
      }
    },
    writeProblem: async () =>
      storageFailure !== undefined && Date.now() - storageFailure.at < STORAGE_FAILURE_MS
        ? storageFailure.reason
        : undefined,
    prepare,
    utf8: (column) => sql<string>`${sql.ref(column)}`,
    jsonQuote: (value) => sql<string>`to_json(${value}::text)::text`,
    commaJoined: (text) => sql<string | null>`string_agg(${text}, ',')`,
    jsonRows: (values) => sql<string>`coalesce(json_agg(json_build_array(${sql.join(values)}))::text, '[]')`,
    inList: (column, list) => sql<boolean>`${column} = any(${list}::text[])`,
    listParam: (values) => [...new Set(values)],
    listRows: (list) => sql<{ value: string }>`(select unnest(${list}::text[]) as value)`.as('keys'),
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
    close: () => db.destroy(),
  };
}
