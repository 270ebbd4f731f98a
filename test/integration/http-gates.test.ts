import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { draft, json, startService, usageReaches, type TestService } from '../support/service.ts';

const PROBLEM_TYPES = new Set([
  '/problems/unauthorized',
  '/problems/forbidden',
  '/problems/quota-exceeded',
  '/problems/rate-limited',
  '/problems/not-found',
  '/problems/invalid-parameter',
  '/problems/invalid-cursor',
  '/problems/internal',
]);

async function assertProblem(r: Response, status: number, type: string) {
  assert.equal(r.status, status);
  assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const p = await json(r);
  assert.equal(p.type, type);
  assert.equal(p.status, status);
  assert.equal(typeof p.title, 'string');
  assert.equal(typeof p.detail, 'string');
  assert.equal(typeof p.instance, 'string');
  return p;
}

describe('keys', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
    await s.seed([draft('F-1-2024')]);
  });
  after(() => s.close());

  test('missing or invalid keys get 401; a revoked key gets 403; Bearer and X-API-Key both work', async () => {
    const key = await s.key('starter');
    await assertProblem(await s.request('/v1/recalls'), 401, '/problems/unauthorized');
    await assertProblem(
      await s.request('/v1/recalls', { key: 'rk_live_nope' }),
      401,
      '/problems/unauthorized',
    );
    await assertProblem(
      await s.request('/v1/recalls', { headers: { authorization: `Basic ${key}` } }),
      401,
      '/problems/unauthorized',
    );
    assert.equal((await s.request('/v1/recalls', { key })).status, 200);
    assert.equal((await s.request('/v1/recalls', { headers: { 'x-api-key': key } })).status, 200);
    await s.store.keys.revoke(key, new Date());
    await assertProblem(await s.request('/v1/recalls', { key }), 403, '/problems/forbidden');
    await assertProblem(
      await s.request('/v1/checks', { key, body: { identifiers: [{ kind: 'lot', value: 'AB' }] } }),
      403,
      '/problems/forbidden',
    );
  });

  test('/v1/sources is served without a key, refuses an invalid (401) or revoked (403) one', async () => {
    const r = await s.request('/v1/sources');
    assert.equal(r.status, 200);
    const body = await json(r);
    const food = body.data.find((x: { id: string }) => x.id === 'us-fda-food');
    assert.equal(food.agency, 'U.S. Food and Drug Administration');
    assert.equal(typeof food.licence.attribution, 'string');
    assert.equal(food.enabled, true);
    assert.equal(body.meta.count, body.data.length);
    assert.equal(body.meta.limit, undefined);
    assert.equal(body.meta.next_cursor, undefined);
    assert.ok(body.meta.attribution.includes(food.licence.attribution));
    const key = await s.key();
    assert.equal((await s.request('/v1/sources', { key })).status, 200);
    await assertProblem(
      await s.request('/v1/sources', { key: 'rk_live_bad' }),
      401,
      '/problems/unauthorized',
    );
    await s.store.keys.revoke(key, new Date());
    await assertProblem(await s.request('/v1/sources', { key }), 403, '/problems/forbidden');
    await assertProblem(await s.request('/v1/sources?x=1'), 400, '/problems/invalid-parameter');
  });

  test('/v1/health and /v1/openapi.json need no key', async () => {
    const h = await s.request('/v1/health');
    assert.equal(h.status, 200);
    const health = await json(h);
    assert.deepEqual(Object.keys(health).sort(), ['degraded', 'sources', 'status']);
    assert.equal((await s.request('/v1/openapi.json')).status, 200);
    await assertProblem(await s.request('/v1/health?verbose=1'), 400, '/problems/invalid-parameter');
  });
});

describe('monthly quota', () => {
  let s: TestService;
  before(async () => {
    s = await startService({ env: { RECALLS_PLAN_FREE_REQUESTS: '3', RECALLS_PLAN_FREE_IDENTIFIERS: '5' } });
    await s.seed([draft('F-1-2024')]);
  });
  after(() => s.close());

  test('counts only 2xx answers and refuses with 402 past the quota', async () => {
    const key = await s.key('free');
    const ok = await s.request('/v1/recalls', { key });
    const etag = ok.headers.get('etag')!;
    assert.equal((await s.request('/v1/recalls', { key, headers: { 'if-none-match': etag } })).status, 304);
    assert.equal((await s.request('/v1/recalls?bad=1', { key })).status, 400);
    assert.equal((await s.request('/v1/recalls/nope', { key })).status, 404);
    // the 404's reservation is given back once it has been answered
    await usageReaches(s, key, { requests: 1, identifiers: 0 });
    assert.equal((await s.request('/v1/recalls', { key })).status, 200);
    assert.equal((await s.request('/v1/recalls', { key })).status, 200);
    const p = await assertProblem(await s.request('/v1/recalls', { key }), 402, '/problems/quota-exceeded');
    assert.match(p.detail, /free/);
    // gate order: the key is checked before parameters, parameters before the quota
    await assertProblem(await s.request('/v1/recalls?bad=1'), 401, '/problems/unauthorized');
    await assertProblem(await s.request('/v1/recalls?bad=1', { key }), 400, '/problems/invalid-parameter');
    const other = await s.key('free');
    assert.equal((await s.request('/v1/recalls', { key: other })).status, 200, 'quotas are per key');
  });

  test('a check that would pass the identifier quota gets 402 and records nothing', async () => {
    const key = await s.key('free');
    const four = { identifiers: ['AA1', 'AA2', 'AA3', 'AA4'].map((v) => ({ kind: 'lot', value: v })) };
    assert.equal((await s.request('/v1/checks', { key, body: four })).status, 201);
    await assertProblem(
      await s.request('/v1/checks', {
        key,
        body: {
          identifiers: [
            { kind: 'lot', value: 'B1B' },
            { kind: 'lot', value: 'B2B' },
          ],
        },
      }),
      402,
      '/problems/quota-exceeded',
    );
    // the refused check's request reservation is given back once it has been answered
    await usageReaches(s, key, { requests: 1, identifiers: 4 });
    const list = await json(await s.request('/v1/checks', { key }));
    assert.equal(list.data.length, 1);
  });

  test('a check that lands exactly on the identifier quota is admitted; one identifier more is not', async () => {
    const key = await s.key('free');
    const lots = (...values: string[]) => ({ identifiers: values.map((value) => ({ kind: 'lot', value })) });
    assert.equal((await s.request('/v1/checks', { key, body: lots('CC1', 'CC2', 'CC3') })).status, 201);
    const exact = await s.request('/v1/checks', { key, body: lots('DD1', 'DD2') });
    assert.equal(exact.status, 201, '3 + 2 identifiers is exactly the quota of 5');
    assert.equal((await json(exact)).data.submitted_count, 2);
    const p = await assertProblem(
      await s.request('/v1/checks', { key, body: lots('EE1') }),
      402,
      '/problems/quota-exceeded',
    );
    assert.match(p.detail, /identifiers/);
    await usageReaches(s, key, { requests: 2, identifiers: 5 });
    // one identifier past the quota in a single check, on a fresh key
    const other = await s.key('free');
    await assertProblem(
      await s.request('/v1/checks', { key: other, body: lots('FF1', 'FF2', 'FF3', 'FF4', 'FF5', 'FF6') }),
      402,
      '/problems/quota-exceeded',
    );
    assert.equal(
      (await s.request('/v1/checks', { key: other, body: lots('FF1', 'FF2', 'FF3', 'FF4', 'FF5') })).status,
      201,
    );
  });

  test('a conditional GET gets the quota problem, not 304, once the request quota is spent', async () => {
    const key = await s.key('free');
    const first = await s.request('/v1/recalls', { key });
    assert.equal(first.status, 200);
    const conditional = { key, headers: { 'if-none-match': first.headers.get('etag')! } };
    assert.equal((await s.request('/v1/recalls', conditional)).status, 304, 'within the quota');
    assert.equal((await s.request('/v1/recalls', { key })).status, 200);
    assert.equal((await s.request('/v1/recalls', { key })).status, 200);
    await usageReaches(s, key, { requests: 3, identifiers: 0 });
    const spent = await s.request('/v1/recalls', conditional);
    await assertProblem(spent, 402, '/problems/quota-exceeded');
  });

  test('concurrent requests never pass the quota', async () => {
    const key = await s.key('free');
    const answers = await Promise.all(Array.from({ length: 12 }, () => s.request('/v1/recalls', { key })));
    assert.equal(answers.filter((r) => r.status === 200).length, 3);
    assert.equal(answers.filter((r) => r.status === 402).length, 9);
  });
});

describe('burst limit', () => {
  test('refuses past the plan burst with 429, Retry-After and RateLimit headers, per client address', async () => {
    const s = await startService({
      env: { RECALLS_PLAN_FREE_BURST: '3', RECALLS_PLAN_STARTER_BURST: '5', RECALLS_BURST_EXEMPT: '' },
    });
    try {
      const free = await s.key('free');
      const r1 = await s.request('/v1/recalls', { key: free });
      assert.equal(r1.headers.get('ratelimit-policy'), '"burst";q=3;w=60, "month";q=500');
      assert.match(r1.headers.get('ratelimit') ?? '', /^"burst";r=2;t=\d+, "month";r=499;t=\d+$/);
      await s.request('/v1/recalls', { key: free });
      await s.request('/v1/recalls', { key: free });
      const limited = await s.request('/v1/recalls', { key: free });
      const p = await assertProblem(limited, 429, '/problems/rate-limited');
      assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
      assert.ok(
        Number(limited.headers.get('retry-after')) >= 1 && Number(limited.headers.get('retry-after')) <= 60,
      );
      assert.match(p.detail, /3 requests per minute/);
      // the counter is per address: a starter key from the same address is measured on the same counter
      const starter = await s.key('starter');
      assert.equal(
        (await s.request('/v1/recalls', { key: starter })).status,
        200,
        '5th request, starter allows 5',
      );
      await assertProblem(await s.request('/v1/recalls', { key: starter }), 429, '/problems/rate-limited');
      // no key at all: the free rate, and the burst gate comes before the key gate
      await assertProblem(await s.request('/v1/recalls'), 429, '/problems/rate-limited');
      // health, OpenAPI and docs are never limited
      for (let i = 0; i < 5; i++) assert.equal((await s.request('/v1/health')).status, 200);
      assert.equal((await s.request('/v1/openapi.json')).status, 200);
    } finally {
      await s.close();
    }
  });

  test("the month's quota is a second RateLimit policy, counting down to 0 with the 402", async () => {
    const s = await startService({
      env: { RECALLS_PLAN_FREE_REQUESTS: '4', RECALLS_BURST_EXEMPT: '127.0.0.1,::1' },
    });
    try {
      const key = await s.key('free');
      const now = new Date();
      const toNextMonth = (Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()) / 1000;
      for (const left of [3, 2, 1, 0]) {
        const r = await s.request('/v1/recalls?limit=1', { key });
        assert.equal(r.status, 200);
        assert.equal(
          r.headers.get('ratelimit-policy'),
          '"month";q=4',
          'no burst policy for an exempt address',
        );
        const m = /^"month";r=(\d+);t=(\d+)$/.exec(r.headers.get('ratelimit') ?? '');
        assert.ok(m, r.headers.get('ratelimit') ?? 'no RateLimit');
        assert.equal(Number(m[1]), left);
        assert.ok(Math.abs(Number(m[2]) - toNextMonth) < 60, `t=${m[2]} is the time to the next month`);
        await r.arrayBuffer();
      }
      const refused = await s.request('/v1/recalls?limit=1', { key });
      await assertProblem(refused, 402, '/problems/quota-exceeded');
      assert.match(refused.headers.get('ratelimit') ?? '', /^"month";r=0;t=\d+$/);
      // Unmetered: no monthly policy.
      const scale = await startService({ env: { RECALLS_PLAN_SCALE_REQUESTS: 'unmetered' } });
      try {
        const r = await scale.request('/v1/recalls?limit=1', { key: await scale.key('scale') });
        assert.equal(r.headers.get('ratelimit-policy'), null);
        await r.arrayBuffer();
      } finally {
        await scale.close();
      }
    } finally {
      await s.close();
    }
  });

  test("a check's answer carries the month's identifiers as a third RateLimit policy, 0 left with its 402", async () => {
    const s = await startService({
      env: { RECALLS_PLAN_FREE_IDENTIFIERS: '5', RECALLS_BURST_EXEMPT: '127.0.0.1,::1' },
    });
    try {
      const key = await s.key('free');
      const check = (values: string[], headers: Record<string, string> = {}) =>
        s.request('/v1/checks', {
          key,
          method: 'POST',
          headers,
          body: { identifiers: values.map((value) => ({ kind: 'lot', value })) },
        });
      const first = await check(['A1', 'A2', 'A3'], { 'idempotency-key': 'once' });
      assert.equal(first.status, 201);
      assert.equal(first.headers.get('ratelimit-policy'), '"month";q=500, "identifiers";q=5');
      assert.match(first.headers.get('ratelimit') ?? '', /^"month";r=499;t=\d+, "identifiers";r=2;t=\d+$/);
      await first.arrayBuffer();
      // A replay is not charged again: still 2 left.
      const replayed = await check(['A1', 'A2', 'A3'], { 'idempotency-key': 'once' });
      assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
      assert.match(replayed.headers.get('ratelimit') ?? '', /, "identifiers";r=2;t=\d+$/);
      await replayed.arrayBuffer();
      // Three more would exceed the 5: refused, nothing charged, the policy still told.
      const refused = await check(['B1', 'B2', 'B3']);
      await assertProblem(refused, 402, '/problems/quota-exceeded');
      assert.match(refused.headers.get('ratelimit') ?? '', /, "identifiers";r=2;t=\d+$/);
      const last = await check(['B1', 'B2']);
      assert.equal(last.status, 201);
      assert.match(last.headers.get('ratelimit') ?? '', /, "identifiers";r=0;t=\d+$/);
      await last.arrayBuffer();
      // Lookups carry no identifiers policy.
      const lookup = await s.request('/v1/recalls?limit=1', { key });
      assert.equal(lookup.headers.get('ratelimit-policy'), '"month";q=500');
      await lookup.arrayBuffer();
      // Unmetered identifiers: no identifiers policy on a check.
      const scale = await startService({ env: { RECALLS_PLAN_SCALE_IDENTIFIERS: 'unmetered' } });
      try {
        const r = await scale.request('/v1/checks', {
          key: await scale.key('scale'),
          method: 'POST',
          body: { identifiers: [{ kind: 'lot', value: 'C1' }] },
        });
        assert.equal(r.status, 201);
        assert.doesNotMatch(r.headers.get('ratelimit-policy') ?? '', /identifiers/);
        await r.arrayBuffer();
      } finally {
        await scale.close();
      }
    } finally {
      await s.close();
    }
  });

  test('RECALLS_BURST_EXEMPT addresses are not limited, but quotas still apply', async () => {
    const s = await startService({
      env: {
        RECALLS_PLAN_FREE_BURST: '2',
        RECALLS_PLAN_FREE_REQUESTS: '6',
        RECALLS_BURST_EXEMPT: '10.0.0.0/8,127.0.0.0/8',
      },
    });
    try {
      const free = await s.key('free');
      const codes = [];
      for (let i = 0; i < 8; i++) codes.push((await s.request('/v1/recalls', { key: free })).status);
      assert.deepEqual(codes, [200, 200, 200, 200, 200, 200, 402, 402]);
    } finally {
      await s.close();
    }
  });
});

describe('malformed input never gives a 5xx', () => {
  let s: TestService;
  let key: string;
  before(async () => {
    s = await startService();
    key = await s.key();
    await s.seed([draft('F-1-2024')]);
  });
  after(() => s.close());

  const paths = [
    '/v1/recalls',
    '/v1/recalls/us-fda-food.F-1-2024',
    '/v1/recalls/us-fda-food.F-1-2024/revisions',
    '/v1/identifiers/upc/012000007897',
    '/v1/checks',
    '/v1/checks/chk_x',
    '/v1/sources',
    '/v1/health',
  ];

  test('unknown paths and wrong methods are 404 problems, with or without a key', async () => {
    await assertProblem(await s.request('/v2/recalls'), 404, '/problems/not-found');
    // The root, where a newcomer looks first, points to the reference and the OpenAPI document.
    const root = await assertProblem(await s.request('/'), 404, '/problems/not-found');
    assert.match(String(root.detail), /reference is at \/docs, its OpenAPI document at \/v1\/openapi\.json/);
    await assertProblem(await s.request('/v1/recalls/a/b/c', { key }), 404, '/problems/not-found');
    await assertProblem(
      await s.request('/v1/recalls', { key, method: 'DELETE' }),
      404,
      '/problems/not-found',
    );
    await assertProblem(
      await s.request('/v1/health', { method: 'POST', body: {} }),
      404,
      '/problems/not-found',
    );
  });

  test('garbage to every endpoint is answered with a documented problem', async () => {
    const garbage: { path: string; init: Parameters<TestService['request']>[1] }[] = [];
    for (const p of paths) {
      garbage.push({ path: `${p}?%zz=1`, init: { key } });
      garbage.push({ path: `${p}?limit=${'9'.repeat(400)}`, init: { key } });
      garbage.push({ path: `${p}?cursor=${'%FF%FE'.repeat(20)}`, init: { key } });
      garbage.push({ path: `${p}?\u00e9=\u{1F600}`, init: { key } });
      garbage.push({
        path: p,
        init: {
          key,
          method: 'POST',
          rawBody: '\u0000\u0001{{',
          headers: { 'content-type': 'application/json' },
        },
      });
      garbage.push({
        path: p,
        init: {
          key,
          method: 'POST',
          rawBody: 'a=b',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        },
      });
      garbage.push({
        path: p,
        init: {
          key,
          method: 'POST',
          rawBody: 'x'.repeat(2 * 1024 * 1024),
          headers: { 'content-type': 'application/json' },
        },
      });
      garbage.push({
        path: p,
        init: {
          key,
          method: 'POST',
          rawBody: '{"identifiers":[{"kind":"upc","value":"\uD800"}]}',
          headers: { 'content-type': 'application/json; charset=latin1' },
        },
      });
    }
    garbage.push({ path: `/v1/identifiers/upc/${'1'.repeat(3000)}`, init: { key } });
    garbage.push({ path: `/v1/identifiers/upc/%E0%A4%A`, init: { key } });
    garbage.push({ path: `/v1/identifiers/${'%00'.repeat(10)}/x`, init: { key } });
    garbage.push({ path: `/v1/recalls/${'a'.repeat(6000)}`, init: { key } });
    garbage.push({ path: `/v1/checks/${'%F0%9F%98%80'.repeat(50)}`, init: { key } });
    garbage.push({
      path: '/v1/checks',
      init: {
        key,
        rawBody: JSON.stringify({ identifiers: [{ kind: 'upc', value: 'x'.repeat(100_000) }] }),
        headers: { 'content-type': 'application/json' },
      },
    });
    for (const g of garbage) {
      const r = await s.request(g.path, g.init);
      assert.ok(r.status < 500, `${g.init?.method ?? 'GET'} ${g.path.slice(0, 80)} gave ${r.status}`);
      if (r.status >= 400) {
        assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/, g.path.slice(0, 80));
        const p = await json(r);
        assert.ok(PROBLEM_TYPES.has(p.type), p.type);
        assert.equal(p.status, r.status);
      } else {
        await r.arrayBuffer();
      }
    }
  });

  test('a request line longer than the server accepts is still a problem document', async () => {
    const url = new URL(s.url);
    const status = await new Promise<{ code: number; type: string; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: `/v1/recalls/${'a'.repeat(40_000)}`,
          headers: { authorization: `Bearer ${key}` },
        },
        (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () =>
            resolve({ code: res.statusCode ?? 0, type: res.headers['content-type'] ?? '', body }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.ok(status.code >= 400 && status.code < 500, String(status.code));
    assert.match(status.type, /problem\+json/);
    assert.ok(PROBLEM_TYPES.has(JSON.parse(status.body).type));
  });

  test('a broken HTTP request on the socket gets a problem document, not a crash', async () => {
    const url = new URL(s.url);
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(url.port), url.hostname, () =>
        socket.write('GARBAGE /v1/health HTTP/9.9\r\n\r\n'),
      );
      let data = '';
      socket.on('data', (c) => (data += c));
      socket.on('end', () => resolve(data));
      socket.on('error', () => resolve(data));
    });
    assert.match(answer, /^HTTP\/1\.1 400/);
    assert.match(answer, /problem\+json/);
    assert.equal((await s.request('/v1/health')).status, 200, 'the server still answers');
  });

  test('an unexpected failure is a 500 problem naming a request id, without internals', async () => {
    const t = await startService();
    const k = await t.key();
    await t.store.close();
    const r = await t.request('/v1/recalls', { key: k });
    const p = await assertProblem(r, 500, '/problems/internal');
    assert.match(p.detail, /req_[A-Za-z0-9]{16}/);
    assert.doesNotMatch(JSON.stringify(p), /sqlite|kysely|stack|at \//i);
    await t.close();
  });
});

/** Sends raw bytes on a socket and resolves with everything read until the server closes it. */
function rawExchange(base: string, bytes: string): Promise<string> {
  const url = new URL(base);
  return new Promise<string>((resolve) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
    let data = '';
    socket.on('data', (c) => (data += c));
    socket.on('end', () => resolve(data));
    socket.on('error', () => resolve(data));
  });
}

/** The problem document in a raw HTTP answer. */
function rawProblem(answer: string): Record<string, unknown> {
  assert.match(answer, /content-type: application\/problem\+json/i);
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
}

describe('caching headers and conditional requests', () => {
  let s: TestService;
  let key: string;
  before(async () => {
    s = await startService();
    key = await s.key();
    await s.seed([draft('F-1-2024')]);
  });
  after(() => s.close());

  test('keyed answers are private and vary by key; public ones are left as they were', async () => {
    const ok = await s.request('/v1/recalls', { key });
    assert.equal(ok.headers.get('cache-control'), 'private, no-cache');
    assert.equal(ok.headers.get('vary'), 'Authorization, X-API-Key');
    const notModified = await s.request('/v1/recalls', {
      key,
      headers: { 'if-none-match': ok.headers.get('etag')! },
    });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.headers.get('cache-control'), 'private, no-cache');
    for (const r of [
      await s.request('/v1/recalls/nope', { key }),
      await s.request('/v1/recalls'),
      await s.request('/v1/checks', { key, body: { identifiers: [{ kind: 'lot', value: 'AB' }] } }),
      await s.request('/v1/sources'),
    ]) {
      await r.arrayBuffer();
      assert.match(r.headers.get('cache-control') ?? '', /^private/, String(r.status));
      assert.equal(r.headers.get('vary'), 'Authorization, X-API-Key', String(r.status));
    }
    const health = await s.request('/v1/health');
    await health.arrayBuffer();
    assert.equal(health.headers.get('vary'), null);
    assert.equal(health.headers.get('cache-control'), null);
  });

  test('If-None-Match never turns a missing resource or an invalid request into 304', async () => {
    const version = await s.store.corpusVersion();
    // the tag the server would give, computed offline
    const offline = (url: string) =>
      `W/"${createHash('sha256').update([version, '', url].join('\u0000')).digest('base64url').slice(0, 22)}"`;
    for (const url of ['/v1/recalls/nope', '/v1/recalls/nope/revisions', '/v1/recalls?from=2024-13-45']) {
      for (const tag of ['*', offline(url)]) {
        const r = await s.request(url, { key, headers: { 'if-none-match': tag } });
        assert.ok(r.status === 404 || r.status === 400, `${url} with ${tag} gave ${r.status}`);
        assert.equal(r.headers.get('etag'), null);
        await r.arrayBuffer();
      }
    }
    const receipt = await s.request('/v1/checks/chk_nope', { key, headers: { 'if-none-match': '*' } });
    assert.equal(receipt.status, 404);
    // an existing resource: `*` matches any current representation
    const exists = await s.request('/v1/recalls/us-fda-food.F-1-2024', {
      key,
      headers: { 'if-none-match': '*' },
    });
    assert.equal(exists.status, 304);
  });

  test('each query string of a path has its own tag: a 304 for one is never given on another', async () => {
    // Corpus tags (a list, a lookup) and corpus-and-receipts tags (a key's receipts); each pair is one path.
    for (const [a, b] of [
      ['/v1/recalls?limit=1', '/v1/recalls?limit=2'],
      ['/v1/identifiers/lot/AB12?limit=1', '/v1/identifiers/lot/AB12?limit=2'],
      ['/v1/checks?limit=1', '/v1/checks?limit=2'],
    ] as const) {
      const first = await s.request(a, { key });
      assert.equal(first.status, 200, a);
      await first.arrayBuffer();
      const tagA = first.headers.get('etag')!;
      const other = await s.request(b, { key, headers: { 'if-none-match': tagA } });
      assert.equal(other.status, 200, `${b} sent the tag of ${a}`);
      await other.arrayBuffer();
      const tagB = other.headers.get('etag')!;
      assert.notEqual(tagB, tagA, `${a} and ${b} have one tag`);
      for (const [url, own, foreign] of [
        [a, tagA, tagB],
        [b, tagB, tagA],
      ] as const) {
        const crossed = await s.request(url, { key, headers: { 'if-none-match': foreign } });
        assert.equal(crossed.status, 200, `${url} sent the other query string's tag`);
        assert.equal(crossed.headers.get('etag'), own);
        await crossed.arrayBuffer();
        assert.equal((await s.request(url, { key, headers: { 'if-none-match': own } })).status, 304, url);
      }
    }
    // A query string the handler refuses, sent the tag of one answered 200 at this version, or its own tag
    // (computed as the server would), is still refused: "answered" belongs to a URL, not to its path.
    const version = await s.store.corpusVersion();
    const offline = (url: string) =>
      `W/"${createHash('sha256').update([version, '', url].join('\u0000')).digest('base64url').slice(0, 22)}"`;
    const answered = await s.request('/v1/recalls', { key });
    await answered.arrayBuffer();
    const refused = '/v1/recalls?cursor=not-a-cursor';
    for (const tag of [answered.headers.get('etag')!, offline(refused)]) {
      const r = await s.request(refused, { key, headers: { 'if-none-match': tag } });
      assert.equal(r.status, 400, `${refused} sent ${tag}`);
      assert.equal((await json(r)).type, '/problems/invalid-cursor');
    }
  });

  test('HEAD behaves as GET without a body: the same ETag, 304 on a match', async () => {
    for (const path of ['/v1/recalls', '/v1/recalls/us-fda-food.F-1-2024', '/v1/sources', '/v1/health']) {
      const get = await s.request(path, { key });
      await get.arrayBuffer();
      const head = await s.request(path, { key, method: 'HEAD' });
      assert.equal(head.status, 200, path);
      assert.equal(head.headers.get('etag'), get.headers.get('etag'), path);
      assert.equal(head.headers.get('cache-control'), get.headers.get('cache-control'), path);
      const conditional = await s.request(path, {
        key,
        method: 'HEAD',
        headers: { 'if-none-match': get.headers.get('etag')! },
      });
      assert.equal(conditional.status, 304, path);
    }
  });
});

describe('a 304 only for what would be answered 200, without the answer cache', () => {
  test('the handler decides: a 200 becomes 304 and is not counted, a 404 stays 404', async () => {
    const s = await startService({ env: { RECALLS_ANSWER_CACHE_MB: '0', RECALLS_PLAN_FREE_REQUESTS: '2' } });
    try {
      await s.seed([draft('F-1-2024')]);
      const key = await s.key('free');
      const first = await s.request('/v1/recalls', { key });
      assert.equal(first.status, 200);
      const conditional = { key, headers: { 'if-none-match': first.headers.get('etag')! } };
      for (let i = 0; i < 3; i++) assert.equal((await s.request('/v1/recalls', conditional)).status, 304);
      assert.equal(
        (await s.request('/v1/recalls/nope', { key, headers: { 'if-none-match': '*' } })).status,
        404,
      );
      await usageReaches(s, key, { requests: 1, identifiers: 0 });
      assert.equal((await s.request('/v1/recalls', { key })).status, 200);
      await usageReaches(s, key, { requests: 2, identifiers: 0 });
      await assertProblem(await s.request('/v1/recalls', conditional), 402, '/problems/quota-exceeded');
    } finally {
      await s.close();
    }
  });
});

describe('integer query parameters', () => {
  let s: TestService;
  let key: string;
  before(async () => {
    s = await startService();
    key = await s.key();
    await s.seed([draft('F-1-2024')]);
  });
  after(() => s.close());

  test('only decimal digits within the documented range are a limit', async () => {
    const paths = [
      '/v1/recalls',
      '/v1/recalls/us-fda-food.F-1-2024/revisions',
      '/v1/identifiers/lot/AB12',
      '/v1/checks',
    ];
    for (const path of paths) {
      for (const bad of ['0x10', '0b11', '1e1', '%2B5', '%205', '2.0', '', '-1', '0', '201', '5%20']) {
        const p = await assertProblem(
          await s.request(`${path}?limit=${bad}`, { key }),
          400,
          '/problems/invalid-parameter',
        );
        assert.equal(p.parameter, 'limit', `${path}?limit=${bad}`);
      }
      for (const good of ['1', '5', '007', '200']) {
        const r = await s.request(`${path}?limit=${good}`, { key });
        assert.equal(r.status, 200, `${path}?limit=${good}`);
        assert.equal((await json(r)).meta.limit, Number(good));
      }
    }
  });
});

describe('protocol errors are problem documents', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  test('a missing Host is a 400 problem naming it', async () => {
    const answer = await rawExchange(s.url, 'GET /v1/health HTTP/1.1\r\nConnection: close\r\n\r\n');
    assert.match(answer, /^HTTP\/1\.1 400/);
    const p = rawProblem(answer);
    assert.equal(p.type, '/problems/invalid-parameter');
    assert.equal(p.parameter, 'Host');
    assert.equal(p.instance, '/v1/health');
    assert.match(answer, /\r\nx-request-id: req_[0-9A-Za-z]{16}\r\n/i);
  });

  test('an expectation other than 100-continue is a 400 problem naming Expect', async () => {
    const answer = await rawExchange(
      s.url,
      'GET /v1/health HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nConnection: close\r\n\r\n',
    );
    assert.match(answer, /^HTTP\/1\.1 400/);
    const p = rawProblem(answer);
    assert.equal(p.type, '/problems/invalid-parameter');
    assert.equal(p.parameter, 'Expect');
    assert.equal(p.instance, '/v1/health');
    assert.equal(typeof p.title, 'string');
    assert.equal(typeof p.detail, 'string');
    assert.match(answer, /\r\nx-request-id: req_[0-9A-Za-z]{16}\r\n/i);
    const kept = await rawExchange(
      s.url,
      'GET /v1/health HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nX-Request-Id: mine-1\r\nConnection: close\r\n\r\n',
    );
    assert.match(kept, /\r\nx-request-id: mine-1\r\n/i);
  });

  test("the parser's 400 names the request path as its instance when it can be read", async () => {
    const answer = await rawExchange(s.url, 'GARBAGE /v1/health HTTP/9.9\r\n\r\n');
    const p = rawProblem(answer);
    assert.equal(p.status, 400);
    assert.equal(p.instance, '/v1/health');
    assert.equal(typeof p.title, 'string');
    assert.match(answer, /\r\nx-request-id: req_[0-9A-Za-z]{16}\r\n/i, 'its own request id');
  });
});

describe('request timeout', () => {
  test('a body that trickles in is cut off once the request timeout has passed', async () => {
    const s = await startService({ env: { RECALLS_REQUEST_TIMEOUT_MS: '1000' } });
    try {
      const key = await s.key();
      const url = new URL(s.url);
      const started = Date.now();
      const closed = await new Promise<boolean>((resolve) => {
        const socket = connect(Number(url.port), url.hostname, () => {
          socket.write(
            `POST /v1/checks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
              'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
          );
        });
        const trickle = setInterval(() => socket.writable && socket.write(' '), 100);
        const giveUp = setTimeout(() => {
          clearInterval(trickle);
          socket.destroy();
          resolve(false);
        }, 8000);
        socket.on('close', () => {
          clearInterval(trickle);
          clearTimeout(giveUp);
          resolve(true);
        });
        socket.on('error', () => {});
      });
      assert.ok(closed, 'the server closed the connection');
      assert.ok(Date.now() - started < 4000, `closed after ${Date.now() - started} ms`);
      assert.equal((await s.request('/v1/health')).status, 200, 'the server still answers');
      // headers that trickle are cut off too (at 10 s, or the request timeout when shorter)
      const headersStarted = Date.now();
      const headersClosed = await new Promise<boolean>((resolve) => {
        const socket = connect(Number(url.port), url.hostname, () =>
          socket.write('GET /v1/health HTTP/1.1\r\n'),
        );
        const trickle = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 100);
        const giveUp = setTimeout(() => {
          clearInterval(trickle);
          socket.destroy();
          resolve(false);
        }, 8000);
        socket.on('close', () => {
          clearInterval(trickle);
          clearTimeout(giveUp);
          resolve(true);
        });
        socket.on('error', () => {});
      });
      assert.ok(headersClosed, 'the server closed the connection');
      assert.ok(Date.now() - headersStarted < 4000, `closed after ${Date.now() - headersStarted} ms`);
    } finally {
      await s.close();
    }
  });
});

describe('burst decisions without the database', () => {
  test('a 429 is answered without a query, for a known and for an unknown key', async () => {
    const s = await startService({
      env: {
        RECALLS_PLAN_FREE_BURST: '2',
        RECALLS_PLAN_STARTER_BURST: '3',
        RECALLS_PLAN_GROWTH_BURST: '3',
        RECALLS_PLAN_SCALE_BURST: '4',
        RECALLS_BURST_EXEMPT: '',
      },
    });
    try {
      await s.seed([draft('F-1-2024')]);
      const key = await s.key('free');
      assert.equal((await s.request('/v1/recalls', { key })).status, 200);
      assert.equal((await s.request('/v1/recalls', { key })).status, 200);
      // the store is gone: any query would be a 500
      await s.store.close();
      await assertProblem(await s.request('/v1/recalls', { key }), 429, '/problems/rate-limited');
      await assertProblem(await s.request('/v1/recalls'), 429, '/problems/rate-limited');
      // an unknown key: over the highest burst any plan allows (4), refused without asking
      await s.request('/v1/recalls', { key: `rk_live_${'x'.repeat(40)}` });
      await assertProblem(
        await s.request('/v1/recalls', { key: `rk_live_${'y'.repeat(40)}` }),
        429,
        '/problems/rate-limited',
      );
    } finally {
      await s.close();
    }
  });

  test('a key revoked after its plan was remembered is refused at once', async () => {
    const s = await startService({ env: { RECALLS_BURST_EXEMPT: '' } });
    try {
      const key = await s.key('scale');
      assert.equal((await s.request('/v1/sources', { key })).status, 200);
      await s.store.keys.revoke(key, new Date());
      await assertProblem(await s.request('/v1/sources', { key }), 403, '/problems/forbidden');
    } finally {
      await s.close();
    }
  });
});

describe('two keys on one request', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  test('Authorization and X-API-Key naming different keys is a 401 naming the conflict', async () => {
    const a = await s.key();
    const b = await s.key();
    const p = await assertProblem(
      await s.request('/v1/sources', { key: a, headers: { 'x-api-key': b } }),
      401,
      '/problems/unauthorized',
    );
    assert.match(p.detail, /Authorization.*X-API-Key/);
    assert.equal((await s.request('/v1/sources', { key: a, headers: { 'x-api-key': a } })).status, 200);
  });

  test('two Authorization headers naming different keys are a 401; the same key twice is served', async () => {
    const a = await s.key();
    const b = await s.key();
    /** GET /v1/sources with the headers as given, line by line (fetch would join them). */
    const get = (authorizations: string[]) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(`${s.url}/v1/sources`, {
          headers: ['Host', new URL(s.url).host, ...authorizations.flatMap((v) => ['Authorization', v])],
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
    for (const pair of [
      [`Bearer ${a}`, `Bearer ${b}`],
      [`Bearer ${b}`, `Bearer ${a}`],
    ]) {
      const r = await get(pair);
      assert.equal(r.status, 401, r.body);
      assert.match(JSON.parse(r.body).detail, /Authorization is sent more than once/);
    }
    assert.equal((await get([`Bearer ${a}`, `Bearer ${a}`])).status, 200);
    assert.equal((await get([`Bearer ${a}`])).status, 200);
  });
});
