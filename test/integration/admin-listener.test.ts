/**
 * The admin listener of a real `recalls serve` (RECALLS_ADMIN_PORT), apart from the public API: after
 * lookups, a check, a 402, a 429 and a 404, its `/metrics` is parsed as the Prometheus text format and the
 * figures are the traffic's; each source's last run is the one the real ingest recorded; `/readyz` turns 503
 * when the database goes away and 200 when it is back, on SQLite and on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { recallId } from '../../src/domain/recall.ts';
import { openStore } from '../../src/store/database.ts';
import { corpusPathOf } from '../../src/store/engines/sqlite-files.ts';
import { runCli, serveWithAdmin } from '../support/cli.ts';
import { createTestDatabase, PG_ADMIN_URL, sqliteOnly } from '../support/database.ts';
import { parseExposition, type Exposition } from '../support/prometheus.ts';
import { requireService } from '../support/services.ts';
import { until } from '../support/until.ts';

const SAMPLES = fileURLToPath(new URL('../../samples/', import.meta.url));
const LOOKUP = '/v1/identifiers/upc/012345678905'; // a fictional sample record's barcode
const RECALL = `/v1/recalls/${recallId('us-fda-food', 'F-9901-2099')}`;

/** `recalls serve` with the admin listener on a free port, stopped when the test ends; both addresses. */
async function serveForTest(t: TestContext, env: Record<string, string>) {
  const { run, url, admin } = await serveWithAdmin(env);
  t.after(async () => {
    run.child.kill('SIGTERM');
    await run.done;
  });
  return { url, admin };
}

async function scrape(admin: string): Promise<Exposition> {
  const res = await fetch(`${admin}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parseExposition(await res.text());
}

async function status(url: string): Promise<number> {
  return (await fetch(url)).status;
}

test('/metrics shows the traffic by route and status, 402s and 429s, leases, caches and each source', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'recalls-admin-'));
  const db = await createTestDatabase(dir);
  t.after(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  const env = { DATABASE_URL: db.url, RECALLS_ARCHIVE_DIR: join(dir, 'archive') };

  // The real ingest records each source's run: one that succeeds, one whose agency answers 503.
  const ingested = await runCli(['ingest', '--from', SAMPLES], env);
  assert.equal(ingested.code, 0, ingested.stderr);
  const records = Number(/us-fda-food: ok, (\d+) records/.exec(ingested.stdout)?.[1]);
  assert.ok(records > 0, ingested.stdout);
  const agency = createServer((_req, res) => res.writeHead(503).end());
  await new Promise<void>((resolve) => agency.listen(0, '127.0.0.1', resolve));
  const failed = await runCli(['ingest', '--source', 'us-cpsc'], {
    ...env,
    RECALLS_SOURCE_US_CPSC_URL: `http://127.0.0.1:${(agency.address() as AddressInfo).port}`,
    RECALLS_UPSTREAM_RETRIES: '0',
  });
  agency.close();
  assert.equal(failed.code, 1, failed.stdout + failed.stderr);

  const store = await openStore(db.database);
  const small = (await store.keys.create('free', null, new Date())).key;
  const large = (await store.keys.create('scale', null, new Date())).key;
  await store.close();

  // The free plan: 3 requests a month, 8 a minute from one address (all of this test's come from 127.0.0.1).
  const { url, admin } = await serveForTest(t, {
    ...env,
    RECALLS_PLAN_FREE_REQUESTS: '3',
    RECALLS_PLAN_FREE_BURST: '8',
  });
  const get = (path: string, key?: string) =>
    fetch(url + path, { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } });

  for (let i = 0; i < 3; i++) assert.equal((await get(RECALL, small)).status, 200);
  assert.equal((await get(RECALL, small)).status, 402, 'the month is used up');
  for (let i = 0; i < 3; i++) assert.equal((await get(LOOKUP, large)).status, 200);
  const check = await fetch(`${url}/v1/checks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${large}`, 'content-type': 'application/json' },
    body: JSON.stringify({ identifiers: [{ kind: 'upc', value: '012345678905' }] }),
  });
  assert.equal(check.status, 201);
  // 9 keyed requests from this address: over the free plan's 8 a minute.
  assert.equal((await get(RECALL, small)).status, 429);
  assert.equal((await get('/v1/no-such-thing')).status, 404);

  const m = await scrape(admin);
  const answers = (method: string, route: string, code: string) =>
    m.value('recalls_http_request_duration_seconds_count', { method, route, status: code });
  assert.equal(answers('GET', '/v1/recalls/:id', '200'), 3, 'by the route pattern, not the URL');
  assert.equal(answers('GET', '/v1/recalls/:id', '402'), 1);
  assert.equal(answers('GET', '/v1/recalls/:id', '429'), 1);
  assert.equal(answers('GET', '/v1/identifiers/:kind/:value', '200'), 3);
  assert.equal(answers('POST', '/v1/checks', '201'), 1);
  assert.equal(answers('GET', 'unmatched', '404'), 1);
  assert.equal(m.all('recalls_http_request_duration_seconds_count').length, 6, 'no other answer was counted');
  assert.equal(m.types.get('recalls_http_request_duration_seconds'), 'histogram');
  // A histogram's buckets only grow, and the last one (+Inf) is its count.
  const buckets = m.all('recalls_http_request_duration_seconds_bucket', {
    route: '/v1/identifiers/:kind/:value',
  });
  assert.ok(buckets.length > 10);
  assert.deepEqual(
    buckets.map((b) => b.value),
    buckets.map((b) => b.value).sort((a, b) => a - b),
  );
  assert.equal(buckets.find((b) => b.labels.le === '+Inf')?.value, 3);
  assert.ok(m.value('recalls_http_request_duration_seconds_sum', { route: '/v1/checks' })! > 0);

  assert.equal(m.value('recalls_quota_exceeded_total', { plan: 'free' }), 1);
  assert.equal(m.value('recalls_rate_limited_total', { plan: 'free' }), 1);
  // The free key's month leases one request at a time near its limit of 3 (1/64 of what is left, at least
  // 1), and the fourth finds none; the scale key's first lease is a whole block of 1000.
  assert.equal(m.value('recalls_quota_leases_total', { outcome: 'granted' }), 4);
  assert.equal(m.value('recalls_quota_leases_total', { outcome: 'refused' }), 1);
  assert.equal(m.value('recalls_quota_leased_requests_total'), 3 + 1000);
  assert.equal(m.value('recalls_quota_keys'), 2);

  const cache = (name: string, cacheName: string) => m.value(name, { cache: cacheName });
  // Each URL: made once, then served from the cache twice.
  assert.equal(cache('recalls_cache_entries', 'answers'), 2);
  assert.equal(cache('recalls_cache_hits_total', 'answers'), 4);
  assert.equal(cache('recalls_cache_misses_total', 'answers'), 2);
  assert.ok(cache('recalls_cache_bytes', 'answers')! > 0);
  assert.equal(cache('recalls_cache_max_bytes', 'answers'), 16 * 1024 * 1024);
  // One entry per presented key; the 429 was refused before its key was looked up.
  assert.equal(cache('recalls_cache_entries', 'presented-keys'), 2);
  assert.equal(cache('recalls_cache_misses_total', 'presented-keys'), 2);
  assert.equal(cache('recalls_cache_hits_total', 'presented-keys'), 6);
  assert.equal(cache('recalls_cache_max_entries', 'presented-keys'), 10_000);
  // The 402 is tagged too (its tag was made by the 200s before it).
  assert.equal(cache('recalls_cache_hits_total', 'corpus-tags'), 5);
  assert.equal(cache('recalls_cache_misses_total', 'corpus-tags'), 2);
  for (const name of [
    'source-views',
    'corpus-size',
    'rule-buckets',
    'burst-exemptions',
    'prepared-statements',
  ])
    assert.notEqual(cache('recalls_cache_max_entries', name), undefined, name);

  const source = (name: string, id: string) => m.value(name, { source: id });
  assert.equal(source('recalls_source_last_run_ok', 'us-fda-food'), 1);
  assert.equal(source('recalls_source_last_run_records', 'us-fda-food'), records);
  assert.ok(source('recalls_source_last_run_duration_seconds', 'us-fda-food')! > 0);
  assert.equal(source('recalls_source_consecutive_failures', 'us-fda-food'), 0);
  const lastSuccess = source('recalls_source_last_success_timestamp_seconds', 'us-fda-food')!;
  assert.ok(Math.abs(lastSuccess - Date.now() / 1000) < 600, 'the run just made');
  assert.ok(source('recalls_source_data_as_of_timestamp_seconds', 'us-fda-food')! > 0);
  assert.equal(source('recalls_source_last_run_ok', 'us-cpsc'), 0, 'its agency answered 503');
  assert.ok(source('recalls_source_last_run_duration_seconds', 'us-cpsc')! > 0);
  assert.equal(source('recalls_source_last_run_records', 'us-cpsc'), undefined, 'it never succeeded');
  assert.equal(source('recalls_source_consecutive_failures', 'us-cpsc'), 1);
  assert.equal(source('recalls_source_healthy', 'us-cpsc'), 0);
  assert.equal(source('recalls_source_last_run_ok', 'au-accc'), undefined, 'never run');
  assert.ok(m.value('process_cpu_user_seconds_total')! > 0, "Node's process metrics too");

  // What the node answered is reported to the database within a report period; the scrape says so.
  await until(
    async () => (await scrape(admin)).value('recalls_quota_reported_requests_total') === 3 + 4,
    () => 'the 7 answered requests to be reported',
  );

  assert.equal(await status(`${admin}/livez`), 200);
  assert.deepEqual(await (await fetch(`${admin}/readyz`)).json(), { status: 'ready' });
  // The public API serves none of it.
  for (const path of ['/metrics', '/livez', '/readyz']) assert.equal(await status(url + path), 404, path);
});

test(
  '/readyz on SQLite: 503 while the file at DATABASE_URL is not the one the node has open, 200 once it is back',
  { skip: sqliteOnly('the SQLite file is moved') },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'recalls-admin-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'recalls.db');
    const { admin } = await serveForTest(t, { DATABASE_URL: path });
    const ready = () => fetch(`${admin}/readyz`);
    assert.equal((await ready()).status, 200);

    // Moved away: the node still reads the file it opened, but a command run now (a key created, an ingest)
    // would make a new, empty database at DATABASE_URL that this node never sees.
    for (const file of [path, corpusPathOf(path)]) {
      renameSync(file, `${file}.away`);
      const res = await ready();
      assert.equal(res.status, 503);
      const body = (await res.json()) as { status: string; reason: string };
      assert.equal(body.status, 'not ready');
      assert.match(body.reason, new RegExp(`${file.replace(/[.]/g, '\\.')} is gone`));
      assert.equal(await status(`${admin}/livez`), 200, 'live all the same');
      renameSync(`${file}.away`, file);
      assert.equal((await ready()).status, 200, 'back');
    }
  },
);

test(
  '/readyz on PostgreSQL: 503 while the database refuses connections, 200 once it accepts them again',
  { skip: sqliteOnly('always on PostgreSQL') },
  async (t) => {
    if (!(await requireService(t, 'PostgreSQL', PG_ADMIN_URL))) return;
    const dir = mkdtempSync(join(tmpdir(), 'recalls-admin-pg-'));
    const db = await createTestDatabase(dir, 'postgres');
    const name = new URL(db.url).pathname.slice(1);
    const superuser = new pg.Client({ connectionString: PG_ADMIN_URL });
    await superuser.connect();
    t.after(async () => {
      await superuser.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => {});
      await superuser.end();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    });
    const { admin } = await serveForTest(t, { DATABASE_URL: db.url });
    const ready = () => fetch(`${admin}/readyz`);
    assert.equal((await ready()).status, 200);

    // The database goes away for this node: it refuses new connections and ends the node's.
    await superuser.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await superuser.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [
      name,
    ]);
    let body: { status?: string; reason?: string } = {};
    await until(
      async () => {
        const res = await ready();
        body = (await res.json()) as typeof body;
        return res.status === 503;
      },
      () => `/readyz to answer 503; last ${JSON.stringify(body)}`,
    );
    assert.equal(body.status, 'not ready');
    // The first probe may meet the pooled connection being ended, later ones the refusal.
    assert.match(
      body.reason ?? '',
      /^the database does not answer: .*(?:not currently accepting connections|terminating connection)/,
    );
    assert.equal(await status(`${admin}/livez`), 200, 'live all the same');

    await superuser.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await until(
      async () => (await ready()).status === 200,
      () => '/readyz to answer 200 again',
    );
  },
);

test(
  'a bad RECALLS_ADMIN_PORT or RECALLS_ADMIN_HOST stops serve with one line naming it, status 2',
  { skip: sqliteOnly('needs no database') },
  async () => {
    for (const [env, line] of [
      [
        { RECALLS_ADMIN_PORT: 'nine' },
        /^configuration error: RECALLS_ADMIN_PORT must be a whole number, got "nine"\n$/,
      ],
      [
        { RECALLS_ADMIN_PORT: '9464', RECALLS_ADMIN_HOST: 'everywhere' },
        /^configuration error: RECALLS_ADMIN_HOST must be an IP address or "localhost", got "everywhere"\n$/,
      ],
    ] as const) {
      const result = await runCli(['serve'], { ...env, PORT: '0', DATABASE_URL: ':memory:' });
      assert.equal(result.code, 2, JSON.stringify(env));
      assert.match(result.stderr, line);
      assert.equal(result.stderr.split('\n').length, 2, 'one line');
      assert.equal(result.stdout, '');
    }
  },
);
