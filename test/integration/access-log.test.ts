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
