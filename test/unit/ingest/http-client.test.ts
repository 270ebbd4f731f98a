import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import {
  createUpstreamClient,
  parseRetryAfter,
  DEFAULT_USER_AGENT,
  type UpstreamClientOptions,
} from '../../../src/ingest/http-client.ts';
import { UpstreamError, type UpstreamFailure } from '../../../src/ingest/errors.ts';
import { scriptedAgency as agency, type Handler } from '../../support/scripted-agency.ts';
import { until } from '../../support/until.ts';

const ok =
  (body: string | Buffer, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(body);
  };
const status =
  (code: number, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(code, headers).end(`status ${code}`);
  };
const redirect =
  (location: string, code = 302): Handler =>
  (_req, res) => {
    res.writeHead(code, { location }).end();
  };

/** A client with test-sized limits, a zero sleep that records its waits, and a fixed jitter. */
function client(overrides: UpstreamClientOptions = {}) {
  const sleeps: number[] = [];
  const c = createUpstreamClient({
    timeoutMs: 2_000,
    idleTimeoutMs: 2_000,
    backoffBaseMs: 100,
    backoffMaxMs: 1_000,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...overrides,
  });
  return { client: c, sleeps };
}

async function rejectsWith(
  promise: Promise<unknown>,
  failure: UpstreamFailure,
  details: { url?: string; status?: number } = {},
): Promise<UpstreamError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof UpstreamError, `expected UpstreamError, got ${String(err)}`);
    assert.equal(err.failure, failure, err.message);
    for (const [k, v] of Object.entries(details)) assert.equal(err.details[k as 'url' | 'status'], v, k);
    return err;
  }
  assert.fail(`expected UpstreamError(${failure})`);
}

test('200: returns the body, final url and validators; sends a browser-like UA naming the service', async (t) => {
  const s = await agency(t, [
    ['/feed', ok('{"a":1}', { etag: '"v1"', 'last-modified': 'Wed, 01 May 2024 06:00:00 GMT' })],
  ]);
  const { client: c } = client({});
  const res = await c.get(s.url('/feed'), { headers: { Accept: 'application/json' } });
  assert.equal(res.status, 200);
  assert.equal(res.url, s.url('/feed'));
  assert.equal(res.body.toString(), '{"a":1}');
  assert.equal(res.etag, '"v1"');
  assert.equal(res.lastModified, 'Wed, 01 May 2024 06:00:00 GMT');
  const h = s.requests[0]?.headers ?? {};
  assert.equal(h['user-agent'], DEFAULT_USER_AGENT);
  assert.match(DEFAULT_USER_AGENT, /^Mozilla\/5\.0 .*recall-alert-service/);
  assert.equal(h.accept, 'application/json');
  assert.match(String(h['accept-encoding']), /gzip/);
  assert.equal(h['if-none-match'], undefined);
  await s.finish();
});

test('304: sends If-None-Match / If-Modified-Since and reports no change with an empty body', async (t) => {
  const s = await agency(t, [
    [
      '/feed',
      (_req, res) => {
        res.writeHead(304, { etag: '"v1"' }).end();
      },
    ],
  ]);
  const { client: c } = client();
  const res = await c.get(s.url('/feed'), { etag: '"v1"', lastModified: 'Wed, 01 May 2024 06:00:00 GMT' });
  assert.equal(res.status, 304);
  assert.equal(res.body.length, 0);
  assert.equal(res.etag, '"v1"');
  assert.equal(res.lastModified, 'Wed, 01 May 2024 06:00:00 GMT', 'the validator sent is kept');
  assert.equal(s.requests[0]?.headers['if-none-match'], '"v1"');
  assert.equal(s.requests[0]?.headers['if-modified-since'], 'Wed, 01 May 2024 06:00:00 GMT');
  await s.finish();
});

test('a 304 to an unconditional GET is an http_status failure', async (t) => {
  const s = await agency(t, [['/feed', status(304)]]);
  await rejectsWith(client().client.get(s.url('/feed')), 'http_status', { status: 304 });
  await s.finish();
});

test('500 then 200: retried after a full-jitter backoff', async (t) => {
  const s = await agency(t, [
    ['/feed', status(500)],
    ['/feed', status(502)],
    ['/feed', status(503)],
    ['/feed', ok('fine')],
  ]);
  const randoms = [0.99, 0.5, 0];
  const { client: c, sleeps } = client({ random: () => randoms.shift() ?? 0 });
  const res = await c.get(s.url('/feed'));
  assert.equal(res.body.toString(), 'fine');
  // full jitter: retry n waits floor(random * min(max, base * 2^n)), base 100
  assert.deepEqual(sleeps, [99, 100, 0]);
  await s.finish();
});

test('backoff waits stay within the full-jitter bounds with the real random source', async (t) => {
  const s = await agency(t, [
    ['/feed', status(500)],
    ['/feed', status(500)],
    ['/feed', status(500)],
    ['/feed', status(500)],
    ['/feed', status(500)],
    ['/feed', ok('fine')],
  ]);
  const sleeps: number[] = [];
  const c = createUpstreamClient({
    retries: 5,
    backoffBaseMs: 100,
    backoffMaxMs: 800,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  await c.get(s.url('/feed'));
  assert.equal(sleeps.length, 5);
  sleeps.forEach((ms, n) => {
    const ceiling = Math.min(800, 100 * 2 ** n);
    assert.ok(ms >= 0 && ms < ceiling, `retry ${n + 1} waited ${ms}, outside [0, ${ceiling})`);
  });
  await s.finish();
});

test('429 with Retry-After in seconds is honoured, capped at backoffMaxMs', async (t) => {
  const s = await agency(t, [
    ['/feed', status(429, { 'retry-after': '1' })],
    ['/feed', status(503, { 'retry-after': '120' })],
    ['/feed', ok('fine')],
  ]);
  const { client: c, sleeps } = client({ backoffMaxMs: 5_000 });
  assert.equal((await c.get(s.url('/feed'))).body.toString(), 'fine');
  assert.deepEqual(sleeps, [1_000, 5_000]);
  await s.finish();
});

test('429 with Retry-After as an HTTP-date is honoured', async (t) => {
  const at = new Date(Date.now() + 3_000).toUTCString();
  const s = await agency(t, [
    ['/feed', status(429, { 'retry-after': at })],
    ['/feed', ok('fine')],
  ]);
  const { client: c, sleeps } = client({ backoffMaxMs: 10_000 });
  await c.get(s.url('/feed'));
  const wait = sleeps[0] ?? -1;
  assert.ok(wait > 1_000 && wait <= 3_000, `waited ${wait}`);
  await s.finish();
});

test('parseRetryAfter reads seconds and HTTP-dates, and ignores garbage', () => {
  const now = Date.parse('Wed, 01 May 2024 06:00:00 GMT');
  assert.equal(parseRetryAfter('7', now), 7_000);
  assert.equal(parseRetryAfter('Wed, 01 May 2024 06:00:30 GMT', now), 30_000);
  assert.equal(parseRetryAfter('Wed, 01 May 2024 05:00:00 GMT', now), 0);
  assert.equal(parseRetryAfter('soon', now), undefined);
  assert.equal(parseRetryAfter(null, now), undefined);
});

test('always 500: fails after the retries with http_status 500', async (t) => {
  const s = await agency(t, [
    ['/feed', status(500)],
    ['/feed', status(500)],
    ['/feed', status(500)],
  ]);
  const { client: c, sleeps } = client({ retries: 2 });
  await rejectsWith(c.get(s.url('/feed')), 'http_status', { status: 500, url: s.url('/feed') });
  assert.equal(sleeps.length, 2);
  await s.finish();
});

test('404: fails at once, without retry', async (t) => {
  const s = await agency(t, [['/missing', status(404)]]);
  const { client: c, sleeps } = client();
  await rejectsWith(c.get(s.url('/missing')), 'http_status', { status: 404, url: s.url('/missing') });
  assert.deepEqual(sleeps, []);
  await s.finish();
});

test('a hung response times out (and is retried)', async (t) => {
  const hang: Handler = () => {
    /* never answers */
  };
  const s = await agency(t, [
    ['/slow', hang],
    ['/slow', hang],
  ]);
  const { client: c, sleeps } = client({ timeoutMs: 150, retries: 1 });
  await rejectsWith(c.get(s.url('/slow')), 'timeout', { url: s.url('/slow') });
  assert.equal(sleeps.length, 1);
  await s.finish();
});

test('a body that stalls mid-way hits the idle timeout', async (t) => {
  const s = await agency(t, [
    [
      '/stall',
      (_req, res) => {
        res.writeHead(200, { 'content-length': '100' });
        res.write('x'.repeat(10));
      },
    ],
  ]);
  const { client: c } = client({ idleTimeoutMs: 150, timeoutMs: 5_000, retries: 0 });
  const err = await rejectsWith(c.get(s.url('/stall')), 'timeout');
  assert.match(err.message, /no data/);
  await s.finish();
});

test('a connection reset mid-body is a network/truncated failure, retried', async (t) => {
  const reset: Handler = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"partial":');
    setTimeout(() => res.socket?.destroy(), 20);
  };
  const s = await agency(t, [
    ['/feed', reset],
    ['/feed', reset],
  ]);
  const { client: c, sleeps } = client({ retries: 1 });
  const err = await c.get(s.url('/feed')).then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof UpstreamError, String(err));
  assert.ok(['network', 'truncated'].includes(err.failure), err.failure);
  assert.equal(sleeps.length, 1);
  await s.finish();
});

test('a connection reset before any answer is a network failure', async (t) => {
  const s = await agency(t, [['/feed', (req) => req.socket.destroy()]]);
  await rejectsWith(client({ retries: 0 }).client.get(s.url('/feed')), 'network', { url: s.url('/feed') });
  await s.finish();
});

test('a refused connection is a network failure after retries', async (t) => {
  const s = await agency(t, []);
  const url = s.url('/feed');
  await s.finish(); // nothing listens there any more
  const { client: c, sleeps } = client({ retries: 2 });
  await rejectsWith(c.get(url), 'network', { url });
  assert.equal(sleeps.length, 2);
});

test('Content-Length larger than the body, then close: truncated; a retry can succeed', async (t) => {
  const short: Handler = (_req, res) => {
    res.writeHead(200, { 'content-length': '100' });
    res.write('only ten b');
    setTimeout(() => res.socket?.end(), 20);
  };
  const s = await agency(t, [
    ['/feed', short],
    ['/feed', short],
    ['/feed', ok('complete')],
  ]);
  const { client: c } = client({ retries: 0 });
  await rejectsWith(c.get(s.url('/feed')), 'truncated', { url: s.url('/feed') });
  const { client: c2, sleeps } = client({ retries: 1 });
  assert.equal((await c2.get(s.url('/feed'))).body.toString(), 'complete');
  assert.equal(sleeps.length, 1);
  await s.finish();
});

test('a Content-Length over the cap is refused before reading, without retry', async (t) => {
  const s = await agency(t, [
    [
      '/big',
      (_req, res) => {
        res.writeHead(200, { 'content-length': '5000' });
        res.end(Buffer.alloc(5000, 'x'));
      },
    ],
  ]);
  const { client: c, sleeps } = client({ maxBytes: 1000 });
  await rejectsWith(c.get(s.url('/big')), 'too_large', { url: s.url('/big') });
  assert.deepEqual(sleeps, []);
  await s.finish();
});

test('a streamed body without Content-Length is cut off as soon as it passes the cap', async (t) => {
  let written = 0;
  let stopped = false;
  const s = await agency(t, [
    [
      '/stream',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' }); // chunked
        res.on('close', () => {
          stopped = true;
        });
        const tick = (): void => {
          if (stopped || written >= 1_000_000) return void res.end();
          res.write(Buffer.alloc(600, 'x'));
          written += 600;
          setTimeout(tick, 5);
        };
        tick();
      },
    ],
  ]);
  const { client: c, sleeps } = client({ maxBytes: 1000 });
  await rejectsWith(c.get(s.url('/stream')), 'too_large');
  assert.deepEqual(sleeps, []);
  await until(
    () => stopped,
    () => `the client to hang up (${written} bytes sent)`,
  );
  assert.ok(written < 1_000_000, `the client kept reading (${written} bytes sent)`);
  await s.finish();
});

test("a call's own maxBytes lowers the client's cap, exactly, and never raises it", async (t) => {
  const chunked =
    (bytes: number): Handler =>
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write(Buffer.alloc(bytes - 1, 'x'));
      res.end('x');
    };
  const s = await agency(t, [
    ['/exact', chunked(1000)],
    ['/over', chunked(1001)],
    ['/declared', ok(Buffer.alloc(1001, 'x'))],
    ['/global', chunked(3000)],
  ]);
  const { client: c, sleeps } = client({ maxBytes: 2000 });
  assert.equal((await c.get(s.url('/exact'), { maxBytes: 1000 })).body.length, 1000);
  await rejectsWith(c.get(s.url('/over'), { maxBytes: 1000 }), 'too_large', { url: s.url('/over') });
  await rejectsWith(c.get(s.url('/declared'), { maxBytes: 1000 }), 'too_large');
  await rejectsWith(c.get(s.url('/global'), { maxBytes: 5000 }), 'too_large');
  assert.deepEqual(sleeps, []);
  await s.finish();
});

test('the cap is exact: a body of exactly maxBytes passes', async (t) => {
  const s = await agency(t, [['/exact', ok(Buffer.alloc(1000, 'x'))]]);
  const res = await client({ maxBytes: 1000 }).client.get(s.url('/exact'));
  assert.equal(res.body.length, 1000);
  await s.finish();
});

test('redirects are followed, and the final url reported', async (t) => {
  const s = await agency(t, [
    ['/old', redirect('/moved', 301)],
    ['/moved', redirect('/new?x=1', 307)],
    ['/new?x=1', ok('here')],
  ]);
  const res = await client().client.get(s.url('/old'));
  assert.equal(res.body.toString(), 'here');
  assert.equal(res.url, s.url('/new?x=1'));
  await s.finish();
});

test('a redirect loop is a redirect_loop failure, without retry', async (t) => {
  const s = await agency(t, [
    ['/a', redirect('/b')],
    ['/b', redirect('/a')],
  ]);
  const { client: c, sleeps } = client();
  await rejectsWith(c.get(s.url('/a')), 'redirect_loop', { url: s.url('/a') });
  assert.deepEqual(sleeps, []);
  await s.finish();
});

test('too many redirects is a redirect_loop failure', async (t) => {
  const s = await agency(t, [
    ['/r0', redirect('/r1')],
    ['/r1', redirect('/r2')],
    ['/r2', redirect('/r3')],
  ]);
  await rejectsWith(client({ maxRedirects: 2 }).client.get(s.url('/r0')), 'redirect_loop');
  await s.finish();
});

test('a redirect without Location is an http_status failure', async (t) => {
  const s = await agency(t, [['/odd', status(302)]]);
  await rejectsWith(client().client.get(s.url('/odd')), 'http_status', { status: 302 });
  await s.finish();
});

test('a query POST sends its body and content type, is retried whole, and repeats only on 307/308', async (t) => {
  const seen: string[] = [];
  /** Records `<method> <content-type> <body>`, then answers with `then`. */
  const recording =
    (then: Handler): Handler =>
    (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        seen.push(`${req.method} ${req.headers['content-type'] ?? '-'} ${body}`);
        then(req, res);
      });
    };
  const s = await agency(t, [
    ['/search', recording(status(503))],
    ['/search', recording(redirect('/search2', 307))],
    ['/search2', recording(redirect('/results', 303))],
    ['/results', recording(ok('{"content":[]}'))],
  ]);
  const { client: c, sleeps } = client();
  const query = '{"language":"en","page":"0"}';
  const res = await c.get(s.url('/search'), { post: { body: query, contentType: 'application/json' } });
  assert.equal(res.body.toString(), '{"content":[]}');
  assert.deepEqual(seen, [
    `POST application/json ${query}`,
    `POST application/json ${query}`,
    `POST application/json ${query}`,
    'GET - ',
  ]);
  assert.equal(sleeps.length, 1, 'the 503 was retried once');
  await s.finish();
});

test('a gzip body is decoded', async (t) => {
  const text = JSON.stringify({ results: Array.from({ length: 200 }, (_, i) => ({ id: i })) });
  const s = await agency(t, [
    [
      '/gz',
      (_req, res) => {
        const gz = gzipSync(text);
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(gz.length) }).end(gz);
      },
    ],
  ]);
  const res = await client().client.get(s.url('/gz'));
  assert.equal(res.body.toString(), text);
  assert.match(String(s.requests[0]?.headers['accept-encoding']), /gzip/);
  await s.finish();
});

test('a URL that is not http(s) is a defect of ours, not an agency failure', async () => {
  await assert.rejects(client().client.get('ftp://example.org/x'), TypeError);
  await assert.rejects(client().client.get('not a url'), TypeError);
});
