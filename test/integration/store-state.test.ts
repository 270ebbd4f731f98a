/**
 * Keys and the corpus version are known in memory: a repeated request reads neither, while a key revoked or
 * a corpus loaded by another process is seen — on SQLite by the next request (PRAGMA data_version, checked
 * at most every DATA_VERSION_EVERY_MS), on PostgreSQL once its notification arrives, and through the poll
 * when the notification is lost; state older than STATE_BOUND_MS is never used without a read. On the test
 * engine, and on PostgreSQL where it says so.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { generateApiKey, hashApiKey } from '../../src/domain/api-keys.ts';
import { migrate, openStore } from '../../src/store/database.ts';
import type { Engine } from '../../src/store/engine.ts';
import { LISTENER_NAME, STATE_POLL_MS } from '../../src/store/engines/postgres-watch.ts';
import { DATA_VERSION_EVERY_MS } from '../../src/store/engines/sqlite-watch.ts';
import { STATE_BOUND_MS } from '../../src/store/state-reads.ts';
import type { StoreStateWatch } from '../../src/store/store-state.ts';
import { runCli } from '../support/cli.ts';
import {
  createTestDatabase,
  databaseUrl,
  openRawEngine,
  PG_ADMIN_URL,
  sqliteOnly,
  TEST_ENGINE,
} from '../support/database.ts';
import { fdaRecord } from '../support/fda-records.ts';
import { startOpenFdaStandIn } from '../support/openfda-server.ts';
import { draft, json, startService, type TestService } from '../support/service.ts';
import { requireService } from '../support/services.ts';
import { recordStatements } from '../support/statements.ts';
import { until } from '../support/until.ts';

const LOOKUP = '/v1/identifiers/lot/4242';
const lot = { kind: 'lot' as const, value: 'Lot 4242', normalized: '4242', confidence: 'inferred' as const };

/** The env of a `recalls` command on the service's database. */
function cliEnv(s: TestService, extra: Record<string, string> = {}): Record<string, string> {
  return { DATABASE_URL: databaseUrl(s.config.database), RECALLS_ARCHIVE_DIR: `${s.dir}/archive`, ...extra };
}

/**
 * On SQLite, a change committed by another process is seen by every request that starts this long after it:
 * a fixed figure, not one derived from DATA_VERSION_EVERY_MS, so that a longer window fails the test (timers
 * may fire up to a millisecond early: 3 ms waits at least 2).
 */
const REVOKED_WITHIN_MS = 3;

/**
 * On SQLite, `check` holds for the next request starting DATA_VERSION_EVERY_MS after the change (the bound,
 * waited out); on PostgreSQL once the node has heard of it (waited for: how soon is the bound, proven below,
 * not timed here).
 */
async function seenBy(engine: 'sqlite' | 'postgres', check: () => Promise<boolean>, what: string) {
  if (engine === 'postgres') return until(check, () => what);
  await sleep(DATA_VERSION_EVERY_MS + 2); // timers may fire up to a millisecond early
  assert.ok(await check(), `${what}, by the next request`);
}

describe('keys and corpus version known in memory', () => {
  let s: TestService;
  before(async () => {
    s = await startService({ env: { RECALLS_PLAN_SCALE_REQUESTS: 'unmetered' } });
    await s.seed([draft('F-1-2024', { identifiers: [lot] })]);
  });
  after(() => s.close());

  test('a repeated lookup answered from the answer cache reads neither the key nor the corpus version', async () => {
    const key = await s.key('scale');
    const first = await s.request(LOOKUP, { key });
    assert.equal(first.status, 200);
    const recording = recordStatements(TEST_ENGINE);
    const started = performance.now();
    const etags = new Set<string | null>();
    try {
      for (let i = 0; i < 50; i++) {
        const r = await s.request(LOOKUP, { key });
        assert.equal(r.status, 200);
        etags.add(r.headers.get('etag'));
        await r.arrayBuffer();
      }
    } finally {
      recording.stop();
    }
    const elapsed = performance.now() - started;
    assert.deepEqual([...etags], [first.headers.get('etag')]);
    // Unmetered usage is written in batches off the request's path; nothing else may run.
    // (with the busy timeout each such write sets for its tries, engine.ts `withoutStall`: no page is read)
    // The PostgreSQL state listener's LISTEN is no read either: its connection may open (again) meanwhile.
    const texts = recording.texts.filter(
      (t) =>
        !/^(update|insert into) "?usage"?/i.test(t) &&
        !/^PRAGMA busy_timeout = \d+$/i.test(t) &&
        !/^LISTEN /.test(t),
    );
    const state = texts.filter((t) => /corpus_state/.test(t));
    const others = texts.filter(
      (t) => !/corpus_state/.test(t) && !/^PRAGMA (main|corpus)\.data_version$/.test(t),
    );
    assert.deepEqual(others, [], 'no statement on api_keys, recalls or identifiers');
    if (TEST_ENGINE === 'sqlite') {
      assert.equal(state.length, 0, 'nothing committed elsewhere: the state row is not read');
      assert.ok(
        texts.length <= 100,
        'at most one PRAGMA data_version of each file per request, which reads no page',
      );
    } else {
      assert.equal(texts.length, state.length);
      // Only the poll reads it, not the requests: one read per poll tick in the window, plus one for the
      // notification of the key created just before, which a loaded machine may deliver inside the window.
      assert.ok(
        state.length <= Math.floor(elapsed / STATE_POLL_MS) + 2,
        `${state.length} reads of the state`,
      );
    }
  });

  test('a key revoked by `recalls keys revoke` in another process is refused (SQLite: by the next request)', async () => {
    const key = await s.key('growth');
    assert.equal((await s.request(LOOKUP, { key })).status, 200);
    assert.equal((await s.request(LOOKUP, { key })).status, 200, 'known in memory now');
    const revoked = await runCli(['keys', 'revoke', key], cliEnv(s));
    assert.equal(revoked.code, 0, revoked.stderr);
    await seenBy(
      TEST_ENGINE,
      async () => (await s.request(LOOKUP, { key })).status === 403,
      'the revoked key to be refused',
    );
    const again = await json(await s.request(LOOKUP, { key }));
    assert.equal(again.type, '/problems/forbidden');
  });

  test(
    `SQLite: a key revoked through another connection is refused by a request ${REVOKED_WITHIN_MS} ms after the commit`,
    { skip: sqliteOnly('SQLite data_version; PostgreSQL hears of it through its listener, above') },
    async () => {
      // A second store on the same file, as `recalls keys revoke` in another process opens it (without the
      // seconds a CLI takes to start, which would outlast any window a node trusts its memory for).
      const other = await openStore(s.config.database);
      try {
        const key = await s.key('growth');
        assert.equal((await s.request(LOOKUP, { key })).status, 200);
        assert.equal((await s.request(LOOKUP, { key })).status, 200, 'known in memory now');
        assert.ok(await other.keys.revoke(key, new Date()));
        const committed = performance.now();
        await sleep(REVOKED_WITHIN_MS);
        const r = await s.request(LOOKUP, { key });
        const after = Math.round(performance.now() - committed);
        assert.equal(r.status, 403, `the revoked key was served ${after} ms after its revocation committed`);
        assert.equal((await json(r)).type, '/problems/forbidden');
      } finally {
        await other.close();
      }
    },
  );

  test('a key remembered as unknown is admitted once another connection has created it', async () => {
    const { key, id, prefix } = generateApiKey();
    assert.equal((await s.request(LOOKUP, { key })).status, 401);
    assert.equal((await s.request(LOOKUP, { key })).status, 401, 'remembered as unknown');
    const raw = openRawEngine(s.config.database);
    try {
      await raw.db
        .insertInto('api_keys')
        .values({
          id,
          prefix,
          key_hash: hashApiKey(key),
          name: null,
          plan: 'starter',
          created_at: new Date().toISOString(),
          revoked_at: null,
        })
        .execute();
    } finally {
      await raw.close();
    }
    await seenBy(TEST_ENGINE, async () => (await s.request(LOOKUP, { key })).status === 200, 'the new key');
  });

  test('a corpus loaded by `recalls ingest` in another process is served (SQLite: by the next request)', async () => {
    const key = await s.key('scale');
    const before = await s.request('/v1/recalls?include_total=true', { key });
    const total = (await json(before)).meta.total as number;
    const standIn = await startOpenFdaStandIn('/food/enforcement.json', [fdaRecord(1), fdaRecord(2)]);
    try {
      const run = await runCli(
        ['ingest', '--source', 'us-fda-food', '--force'],
        cliEnv(s, { RECALLS_SOURCE_US_FDA_FOOD_URL: standIn.url }),
      );
      assert.equal(run.code, 0, run.stderr);
    } finally {
      await standIn.close();
    }
    let now: Response | undefined;
    await seenBy(
      TEST_ENGINE,
      async () => {
        now = await s.request('/v1/recalls?include_total=true', { key });
        return now.headers.get('etag') !== before.headers.get('etag');
      },
      'a new ETag',
    );
    assert.equal((await json(now!)).meta.total, total + 2, 'and the new records');
  });
});

/** A migrated database of its own on `engine`, with two raw connections to it, for `run`. */
async function withDatabase(
  engine: 'sqlite' | 'postgres',
  run: (mine: Engine, other: Engine) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'recalls-state-'));
  const db = await createTestDatabase(dir, engine);
  const mine = openRawEngine(db.database);
  const other = openRawEngine(db.database);
  try {
    await migrate(mine);
    await mine.ready(); // as a store opens it: on SQLite the corpus tables move to the corpus file
    await run(mine, other);
  } finally {
    await other.close();
    await mine.close();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether `current()` answered from memory (a value) rather than by reading (a promise). */
const fromMemory = (watch: StoreStateWatch) => !(watch.current() instanceof Promise);

describe('how soon a change is seen, from the mechanism', () => {
  test(
    'SQLite: state is read again once another connection has committed, checked at most every DATA_VERSION_EVERY_MS',
    { skip: sqliteOnly('SQLite data_version') },
    () =>
      withDatabase('sqlite', async (engine, other) => {
        let clock = 0;
        const watch = engine.watchState(() => clock);
        const first = await watch.current();
        clock = DATA_VERSION_EVERY_MS;
        assert.ok(fromMemory(watch), 'nothing committed: from memory');
        await sql`UPDATE corpus_state SET version = version + 1`.execute(other.db);
        clock += DATA_VERSION_EVERY_MS / 2;
        assert.ok(fromMemory(watch), 'checked less than DATA_VERSION_EVERY_MS ago: not checked again');
        clock += DATA_VERSION_EVERY_MS / 2;
        const next = watch.current();
        assert.ok(next instanceof Promise, 'then checked: another connection committed, so read');
        assert.equal((await next).version, first.version + 1);
        clock += DATA_VERSION_EVERY_MS;
        assert.ok(fromMemory(watch), 'checked again: nothing new');
        watch.invalidate();
        assert.ok(!fromMemory(watch), 'a write through this store: read at once');
      }),
  );

  test(
    'SQLite: a commit to the corpus file alone, or to the service file alone, is seen',
    { skip: sqliteOnly('SQLite data_version') },
    () =>
      withDatabase('sqlite', async (engine, other) => {
        const fileOf = async (table: string) =>
          (
            await sql<{
              schema: string;
            }>`SELECT 'corpus' AS schema FROM corpus.sqlite_master WHERE name = ${table}
              UNION ALL SELECT 'main' FROM main.sqlite_master WHERE name = ${table}`.execute(other.db)
          ).rows.map((r) => r.schema);
        assert.deepEqual(await fileOf('corpus_state'), ['corpus'], 'corpus_state is in the corpus file');
        assert.deepEqual(await fileOf('keys_state'), ['main'], 'keys_state is in the service file');
        let clock = 0;
        const watch = engine.watchState(() => clock);
        const first = await watch.current();
        clock += DATA_VERSION_EVERY_MS;
        assert.ok(fromMemory(watch), 'nothing committed: from memory');
        await sql`UPDATE corpus_state SET version = version + 1`.execute(other.db);
        clock += DATA_VERSION_EVERY_MS;
        const corpus = watch.current();
        assert.ok(corpus instanceof Promise, 'the corpus file moved: read');
        assert.equal((await corpus).version, first.version + 1);
        clock += DATA_VERSION_EVERY_MS;
        assert.ok(fromMemory(watch), 'nothing new');
        await sql`UPDATE keys_state SET keys_version = keys_version + 1`.execute(other.db);
        clock += DATA_VERSION_EVERY_MS;
        const keys = watch.current();
        assert.ok(keys instanceof Promise, 'the service file moved: read');
        await keys;
      }),
  );

  test('a read of the state started before a write through this store is not shared with a use after it', () =>
    withDatabase(TEST_ENGINE, async (engine) => {
      const watch = engine.watchState();
      try {
        const before = watch.current();
        assert.ok(before instanceof Promise, 'nothing known yet: read');
        assert.equal(watch.current(), before, 'a use meanwhile shares the read in flight');
        watch.invalidate(); // a write committed through this store, which that read may not have seen
        const after = watch.current();
        assert.ok(after instanceof Promise);
        assert.notEqual(after, before, 'read again: the read in flight started before the write');
        await Promise.all([before, after]);
      } finally {
        await watch.stop();
      }
    }));

  test(
    'PostgreSQL: state no read confirmed within STATE_BOUND_MS is read again before use',
    { skip: sqliteOnly('always on PostgreSQL') },
    async (t) => {
      if (!(await requireService(t, 'PostgreSQL', PG_ADMIN_URL))) return;
      await withDatabase('postgres', async (engine) => {
        let clock = 0;
        const watch = engine.watchState(() => clock);
        try {
          await watch.current();
          clock = STATE_BOUND_MS;
          assert.ok(fromMemory(watch), 'confirmed STATE_BOUND_MS ago: from memory');
          clock = STATE_BOUND_MS + 1;
          const late = watch.current();
          assert.ok(late instanceof Promise, 'older than the bound: read before it is used');
          await late;
          assert.ok(fromMemory(watch), 'confirmed again');
        } finally {
          await watch.stop();
        }
      });
    },
  );

  test(
    'PostgreSQL: a revocation whose notification is lost is refused through the poll',
    { skip: sqliteOnly('always on PostgreSQL') },
    async (t) => {
      if (!(await requireService(t, 'PostgreSQL', PG_ADMIN_URL))) return;
      const s = await startService({ engine: 'postgres' });
      const name = new URL(databaseUrl(s.config.database)).pathname.slice(1);
      const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
      const writer = new pg.Client({ connectionString: databaseUrl(s.config.database) });
      await admin.connect();
      await writer.connect();
      const listeners = async () =>
        Number(
          (
            await admin.query(
              'SELECT count(*) n FROM pg_stat_activity WHERE datname = $1 AND application_name = $2',
              [name, LISTENER_NAME],
            )
          ).rows[0].n,
        );
      try {
        await s.seed([draft('F-1-2024', { identifiers: [lot] })]);
        const key = await s.key('growth');
        const id = (await s.store.keys.findByKey(key))!.id;
        assert.equal((await s.request(LOOKUP, { key })).status, 200);
        await until(
          async () => (await listeners()) === 1,
          () => 'the node to listen',
        );
        // The listener is cut off and cannot come back: whatever is announced now, it does not hear.
        await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
        await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2',
          [name, LISTENER_NAME],
        );
        await until(
          async () => (await listeners()) === 0,
          () => 'the listener to be gone',
        );
        await writer.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2', [
          new Date().toISOString(),
          id,
        ]);
        await until(
          async () => (await s.request(LOOKUP, { key })).status === 403,
          () => 'the poll to see it',
        );
        assert.equal(await listeners(), 0, 'refused without a notification');
        await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
        await until(
          async () => (await listeners()) === 1,
          () => 'the listener to reconnect',
        );
      } finally {
        await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => {});
        await writer.end();
        await admin.end();
        await s.close();
      }
    },
  );
});
