/**
 * Three API processes on one PostgreSQL and one Redis, under concurrent load spread across
 * them: quotas are exact, burst limits are per client across nodes, receipts written on one
 * node are read on the others, a new corpus and a revoked key are seen by every node, and a node
 * killed with SIGKILL loses no acknowledged receipt.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { openStore, type Store } from '../../src/store/database.ts';
import { listeningUrl, runCli, startCli, type CliResult } from '../support/cli.ts';
import { createTestDatabase, PG_ADMIN_URL, sqliteOnly, type TestDatabase } from '../support/database.ts';
import { fdaRecord } from '../support/fda-records.ts';
import { startOpenFdaStandIn } from '../support/openfda-server.ts';
import { pool } from '../support/pool.ts';
import { REDIS_URL, requireService } from '../support/services.ts';
import { draft } from '../support/service.ts';
import { until } from '../support/until.ts';

// The Redis database RECALLS_TEST_REDIS_DB names (0 by default), and key prefix of this run's own: runs side by
// side, and any other user of the same Redis, count apart, and nothing but this run's keys is removed.
const REDIS_DB_URL = `${REDIS_URL.replace(/\/\d*$/, '')}/${process.env.RECALLS_TEST_REDIS_DB ?? '0'}`;
const PREFIX = `recalls-test-${randomBytes(6).toString('hex')}:`;

interface Node {
  url: string;
  run: ReturnType<typeof startCli>;
}

interface Answer {
  status: number;
  body: any;
  etag: string | undefined;
  replayed: boolean;
}

/** One HTTP request from a chosen local address (127.0.0.x are all this machine). */
function call(
  url: string,
  path: string,
  options: {
    key?: string;
    method?: string;
    body?: unknown;
    from?: string;
    agent?: Agent;
    headers?: Record<string, string>;
  } = {},
): Promise<Answer> {
  const u = new URL(path, url);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: options.method ?? (payload === undefined ? 'GET' : 'POST'),
        localAddress: options.from ?? '127.0.0.1',
        agent: options.agent,
        headers: {
          ...(options.key === undefined ? {} : { authorization: `Bearer ${options.key}` }),
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: text === '' ? undefined : JSON.parse(text),
            etag: res.headers.etag,
            replayed: res.headers['idempotent-replayed'] === 'true',
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Every node process started, so that none outlives the suite (even one whose start failed). */
const started: ReturnType<typeof startCli>[] = [];

async function startNode(env: Record<string, string>): Promise<Node> {
  const run = startCli(['serve'], { ...env, PORT: '0', LOG_LEVEL: 'info' });
  started.push(run);
  const url = await listeningUrl(run);
  return { url, run };
}

describe('several API nodes on PostgreSQL and Redis', { skip: sqliteOnly('always on PostgreSQL') }, () => {
  let dir: string;
  let db: TestDatabase | undefined;
  let store: Store;
  let nodes: Node[] = [];
  let env: Record<string, string>;
  let ready = false;

  before(async (t) => {
    if (!(await requireService(t as never, 'PostgreSQL', PG_ADMIN_URL))) return;
    if (!(await requireService(t as never, 'Redis', REDIS_URL))) return;
    dir = mkdtempSync(join(tmpdir(), 'recalls-nodes-'));
    db = await createTestDatabase(dir, 'postgres');
    env = {
      DATABASE_URL: db.url,
      REDIS_URL: REDIS_DB_URL,
      RECALLS_REDIS_PREFIX: PREFIX,
      RECALLS_BURST_EXEMPT: '127.0.0.1',
      RECALLS_ARCHIVE_DIR: join(dir, 'archive'),
    };
    assert.equal((await runCli(['migrate'], env)).code, 0);
    store = await openStore(db.database);
    await store.sources.register([
      { id: 'us-fda-food', agency: 'U.S. Food and Drug Administration', jurisdiction: 'US' },
    ]);
    await store.ingest.apply({
      sourceId: 'us-fda-food',
      jurisdiction: 'US',
      drafts: [
        draft('F-1-2024', {
          identifiers: [{ kind: 'lot', value: 'Lot 4242', normalized: '4242', confidence: 'inferred' }],
        }),
      ],
      dataAsOf: '2026-06-17',
      observedAt: new Date().toISOString(),
    });
    nodes = await Promise.all([startNode(env), startNode(env), startNode(env)]);
    ready = true;
  });

  after(async () => {
    for (const run of started) run.child.kill('SIGKILL');
    await Promise.all(started.map((run) => run.done));
    await store?.close();
    await db?.drop();
    if (ready) {
      const redis = new Redis(REDIS_DB_URL);
      const keys = await redis.keys(`${PREFIX}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  test('a free key is admitted exactly 500 times in a month across three nodes, then gets 402', async (t) => {
    if (!ready) return t.skip('services not available');
    const key = (await store.keys.create('free', 'quota', new Date())).key;
    const agent = new Agent({ keepAlive: true, maxSockets: 32 });
    const answers = await pool(
      Array.from(
        { length: 620 },
        (_, i) => () => call(nodes[i % 3]!.url, '/v1/recalls?limit=1', { key, agent }),
      ),
      30,
    );
    agent.destroy();
    const ok = answers.filter((a) => a.status === 200).length;
    const refused = answers.filter((a) => a.status === 402);
    assert.equal(ok, 500);
    assert.equal(refused.length, 120);
    assert.equal(refused[0]!.body.type, '/problems/quota-exceeded');
    const id = (await store.keys.findByKey(key))!.id;
    const month = new Date().toISOString().slice(0, 7);
    const taken = await store.usage.standing(id, month);
    assert.equal(taken.used.requests + taken.leasedRequests, 500, 'the whole quota is taken in the database');
    await until(
      async () => (await store.usage.get(id, month)).requests === 500,
      () => 'every node to report what it answered',
    );
  });

  test('one client address meets its burst limit across nodes, not per node', async (t) => {
    if (!ready) return t.skip('services not available');
    const key = (await store.keys.create('free', 'burst', new Date())).key;
    const answers = await pool(
      Array.from(
        { length: 24 },
        (_, i) => () => call(nodes[i % 3]!.url, '/v1/recalls?limit=1', { key, from: '127.0.0.2' }),
      ),
      6,
    );
    assert.equal(
      answers.filter((a) => a.status === 200).length,
      10,
      'the free burst is 10 per minute in all',
    );
    const limited = answers.filter((a) => a.status === 429);
    assert.equal(limited.length, 14);
    assert.equal(limited[0]!.body.type, '/problems/rate-limited');
    const elsewhere = await call(nodes[0]!.url, '/v1/recalls?limit=1', { key, from: '127.0.0.3' });
    assert.equal(elsewhere.status, 200, 'another address has its own counter');
    // The counters live under this deployment's RECALLS_REDIS_PREFIX, so another deployment on the same
    // Redis (another prefix) counts apart.
    const redis = new Redis(REDIS_DB_URL);
    try {
      // The addresses only this test sends from: their counters are this run's, wherever they were written.
      const keys = (await redis.keys('*127.0.0.[23]*')).sort();
      assert.ok(keys.includes(`${PREFIX}burst:127.0.0.2`), keys.join(', '));
      assert.deepEqual(
        keys.filter((k) => !k.startsWith('recalls-test-')),
        [],
        'no key outside the prefix',
      );
    } finally {
      redis.disconnect();
    }
  });

  test('a receipt created on one node is read from the others', async (t) => {
    if (!ready) return t.skip('services not available');
    const key = (await store.keys.create('growth', 'receipts', new Date())).key;
    const created = await call(nodes[0]!.url, '/v1/checks', {
      key,
      body: { identifiers: [{ kind: 'lot', value: '4242' }] },
    });
    assert.equal(created.status, 201);
    for (const n of nodes.slice(1)) {
      const read = await call(n.url, `/v1/checks/${created.body.data.check_id}`, { key });
      assert.equal(read.status, 200);
      assert.deepEqual(read.body.data, created.body.data);
    }
  });

  test('one Idempotency-Key sent to every node at once records one receipt, charged once', async (t) => {
    if (!ready) return t.skip('services not available');
    const key = (await store.keys.create('free', 'idempotency', new Date())).key;
    const identifiers = Array.from({ length: 1000 }, (_, i) => ({ kind: 'lot', value: `I${i}X` }));
    const answers = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        call(nodes[i % 3]!.url, '/v1/checks', {
          key,
          body: { identifiers },
          headers: { 'idempotency-key': 'across-nodes' },
        }),
      ),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(15).fill(201),
    );
    assert.equal(new Set(answers.map((a) => a.body.data.check_id)).size, 1, 'one receipt');
    assert.equal(answers.filter((a) => a.replayed).length, 14);
    const id = (await store.keys.findByKey(key))!.id;
    const month = new Date().toISOString().slice(0, 7);
    await until(
      async () => (await store.usage.get(id, month)).requests === 1,
      () => 'the replays to be given back',
    );
    assert.deepEqual(await store.usage.get(id, month), { requests: 1, identifiers: 1000 });
  });

  test('every node sees a new corpus (and new ETags) without a restart', async (t) => {
    if (!ready) return t.skip('services not available');
    const key = (await store.keys.create('growth', 'etags', new Date())).key;
    const before = await Promise.all(
      nodes.map((n) => call(n.url, '/v1/recalls?include_total=true', { key })),
    );
    await store.ingest.apply({
      sourceId: 'us-fda-food',
      jurisdiction: 'US',
      drafts: [draft('F-1-2024'), draft('F-2-2024')],
      dataAsOf: '2026-06-24',
      observedAt: new Date().toISOString(),
    });
    // Each node hears of the commit by NOTIFY (or its poll): waited for, the bound is store-state.test.ts's.
    const afterwards: Answer[] = [];
    for (const [i, n] of nodes.entries()) {
      await until(
        async () =>
          (afterwards[i] = await call(n.url, '/v1/recalls?include_total=true', { key })).etag !==
          before[i]!.etag,
        () => `node ${i} to serve the new corpus`,
      );
    }
    for (let i = 0; i < 3; i++) {
      assert.equal(afterwards[i]!.body.meta.total, before[i]!.body.meta.total + 1);
      assert.equal(afterwards[i]!.body.meta.data_as_of, '2026-06-24');
      assert.ok(afterwards[i]!.etag !== undefined && afterwards[i]!.etag !== before[i]!.etag, 'a new ETag');
    }
    assert.equal(new Set(afterwards.map((a) => a.etag)).size, 1, 'every node gives the same ETag');
  });

  test('a key revoked by `recalls keys revoke` is refused by every node, without a restart', async (t) => {
    if (!ready) return t.skip('services not available');
    const key = (await store.keys.create('growth', 'revoked', new Date())).key;
    for (const n of nodes) {
      assert.equal((await call(n.url, '/v1/recalls?limit=1', { key })).status, 200);
      assert.equal(
        (await call(n.url, '/v1/recalls?limit=1', { key })).status,
        200,
        'the key is known in memory',
      );
    }
    const revoked = await runCli(['keys', 'revoke', key], env);
    assert.equal(revoked.code, 0, revoked.stderr);
    // Each node hears of it by NOTIFY (or its poll): waited for, the bound is store-state.test.ts's.
    for (const [i, n] of nodes.entries()) {
      let last: Answer | undefined;
      await until(
        async () => (last = await call(n.url, '/v1/recalls?limit=1', { key })).status === 403,
        () => `node ${i} to refuse the key (last ${last?.status})`,
      );
      assert.equal(last!.body.type, '/problems/forbidden');
    }
  });

  test('`recalls keys plan` reaches the quota of every node within 1 s, down and up, and usage stays exact', async (t) => {
    if (!ready) return t.skip('services not available');
    const key = (await store.keys.create('growth', 'plan change', new Date())).key;
    const id = (await store.keys.findByKey(key))!.id;
    const month = new Date().toISOString().slice(0, 7);
    const agent = new Agent({ keepAlive: true, maxSockets: 32 });
    let answered = 0;
    const spread = async (n: number) => {
      const answers = await pool(
        Array.from(
          { length: n },
          (_, i) => () => call(nodes[i % 3]!.url, '/v1/recalls?limit=1', { key, agent }),
        ),
        30,
      );
      answered += answers.filter((a) => a.status === 200).length;
      return answers;
    };
    assert.ok(
      (await spread(600)).every((a) => a.status === 200),
      'growth admits 600',
    );
    /** Each node, in turn, answers the key with `status` within 1 s; returns the last answer of each. */
    const everyNodeAnswers = async (status: number, what: string): Promise<Answer[]> => {
      const lasts: Answer[] = [];
      for (const [i, n] of nodes.entries()) {
        let last: Answer | undefined;
        await until(
          async () => {
            last = await call(n.url, '/v1/recalls?limit=1', { key, agent });
            if (last.status === 200) answered++;
            return last.status === status;
          },
          () => `node ${i} to ${what} (last ${last?.status})`,
          { timeoutMs: 1000, intervalMs: 5 },
        );
        lasts.push(last!);
      }
      return lasts;
    };
    // Down to free (500 a month): every node refuses within 1 s of the command.
    assert.equal((await runCli(['keys', 'plan', key, 'free'], env)).code, 0);
    const changed = performance.now();
    for (const refused of await everyNodeAnswers(402, 'refuse the key on the free plan'))
      assert.match(refused.body.detail, /\b500\b/);
    assert.ok(performance.now() - changed < 1000 + 500, 'all three within the bound (and one request each)');
    // Up to growth again: every node admits within 1 s.
    assert.equal((await runCli(['keys', 'plan', key, 'growth'], env)).code, 0);
    await everyNodeAnswers(200, 'admit the key on the growth plan again');
    await spread(30);
    agent.destroy();
    await until(
      async () => (await store.usage.get(id, month)).requests === answered,
      () => `usage to be exactly the ${answered} answered requests`,
    );
  });

  test('killing one node with SIGKILL mid-load loses no acknowledged receipt and the others keep answering', async (t) => {
    if (!ready) return t.skip('services not available');
    const key = (await store.keys.create('scale', 'kill', new Date())).key;
    const acknowledged: string[] = [];
    const failures: string[] = [];
    let killed = false;
    const victim = nodes[2]!;
    const tasks = Array.from({ length: 240 }, (_, i) => async () => {
      if (i === 80 && !killed) {
        killed = true;
        victim.run.child.kill('SIGKILL');
      }
      const target = killed ? nodes[i % 2]! : nodes[i % 3]!;
      try {
        const r = await call(target.url, '/v1/checks', {
          key,
          body: {
            label: `load ${i}`,
            identifiers: [
              { kind: 'lot', value: '4242' },
              { kind: 'upc', value: '012000007897' },
            ],
          },
        });
        if (r.status === 201) acknowledged.push(r.body.data.check_id);
        else failures.push(`${target === victim ? 'victim' : 'survivor'} ${r.status}`);
      } catch (error) {
        // a request in flight to the killed node has no answer: it was never acknowledged
        if (target !== victim) failures.push(`survivor error ${(error as Error).message}`);
      }
    });
    await pool(tasks, 12);
    await victim.run.done;
    assert.deepEqual(
      failures.filter((f) => f.startsWith('survivor')),
      [],
      'the surviving nodes answered everything',
    );
    assert.ok(acknowledged.length >= 150, `acknowledged ${acknowledged.length}`);
    for (const id of acknowledged) {
      const r = await call(nodes[0]!.url, `/v1/checks/${id}`, { key });
      assert.equal(r.status, 200, `receipt ${id} acknowledged but lost`);
    }
    nodes = nodes.slice(0, 2);
  });

  test('two ingest runs started at once on different nodes: one runs, the other says why', async (t) => {
    if (!ready) return t.skip('services not available');
    const standIn = await startOpenFdaStandIn('/food/enforcement.json', [
      fdaRecord(1),
      fdaRecord(2),
      fdaRecord(3),
    ]);
    // The agency holds its answers: whichever run takes the lock stays in flight until the
    // other has given up, however far apart the two processes start.
    const release = standIn.hold();
    try {
      const runEnv = { ...env, RECALLS_SOURCE_US_FDA_FOOD_URL: standIn.url };
      const runs: [Promise<CliResult>, Promise<CliResult>] = [
        runCli(['ingest', '--source', 'us-fda-food', '--force'], runEnv),
        runCli(['ingest', '--source', 'us-fda-food', '--force'], runEnv),
      ];
      await Promise.race(runs);
      release();
      const [a, b] = await Promise.all(runs);
      const codes = [a.code, b.code].sort();
      assert.deepEqual(codes, [0, 75], `${a.stdout}${a.stderr}\n${b.stdout}${b.stderr}`);
      const loser = a.code === 75 ? a : b;
      assert.match(
        loser.stderr,
        /Another ingest is running \(held by .+ since .+\); not starting a second one\./,
      );
    } finally {
      release();
      await standIn.close();
    }
  });

  test('a node stopped with SIGTERM finishes its in-flight requests, and every answered receipt is kept', async (t) => {
    if (!ready) return t.skip('services not available');
    const key = (await store.keys.create('scale', 'graceful', new Date())).key;
    const node = await startNode(env);
    const identifiers = Array.from({ length: 1000 }, (_, i) => ({ kind: 'lot', value: `G${i}X` }));
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    // open the connections first, so that the requests below are in flight on accepted sockets
    await Promise.all(Array.from({ length: 16 }, () => call(node.url, '/v1/health', { agent })));
    const pending = Array.from({ length: 16 }, () =>
      call(node.url, '/v1/checks', { key, agent, body: { identifiers } }).then(
        (r) => r,
        (e: Error) => ({ status: 0, body: e.message, etag: undefined, replayed: false }),
      ),
    );
    await new Promise((r) => setTimeout(r, 5));
    node.run.child.kill('SIGTERM');
    const answers = await Promise.all(pending);
    const exit = await node.run.done;
    agent.destroy();
    assert.equal(exit.code, 0, 'a clean exit');
    assert.deepEqual(
      answers.map((a) => a.status).filter((s) => s !== 201),
      [],
      'every in-flight request was answered',
    );
    const id = (await store.keys.findByKey(key))!.id;
    const usage = await store.usage.get(id, new Date().toISOString().slice(0, 7));
    assert.deepEqual(
      usage,
      { requests: 16, identifiers: 16_000 },
      'usage of every answered request is written',
    );
    for (const a of answers)
      assert.equal((await call(nodes[0]!.url, `/v1/checks/${a.body.data.check_id}`, { key })).status, 200);
  });
});
