/**
 * Opens the store on the configured engine, brings its schema up to date, and hands out the
 * table-family modules. Callers never see the engine or the query builder.
 */
import { Migrator } from 'kysely';
import type { Config } from '../config.ts';
import { CacheRegistry } from '../node/caches.ts';
import { DatabaseError, REQUEST_WAIT_MS, type Engine } from './engine.ts';

/** For the HTTP layer: how long a request waits for the database, and whether an error is that wait running out. */
export { isDatabaseBusy, REQUEST_WAIT_MS } from './engine.ts';
import { openSqlite } from './engines/sqlite.ts';
import { ChecksStore } from './checks-store.ts';
import { IdentifiersStore } from './identifiers-store.ts';
import { IngestStore } from './ingest-store.ts';
import { KeysStore } from './keys-store.ts';
import { LocksStore } from './locks-store.ts';
import { migrationProvider } from './migrations/index.ts';
import { RecallsStore } from './recalls-store.ts';
import { ReportStore } from './report-store.ts';
import { SourcesStore } from './sources-store.ts';
import { UsageStore } from './usage-store.ts';

/** The whole persistence layer, one module per table family. */
export interface Store {
  readonly engine: Engine['name'];
  readonly recalls: RecallsStore;
  readonly identifiers: IdentifiersStore;
  readonly ingest: IngestStore;
  readonly sources: SourcesStore;
  readonly keys: KeysStore;
  readonly usage: UsageStore;
  readonly checks: ChecksStore;
  readonly locks: LocksStore;
  readonly report: ReportStore;
  /** The key paging cursors are signed with: made by the first migration, the same on every node. */
  readonly cursorSecret: Buffer;
  /** The migrations opening the store applied, in order (none when the database was up to date). */
  readonly migrated: readonly string[];
  /**
   * Whether this node can serve: the database answers as the one opened (`Engine.check`), every migration
   * of this release is applied, and it can be written (`Engine.writeProblem`: not full, not read-only). Never throws.
   */
  readiness(): Promise<Readiness>;
  /**
   * A number that moves whenever a corpus-backed body would change (records, revisions, a source's served
   * state), and only then; known in memory, see store-state.ts for how soon a change made elsewhere is seen.
   */
  corpusVersion(): Promise<number>;
  close(): Promise<void>;
}

/** Ready, or why not (one line for an operator). */
export type Readiness = { ready: true } | { ready: false; reason: string };

async function openEngine(
  database: Config['database'],
  caches: CacheRegistry,
  statementTimeoutMs?: number,
): Promise<Engine> {
  if (database.engine === 'sqlite') return openSqlite(database.path, caches);
  const { openPostgres } = await import('./engines/postgres.ts');
  return openPostgres(database.url, caches, { statementTimeoutMs });
}

/** The migrations of this release not applied to the database. */
async function pendingMigrations(engine: Engine): Promise<string[]> {
  const migrator = new Migrator({ db: engine.db, provider: migrationProvider(engine) });
  return (await migrator.getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
}

async function readiness(engine: Engine): Promise<Readiness> {
  try {
    await engine.check();
    const pending = await pendingMigrations(engine);
    if (pending.length > 0) return { ready: false, reason: `migrations not applied: ${pending.join(', ')}` };
    const problem = await engine.writeProblem();
    return problem === undefined ? { ready: true } : { ready: false, reason: problem };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ready: false, reason: `the database does not answer: ${message.split('\n')[0]}` };
  }
}

/**
 * Applies every pending migration. A database that has a migration this release does not know was
 * migrated by a newer release: refused, saying so (Kysely calls it corrupted).
 */
export async function migrate(engine: Engine): Promise<string[]> {
  const migrator = new Migrator({ db: engine.db, provider: migrationProvider(engine) });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const newer = /previously executed migration (.+) is missing/.exec((error as Error).message)?.[1];
    if (newer !== undefined)
      throw new DatabaseError(
        `the database was migrated by a newer release (migration ${newer} is not in this one): run that release, or restore the backup made before the upgrade`,
        { cause: error },
      );
    throw new DatabaseError(isConnectionFailure(error) ? CANNOT_CONNECT : 'database migration failed', {
      cause: error,
    });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** What a DatabaseError says when the database was not reached at all. */
export const CANNOT_CONNECT = 'cannot connect to the database';

/**
 * Whether an error is the database not being reached at all (the system's connection errors, PostgreSQL's
 * refused login or missing database), not a migration that ran and failed.
 */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (/^E[A-Z]+$/.test(code) || ['28000', '28P01', '3D000'].includes(code));
}

async function loadCursorSecret(db: Engine['db']): Promise<Buffer> {
  const row = await db.selectFrom('cursor_secret').select('secret').where('id', '=', 1).executeTakeFirst();
  if (row === undefined || !/^[0-9a-f]{64}$/.test(row.secret))
    throw new Error('cursor_secret has no valid row');
  return Buffer.from(row.secret, 'hex');
}

/**
 * Opens the store on `database`, migrated, its caches listed in `caches`: the process's registry, which its
 * metrics read (none handed in: a registry of their own that no one reads). `serving` bounds each PostgreSQL
 * statement by REQUEST_WAIT_MS (the migrations run before, unbounded, on connections of their own).
 */
export async function openStore(
  database: Config['database'],
  { serving = false, caches = new CacheRegistry() }: { serving?: boolean; caches?: CacheRegistry } = {},
): Promise<Store> {
  const bounded = serving && database.engine === 'postgres';
  let engine = await openEngine(database, bounded ? new CacheRegistry() : caches);
  let migrated: string[];
  try {
    migrated = await migrate(engine);
    await engine.ready();
    if (bounded) {
      await engine.close();
      engine = await openEngine(database, caches, REQUEST_WAIT_MS);
    }
  } catch (error) {
    await engine.close();
    throw error;
  }
  const db = engine.db;
  const usage = new UsageStore(engine);
  let cursorSecret: Buffer;
  try {
    cursorSecret = await loadCursorSecret(db);
  } catch (error) {
    await engine.close();
    throw error;
  }
  const state = engine.watchState();
  const recalls = new RecallsStore(db, engine, caches);
  return {
    engine: engine.name,
    recalls,
    identifiers: new IdentifiersStore(db, engine, recalls),
    ingest: new IngestStore(db, engine, state),
    sources: new SourcesStore(db, state),
    keys: new KeysStore(db, engine, state, caches),
    usage,
    checks: new ChecksStore(db, engine, usage),
    locks: new LocksStore(db),
    report: new ReportStore(db),
    cursorSecret,
    migrated,
    readiness: () => readiness(engine),
    async corpusVersion() {
      return (await state.current()).version;
    },
    async close() {
      await state.stop();
      await engine.close();
    },
  };
}
