/**
 * The embedded engine: two SQLite files in WAL mode (sqlite-files.ts), so readers never wait for a writer, and
 * the daily ingest's writes to the corpus and the API's writes to the service's records never wait for each other.
 */
import { statSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import {
  CompiledQuery,
  Kysely,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  sql,
  type DatabaseConnection,
  type Driver,
  type SqliteDialectConfig,
} from 'kysely';
import { BoundedCache, CacheRegistry } from '../../node/caches.ts';
import {
  BUSY_DEADLINE_MS,
  REQUEST_WAIT_MS,
  PREPARED_LIMIT,
  STATE_ROWS,
  STORAGE_FAILURE_MS,
  storageFailureOf,
  WRITE_TRY_MS,
  type Engine,
  type Prepared,
} from '../engine.ts';
import type { Database } from '../schema.ts';
import { moveCorpusTables } from '../migrations/corpus-file.ts';
import { corpusPathOf, openPair } from './sqlite-files.ts';
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver.ts';
import { SqliteStateWatch } from './sqlite-watch.ts';

/**
 * Kysely's SQLite adapter takes no migration lock (one connection, it says); but two processes migrating a new
 * file at once both ran every migration ("table already exists"). Here the migrations run in one `BEGIN
 * IMMEDIATE` transaction: the second process waits for the write lock (the busy timeout, BUSY_DEADLINE_MS),
 * then finds them applied.
 */
class MigrationLockingAdapter extends SqliteAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`BEGIN IMMEDIATE`.execute(db);
  }

  override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`COMMIT`.execute(db);
  }
}

/**
 * When a statement fails for want of space or an I/O error (SQLITE_FULL, SQLITE_IOERR), SQLite has already
 * rolled the transaction back: Kysely's own ROLLBACK would then fail ("cannot rollback - no transaction is
 * active") and that error would hide the cause. Here ROLLBACK is sent only while a transaction is open.
 */
class CauseKeepingDriver extends SqliteDriver {
  constructor(
    config: SqliteDialectConfig,
    private readonly connection: SqliteDatabase,
  ) {
    super(config);
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.connection.inTransaction) await super.rollbackTransaction(connection);
  }
}

class MigrationLockingDialect extends SqliteDialect {
  constructor(private readonly config: SqliteDialectConfig & { database: SqliteDatabase }) {
    super(config);
  }

  override createAdapter(): SqliteAdapter {
    return new MigrationLockingAdapter();
  }

  override createDriver(): Driver {
    return new CauseKeepingDriver(this.config, this.config.database);
  }
}

/** The most pages the driver copies in one step (its cap): every page, in one read transaction. */
const ALL_PAGES = 0x7fffffff;

/** The SQLite engine, and what only it can do. */
export interface SqliteEngine extends Engine {
  /**
   * Copies one file of the pair (`main`, the service's records, or `corpus`) to `to` with SQLite's online backup
   * API in one step, that is in one read transaction: a consistent snapshot of that file, which in WAL mode holds
   * up no writer (../backup.ts).
   */
  snapshot(schema: 'main' | 'corpus', to: string): Promise<void>;
}

/** Opens the service's records at `path` with the corpus file beside it (`corpusPathOf`). */
export function openSqlite(path: string, caches = new CacheRegistry()): SqliteEngine {
  const connection = openPair(path);
  connection.pragma(`busy_timeout = ${BUSY_DEADLINE_MS}`);
  for (const schema of ['main', 'corpus'] as const) {
    useWal(connection, schema);
    connection.pragma(`${schema}.synchronous = NORMAL`);
  }
  connection.pragma('foreign_keys = ON');
  // 32 MiB of page cache for the corpus (the default is 2 MiB): holds the interior pages of the identifier
  // and order indexes at millions of rows (~3 MB per index at 10 M entries), so a probe reads one
  // leaf page, not four. Leaf pages come from the OS cache; 64 MiB measured no faster at 2 M recalls.
  connection.pragma('corpus.cache_size = -32768');
  const db = new Kysely<Database>({ dialect: new MigrationLockingDialect({ database: connection }) });
  // A statement dropped from a cache is finalised when nothing holds it any more.
  const statements = caches.add(
    new BoundedCache<string, Prepared<unknown>>('prepared-statements', { max: PREPARED_LIMIT }),
  );
  // The ingest's bulk inserts: one statement per table written.
  const direct = caches.add(new BoundedCache<string, SqliteStatement>('bulk-insert-statements', { max: 16 }));
  const files =
    path === ':memory:' ? [] : [path, corpusPathOf(path)].map((p) => ({ path: p, id: fileId(p) }));
  let stateRows: SqliteStatement | undefined; // prepared once the schema exists
  /** Truncates both files' WAL (checkpointing it first); whether either gave space back. */
  function giveBackWalSpace(): boolean {
    let freed = false;
    for (const schema of ['main', 'corpus'] as const) {
      try {
        const wal = `${schema === 'main' ? path : corpusPathOf(path)}-wal`;
        const before = statSync(wal, { throwIfNoEntry: false })?.size ?? 0;
        connection.pragma(`${schema}.wal_checkpoint(TRUNCATE)`);
        if ((statSync(wal, { throwIfNoEntry: false })?.size ?? 0) < before) freed = true;
      } catch {
        // another connection holds it, or there is none: nothing to give back here
      }
    }
    return freed;
  }
  /** The last serving write's storage failure, for STORAGE_FAILURE_MS (`writeProblem`). */
  let storageFailure: { reason: string; at: number } | undefined;

  function prepare<R>(query: string | CompiledQuery<R>): Prepared<R> {
    const text = typeof query === 'string' ? query : query.sql;
    const cached = statements.get(text);
    if (cached !== undefined) return cached as Prepared<R>;
    const statement = connection.prepare(text);
    // While the query builder holds a transaction open on the one connection (an ingest in this
    // process), a statement must wait for it like any other query, not run inside it.
    const queued = () => connection.inTransaction;
    const prepared: Prepared<R> = statement.reader
      ? {
          all: (params) =>
            queued()
              ? db.executeQuery<R>(CompiledQuery.raw(text, [...params])).then((r) => [...r.rows])
              : Promise.resolve(statement.all(...params) as R[]),
          run: () => Promise.reject(new Error('a query is not a write')),
        }
      : {
          all: () => Promise.reject(new Error('a write returns no rows')),
          run: (params) =>
            queued()
              ? db
                  .executeQuery(CompiledQuery.raw(text, [...params]))
                  .then((r) => Number(r.numAffectedRows ?? 0))
              : Promise.resolve(statement.run(...params).changes),
        };
    statements.set(text, prepared as Prepared<unknown>);
    return prepared;
  }

  return {
    name: 'sqlite',
    db,
    textType: 'text',
    serialPrimaryKey: 'integer',
    receiptImmutabilitySql: () => [
      `CREATE TRIGGER checks_refuse_update BEFORE UPDATE ON checks
         BEGIN SELECT RAISE(ABORT, 'receipts are immutable'); END`,
      `CREATE TRIGGER checks_refuse_delete BEFORE DELETE ON checks
         BEGIN SELECT RAISE(ABORT, 'receipts are immutable'); END`,
    ],
    stateSignalSql: () =>
      ['INSERT', 'UPDATE', 'DELETE'].map(
        (
          event,
        ) => `CREATE TRIGGER api_keys_${event.toLowerCase()}_moves_keys_version AFTER ${event} ON api_keys
           BEGIN UPDATE corpus_state SET keys_version = keys_version + 1 WHERE id = 1; END`,
      ),
    keysStateSql: () => [
      ...['insert', 'update', 'delete'].map((event) => `DROP TRIGGER api_keys_${event}_moves_keys_version`),
      ...['INSERT', 'UPDATE', 'DELETE'].map(
        (event) => `CREATE TRIGGER api_keys_${event.toLowerCase()}_moves_keys_state AFTER ${event} ON api_keys
           BEGIN UPDATE keys_state SET keys_version = keys_version + 1 WHERE id = 1; END`,
      ),
    ],
    watchState(clock) {
      const main = connection.prepare('PRAGMA main.data_version').pluck();
      const corpus = connection.prepare('PRAGMA corpus.data_version').pluck();
      return new SqliteStateWatch(this, () => `${main.get() as number} ${corpus.get() as number}`, clock);
    },
    ready: async () => moveCorpusTables(connection),
    async check() {
      for (const file of files) {
        let id: string;
        try {
          id = fileId(file.path);
        } catch {
          throw new Error(`${file.path} is gone (this node still has the file it opened there)`);
        }
        if (id !== file.id)
          throw new Error(`${file.path} is not the file this node opened (it was moved or replaced)`);
      }
      stateRows ??= connection.prepare(STATE_ROWS);
      const row = stateRows.get() as { v: unknown; k: unknown } | undefined;
      if (row === undefined || row.v === null || row.k === null)
        throw new Error('the state rows are missing');
    },
    async withoutStall(write) {
      const deadline = Date.now() + REQUEST_WAIT_MS;
      let givenBack = false;
      for (let pause = 1; ; pause = Math.min(2 * pause, 50)) {
        connection.pragma(`busy_timeout = ${WRITE_TRY_MS}`);
        try {
          return await write();
        } catch (error) {
          const code = (error as { code?: string }).code;
          // The disk is full: a WAL file may still hold the pages of a write that failed (an ingest stopped
          // midway leaves its corpus WAL at its size while this node keeps the file open). Checkpointing with
          // TRUNCATE gives that space back when no other connection uses the file; then the write is tried again.
          if (code === 'SQLITE_FULL' && !givenBack) {
            givenBack = true;
            if (giveBackWalSpace()) continue;
          }
          const failure = storageFailureOf(error);
          if (failure !== undefined) storageFailure = { reason: failure, at: Date.now() };
          if (!code?.startsWith('SQLITE_BUSY') || Date.now() > deadline) throw error;
        } finally {
          connection.pragma(`busy_timeout = ${BUSY_DEADLINE_MS}`);
        }
        await delay(pause);
      }
    },
    async writeProblem() {
      if (storageFailure !== undefined && Date.now() - storageFailure.at < STORAGE_FAILURE_MS)
        return storageFailure.reason;
      if (connection.inTransaction) return undefined; // a write is under way: it says for itself
      // Taking the write lock and letting it go writes nothing, but fails on read-only files.
      connection.pragma('busy_timeout = 0');
      try {
        connection.exec('BEGIN IMMEDIATE');
        connection.exec('ROLLBACK');
        return undefined;
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code?.startsWith('SQLITE_BUSY')) return undefined; // another writer holds it
        return storageFailureOf(error) ?? `writes fail: ${(error as Error).message.split('\n')[0]}`;
      } finally {
        connection.pragma(`busy_timeout = ${BUSY_DEADLINE_MS}`);
      }
    },
    prepare,
    utf8: (column) => sql<Uint8Array>`CAST(${sql.ref(column)} AS BLOB)`,
    jsonQuote: (value) => sql<string>`json_quote(${value})`,
    // group_concat keeps the order of its input rows, as the ordered subquery gives them
    commaJoined: (text) => sql<Uint8Array | null>`CAST(group_concat(${text}, ',') AS BLOB)`,
    jsonRows: (values) => sql<string>`json_group_array(json_array(${sql.join(values)}))`,
    inList: (column, list) => sql<boolean>`${column} in (select value from json_each(${list}))`,
    listParam: (values) => JSON.stringify([...new Set(values)]),
    listRows: (list) => sql<{ value: string }>`json_each(${list})`.as('keys'),
    // The transaction is open on the one connection and the caller holds it: run directly.
    async insertRows(_trx, table, columns, rows) {
      const text = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
      let statement = direct.get(text);
      if (statement === undefined) direct.set(text, (statement = connection.prepare(text)));
      for (const row of rows) statement.run(...row);
    },
    async snapshot(schema, to) {
      // `attached` is the driver's (documented, missing from its types): the schema to copy.
      const options = { attached: schema, progress: () => ALL_PAGES };
      await connection.backup(to, options);
    },
    close: () => db.destroy(),
  };
}

/**
 * Switches one file of the pair to WAL. On a new file (still in rollback mode) the switch writes its header, and
 * while another connection holds that file's write lock (another process switching the same new file, or
 * migrating it) SQLite answers SQLITE_BUSY at once, without its busy handler; so the switch is tried again,
 * every 5 ms, for up to BUSY_DEADLINE_MS. A file already in WAL mode takes no lock.
 */
function useWal(connection: SqliteDatabase, schema: 'main' | 'corpus'): void {
  const deadline = Date.now() + BUSY_DEADLINE_MS;
  for (;;) {
    try {
      connection.pragma(`${schema}.journal_mode = WAL`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5); // opening is synchronous: so is the pause
    }
  }
}

/** Which file is at `path` (device and inode), to tell it from another put there later. */
function fileId(path: string): string {
  const { dev, ino } = statSync(path);
  return `${dev}:${ino}`;
}
