/** The request log: one `info` line per answered request with what an operator reads, the arrival at `debug` only. */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { startService } from '../support/service.ts';
import { until } from '../support/until.ts';

function collector(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  const lines = () =>
    text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { stream, lines };
}

test('at info, each answered request writes one line: method, URL, status, address, time and request id', async () => {
  const log = collector();
  const s = await startService({ logger: { level: 'info', stream: log.stream } });
  try {
    const key = await s.key('scale');
    assert.equal((await s.request('/v1/recalls?limit=1', { key })).status, 200);
    assert.equal((await s.request('/v1/recalls')).status, 401);
    const requests = () => log.lines().filter((l) => typeof l.url === 'string');
    await until(
      () => requests().length >= 2,
      () => JSON.stringify(log.lines()),
    );
    const [ok, refused] = requests();
    assert.equal(requests().length, 2, 'one line per request');
    for (const [line, url, status] of [
      [ok!, '/v1/recalls?limit=1', 200],
      [refused!, '/v1/recalls', 401],
    ] as const) {
      assert.equal(line.msg, 'request completed');
      assert.equal(line.level, 30);
      assert.equal(line.method, 'GET');
      assert.equal(line.url, url);
      assert.equal(line.statusCode, status);
      assert.equal(line.remoteAddress, '127.0.0.1');
      assert.equal(typeof line.responseTime, 'number');
      assert.match(String(line.reqId), /^req_[0-9A-Za-z]{16}$/);
    }
    assert.ok(!JSON.stringify(log.lines()).includes(key), 'the key is never logged');
  } finally {
    await s.close();
  }
});

test('at debug, the arrival of each request is logged too', async () => {
  const log = collector();
  const s = await startService({ logger: { level: 'debug', stream: log.stream } });
  try {
    assert.equal((await s.request('/v1/health')).status, 200);
    await until(
      () => log.lines().some((l) => l.msg === 'request completed'),
      () => JSON.stringify(log.lines()),
    );
    const received = log.lines().filter((l) => l.msg === 'request received');
    assert.deepEqual(
      received.map((l) => [l.level, l.method, l.url]),
      [[20, 'GET', '/v1/health']],
    );
  } finally {
    await s.close();
  }
});

/** A request id the service made itself. */
const OWN_ID = /^req_[0-9A-Za-z]{16}$/;

test('every answer carries X-Request-Id: a sane one sent is kept and logged, any other replaced by the own id', async () => {
  const log = collector();
  const s = await startService({ logger: { level: 'info', stream: log.stream } });
  try {
    const key = await s.key('scale');
    const sane = `trace-1.2:a_b-${'x'.repeat(100)}`;
    const kept = await s.request('/v1/recalls?limit=1', { key, headers: { 'X-Request-Id': sane } });
    assert.equal(kept.status, 200);
    assert.equal(kept.headers.get('x-request-id'), sane);

    // The service's own id of the answer just given, sent back: replaced too, so it names one log line only.
    const own = (await s.request('/v1/health')).headers.get('x-request-id')!;
    assert.match(own, OWN_ID);
    for (const bad of ['x'.repeat(129), 'has space', 'semi;colon', 'ünïcode', '', 'a,b', own]) {
      const given = (await s.request('/v1/health', { headers: { 'X-Request-Id': bad } })).headers.get(
        'x-request-id',
      );
      assert.match(given ?? '', OWN_ID, JSON.stringify(bad));
      assert.notEqual(given, bad);
    }

    // Errors, a 304 and HEAD carry it too; no body gains a field.
    const etag = kept.headers.get('etag')!;
    const answers = [
      await s.request('/v1/recalls?limit=1', { key, headers: { 'if-none-match': etag } }),
      await s.request('/v1/recalls?limit=1', { key, method: 'HEAD' }),
      await s.request('/v1/recalls'),
      await s.request('/v1/recalls', { key: 'rk_live_unknown' }),
      await s.request('/v1/recalls?bogus=1', { key }),
      await s.request('/v1/nowhere'),
      await s.request('/v1/recalls/%E0%A4%A', { key }),
      await s.request('/v1/checks', {
        key,
        rawBody: '{not json',
        headers: { 'content-type': 'application/json' },
      }),
    ];
    assert.deepEqual(
      answers.map((r) => r.status),
      [304, 200, 401, 401, 400, 404, 400, 400],
    );
    for (const r of answers) {
      assert.match(r.headers.get('x-request-id') ?? '', OWN_ID, `${r.status} ${r.url}`);
      const body = await r.text();
      if (body !== '') assert.ok(!/request.?id/i.test(body), body);
    }
    const echoed = await s.request('/v1/nowhere', { headers: { 'X-Request-Id': 'mine-404' } });
    assert.equal(echoed.headers.get('x-request-id'), 'mine-404');

    const lines = () => log.lines().filter((l) => l.msg === 'request completed');
    await until(
      () => lines().some((l) => l.reqId === 'mine-404'),
      () => JSON.stringify(log.lines()),
    );
    assert.equal(lines()[0]!.reqId, sane, 'the kept id is the id of the log line');
    assert.equal(lines().find((l) => l.statusCode === 404 && l.reqId === 'mine-404')?.url, '/v1/nowhere');
    const ids = lines().map((l) => String(l.reqId));
    assert.equal(new Set(ids.filter((id) => OWN_ID.test(id))).size, ids.length - 2, 'own ids are distinct');
  } finally {
    await s.close();
  }
});
