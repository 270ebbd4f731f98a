/**
 * Usage on an unmetered request quota is counted off the request's path (batched after the
 * answer), yet exactly: every 2xx once, 304s and errors never, identifiers still reserved with
 * the receipt, and nothing lost when the server is closed (SIGTERM) right after answering.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openStore, type Store } from '../../src/store/database.ts';
import { listeningUrl, runCli, startCli } from '../support/cli.ts';
import { createTestDatabase, sqliteOnly, type TestDatabase } from '../support/database.ts';
import { pool } from '../support/pool.ts';
import {
  draft,
  json,
  settledUsage,
  startService,
  usageReaches,
  type TestService,
} from '../support/service.ts';
import { until } from '../support/until.ts';

const month = () => new Date().toISOString().slice(0, 7);

/** A service whose scale plan is unmetered for requests and allows 5 identifiers a month. */
async function unmetered(): Promise<TestService> {
  const s = await startService({
    env: { RECALLS_PLAN_SCALE_REQUESTS: 'unmetered', RECALLS_PLAN_SCALE_IDENTIFIERS: '5' },
  });
  await s.seed([
    draft('F-1-2024', {
      identifiers: [{ kind: 'lot', value: 'Lot 4242', normalized: '4242', confidence: 'inferred' }],
    }),
  ]);
  return s;
}

/**
 * Asserts the key's usage this month: first that the recorder writes it within its interval,
 * without any further request (polled, with a deadline), then, once the server is closed (which
 * writes whatever is still pending), that nothing more was counted.
 */
async function assertUsage(s: TestService, key: string, expected: { requests: number; identifiers: number }) {
  await usageReaches(s, key, expected);
  const id = (await s.store.keys.findByKey(key))!.id;
  await s.app.close();
  assert.deepEqual(await s.store.usage.get(id, month()), expected, 'nothing more once everything is written');
}

describe('usage on an unmetered request quota', () => {
  test('counts every 2xx exactly once and nothing else, however many arrive at once', async () => {
    const s = await unmetered();
    try {
      const key = await s.key('scale');
      const first = await s.request('/v1/recalls', { key });
      const etag = first.headers.get('etag')!;
      const answers = await Promise.all([
        ...Array.from({ length: 40 }, () => s.request('/v1/recalls?limit=1', { key })),
        ...Array.from({ length: 5 }, () =>
          s.request('/v1/recalls', { key, headers: { 'if-none-match': etag } }),
        ),
        ...Array.from({ length: 5 }, () => s.request('/v1/recalls/nope', { key })),
        ...Array.from({ length: 5 }, () => s.request('/v1/recalls?bad=1', { key })),
      ]);
      const codes = answers.map((a) => a.status);
      assert.equal(codes.filter((c) => c === 200).length, 40);
      assert.equal(codes.filter((c) => c === 304).length, 5);
      await assertUsage(s, key, { requests: 41, identifiers: 0 });
    } finally {
      await s.close();
    }
  });

  test('a check of exactly one identifier is charged that one identifier', async () => {
    const s = await unmetered();
    try {
      const key = await s.key('scale');
      const one = await s.request('/v1/checks', {
        key,
        body: { identifiers: [{ kind: 'lot', value: '4242' }] },
      });
      assert.equal(one.status, 201);
      assert.match(one.headers.get('ratelimit') ?? '', /"identifiers";r=4;/, 'four of five identifiers left');
      // five more would pass the month's five: refused, the one already charged
      const five = await s.request('/v1/checks', {
        key,
        body: { identifiers: ['A1', 'A2', 'A3', 'A4', 'A5'].map((value) => ({ kind: 'lot', value })) },
      });
      assert.equal(five.status, 402);
      await assertUsage(s, key, { requests: 1, identifiers: 1 });
    } finally {
      await s.close();
    }
  });

  test('identifiers are still reserved with the receipt: the quota is never passed', async () => {
    const s = await unmetered();
    try {
      const key = await s.key('scale');
      const check = (values: string[]) =>
        s.request('/v1/checks', {
          key,
          body: { identifiers: values.map((value) => ({ kind: 'lot', value })) },
        });
      const answers = await Promise.all([
        check(['AA1', 'AA2']),
        check(['BB1', 'BB2']),
        check(['CC1', 'CC2']),
      ]);
      const codes = answers.map((a) => a.status).sort();
      assert.deepEqual(
        codes,
        [201, 201, 402],
        'two checks of two fit in five identifiers, the third does not',
      );
      await assertUsage(s, key, { requests: 2, identifiers: 4 });
    } finally {
      await s.close();
    }
  });
});

describe('what a client that disconnects is charged', () => {
  test('an answer handed to the operating system in full is charged, read or not', async () => {
    const s = await startService();
    try {
      const key = await s.key('starter');
      const url = new URL(s.url);
      // Each client sends its request and disconnects as soon as the answer starts, reading nothing more.
      for (let i = 0; i < 10; i++) {
        await new Promise<void>((resolve, reject) => {
          const socket = connect(Number(url.port), url.hostname, () =>
            socket.write(
              `GET /v1/recalls?limit=5 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`,
            ),
          );
          socket.once('data', () => {
            socket.destroy();
            resolve();
          });
          socket.on('error', reject);
        });
      }
      const usage = await settledUsage(s, key);
      assert.equal(usage.requests, 10, 'every answer written in full is used, though never read');
    } finally {
      await s.close();
    }
  });
});

/**
 * A client that goes before its answer is written: the service is held on a table lock taken from another
 * PostgreSQL connection (SQLite readers never wait), the client disconnects while its request waits, and
 * the lock is released once the server has seen the connection close.
 */
describe('a client gone before its answer', { skip: sqliteOnly('it holds a PostgreSQL table lock') }, () => {
  async function goneWhileHeld(s: TestService, request: string, table: string): Promise<void> {
    const pgUrl = (s.config.database as { url: string }).url;
    const locker = new pg.Client({ connectionString: pgUrl });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
      const url = new URL(s.url);
      const socket = connect(Number(url.port), url.hostname, () => socket.write(request));
      socket.on('error', () => {});
      const waiting = async () =>
        Number(
          (
            await locker.query(
              "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
            )
          ).rows[0].n,
        ) > 0;
      await until(waiting, () => `a query of the request waiting on ${table}`);
      socket.destroy();
      const open = () =>
        new Promise<number>((resolve, reject) =>
          s.app.server.getConnections((e, n) => (e ? reject(e) : resolve(n))),
        );
      await until(
        async () => (await open()) === 0,
        () => 'the server to see the connection closed',
      );
      await locker.query('COMMIT');
      // the request's queries go on and its answer is written to no one
      await until(
        async () => !(await waiting()),
        () => 'the request to stop waiting',
      );
    } finally {
      await locker.end();
    }
  }

  test('a GET is not charged; an answered one is', async () => {
    const s = await startService({ engine: 'postgres' });
    try {
      const key = await s.key('starter');
      await s.seed([draft('GONE-1')]);
      await goneWhileHeld(
        s,
        `GET /v1/recalls?limit=3 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`,
        'recalls',
      );
      assert.equal((await s.request('/v1/recalls?limit=2', { key })).status, 200);
      await assertUsage(s, key, { requests: 1, identifiers: 0 });
    } finally {
      await s.close();
    }
  });

  test('a check records no receipt and charges nothing', async () => {
    const s = await startService({ engine: 'postgres' });
    try {
      const key = await s.key('starter');
      const body = JSON.stringify({ identifiers: [{ kind: 'lot', value: 'GONE1' }] });
      await goneWhileHeld(
        s,
        `POST /v1/checks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        'identifiers',
      );
      const list = await s.request('/v1/checks', { key });
      assert.deepEqual((await json(list)).data, [], 'no receipt recorded');
      await assertUsage(s, key, { requests: 1, identifiers: 0 }); // the list alone
    } finally {
      await s.close();
    }
  });
});

describe('usage recorded off the request path survives a graceful stop', () => {
  let dir: string;
  let db: TestDatabase;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'recalls-usage-'));
    db = await createTestDatabase(dir);
  });
  after(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('SIGTERM right after the last answer writes every counted request', async () => {
    const env = {
      DATABASE_URL: db.url,
      RECALLS_PLAN_SCALE_REQUESTS: 'unmetered',
      RECALLS_ARCHIVE_DIR: join(dir, 'a'),
    };
    const key = (await runCli(['keys', 'create', '--plan', 'scale'], env)).stdout.trim().split('\n').pop()!;
    const node = startCli(['serve'], { ...env, PORT: '0', LOG_LEVEL: 'info' });
    const url = await listeningUrl(node);
    const answers = await Promise.all(
      Array.from({ length: 25 }, () =>
        fetch(`${url}/v1/sources`, { headers: { authorization: `Bearer ${key}` } }),
      ),
    );
    assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200]));
    node.child.kill('SIGTERM');
    assert.equal((await node.done).code, 0);
    const store = await openStore(db.database);
    try {
      const id = (await store.keys.findByKey(key))!.id;
      assert.deepEqual(await store.usage.get(id, month()), { requests: 25, identifiers: 0 });
    } finally {
      await store.close();
    }
  });
});

interface Node {
  url: string;
  run: ReturnType<typeof startCli>;
}

describe('three API processes leasing one database’s quotas', { timeout: 180_000 }, () => {
  const BLOCK = 8;
  const LIMIT = 600;
  let dir: string;
  let db: TestDatabase;
  let store: Store;
  let runs: ReturnType<typeof startCli>[] = [];
  let nodes: Node[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'recalls-leases-'));
    db = await createTestDatabase(dir);
    const env = {
      DATABASE_URL: db.url,
      RECALLS_ARCHIVE_DIR: join(dir, 'a'),
      RECALLS_BURST_EXEMPT: '127.0.0.1',
      RECALLS_PLAN_STARTER_REQUESTS: String(LIMIT),
      RECALLS_QUOTA_LEASE_BLOCK: String(BLOCK),
      // leases stay out until the node stops: the killed node still holds its own
      RECALLS_QUOTA_IDLE_RETURN_MS: '600000',
    };
    assert.equal((await runCli(['migrate'], env)).code, 0);
    store = await openStore(db.database);
    runs = [0, 1, 2].map(() => startCli(['serve'], { ...env, PORT: '0', LOG_LEVEL: 'info' }));
    nodes = await Promise.all(runs.map(async (run) => ({ url: await listeningUrl(run), run })));
  });
  after(async () => {
    for (const run of runs) run.child.kill('SIGKILL');
    await Promise.all(runs.map((run) => run.done));
    await store.close();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** GET /v1/sources with the key: its status, or 0 when the node gave no answer. */
  const get = (url: string, key: string) =>
    fetch(`${url}/v1/sources`, { headers: { authorization: `Bearer ${key}` } }).then(
      async (r) => ({
        status: r.status,
        type: r.status === 402 ? ((await r.json()) as { type: string }).type : undefined,
      }),
      () => ({ status: 0, type: undefined }),
    );

  test('admit a key exactly its quota between them, then 402, and report it all', async () => {
    const key = (await store.keys.create('starter', 'exact', new Date())).key;
    const answers = await pool(
      Array.from({ length: LIMIT + 60 }, (_, i) => () => get(nodes[i % 3]!.url, key)),
      12,
    );
    assert.equal(answers.filter((a) => a.status === 200).length, LIMIT);
    const refused = answers.filter((a) => a.status === 402);
    assert.equal(refused.length, 60);
    assert.equal(refused[0]!.type, '/problems/quota-exceeded');
    const id = (await store.keys.findByKey(key))!.id;
    const taken = await store.usage.standing(id, month());
    assert.equal(taken.used.requests + taken.leasedRequests, LIMIT, 'the whole quota is taken, no more');
    await until(
      async () => (await store.usage.get(id, month())).requests === LIMIT,
      () => 'every node to report what it answered',
    );
  });

  /** Sends to `survivors` in turn until every one refuses in the same round; the 200s they gave. */
  async function drain(survivors: Node[], key: string): Promise<number> {
    let answered = 0;
    for (let round = 0; ; round++) {
      assert.ok(round <= LIMIT, 'the survivors stop');
      const answers = [];
      for (const n of survivors) answers.push(await get(n.url, key));
      answered += answers.filter((a) => a.status === 200).length;
      assert.ok(
        answers.every((a) => a.status === 200 || a.status === 402),
        'the survivors answer everything',
      );
      if (answers.every((a) => a.status === 402)) {
        assert.equal(answers[0]!.type, '/problems/quota-exceeded');
        return answered;
      }
    }
  }

  const kill = async (victim: Node) => {
    victim.run.child.kill('SIGKILL');
    assert.equal((await victim.run.done).signal, 'SIGKILL');
    nodes = nodes.filter((n) => n !== victim);
  };

  test('SIGKILL of a node holding a lease over-counts exactly its unused units; the others stop exactly there', async () => {
    const key = (await store.keys.create('starter', 'killed idle', new Date())).key;
    const id = (await store.keys.findByKey(key))!.id;
    const victim = nodes[2]!;
    // its first admission leases min(B, ⌊600 / 64⌋) = 8; it answers 3 and holds 5 unused
    for (let i = 0; i < 3; i++) assert.equal((await get(victim.url, key)).status, 200);
    await kill(victim);
    const answered = 3 + (await drain(nodes, key));
    assert.equal(LIMIT - answered, BLOCK - 3, 'the over-count is the 5 units the killed node held unused');
    const taken = await store.usage.standing(id, month());
    assert.equal(taken.used.requests + taken.leasedRequests, LIMIT, 'the survivors took all the rest');
    await until(
      async () => (await store.usage.standing(id, month())).used.requests >= answered - 3,
      () => 'the survivors to report what they answered',
    );
    const { leasedRequests } = await store.usage.standing(id, month());
    assert.ok(
      leasedRequests >= BLOCK - 3 && leasedRequests <= BLOCK,
      `the killed node's lease stays counted: ${leasedRequests} (its answers not yet reported included)`,
    );
  });

  test('SIGKILL mid-load over-counts at most B plus the requests in flight, and never under-counts', async (t) => {
    const key = (await store.keys.create('starter', 'killed busy', new Date())).key;
    const id = (await store.keys.findByKey(key))!.id;
    const [survivor, victim] = nodes as [Node, Node];
    const WIDTH = 6;
    let killed: Promise<void> | undefined;
    const answers = await pool(
      Array.from({ length: 90 }, (_, i) => async () => {
        if (i === 45) killed = kill(victim);
        const node = i % 2 === 0 ? survivor : victim;
        return { node, ...(await get(node.url, key)) };
      }),
      WIDTH,
    );
    await killed;
    const answeredByVictim = answers.filter((a) => a.node === victim && a.status === 200).length;
    assert.ok(answeredByVictim > 0, 'the victim admitted from its lease before it was killed');
    const answered = answers.filter((a) => a.status === 200).length + (await drain([survivor], key));
    survivor.run.child.kill('SIGTERM');
    assert.equal((await survivor.run.done).code, 0);

    const overcount = LIMIT - answered;
    const { used, leasedRequests } = await store.usage.standing(id, month());
    t.diagnostic(
      `answered ${answered} (${answeredByVictim} by the killed node), over-count ${overcount}; used ${used.requests}, leased ${leasedRequests}`,
    );
    assert.ok(overcount >= 0, `never past the quota: ${answered} answered`);
    // The killed node's unused units, and its requests in flight (which got no answer), at most.
    assert.ok(overcount <= BLOCK + WIDTH, `over-count ${overcount} within B + in flight`);
    assert.equal(used.requests + leasedRequests, LIMIT, 'the survivor gave back all it held unused');
    assert.ok(used.requests <= answered, 'only answered requests are reported used');
    assert.ok(
      used.requests >= answered - answeredByVictim,
      'everything the survivor answered is reported; what the victim did not report is still leased',
    );
    assert.ok(leasedRequests >= overcount, 'the over-count is the killed node’s lease, never an under-count');
  });
});
