/**
 * The typed client (src/client) against the real service: paging, lookups, checks and receipts, conditional
 * requests, 429 retries after Retry-After, 402 never retried, network errors retried only when safe, and
 * receipts reproduced offline with the exported normaliser and digests.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  checkDigestOf,
  isNotModified,
  normaliseIdentifier,
  RecallsApiError,
  RecallsClient,
  resultDigestOf,
  type RecallsClientOptions,
  type RetryInfo,
} from '../../src/client/index.ts';
import type { RecallDraft } from '../../src/domain/recall.ts';
import { requireShared, sharedPath } from '../support/shared.ts';
import { draft, startService, type TestService } from '../support/service.ts';

/** Seven recalls (three dated the same day), two sharing a GTIN, one with an NDC. */
function corpus(): RecallDraft[] {
  const gtin = (kind: 'ean' | 'upc') => ({
    kind,
    value: '6926145714029',
    normalized: '06926145714029',
    confidence: 'extracted' as const,
  });
  return [
    draft('F-1-2024', {
      recall_date: '2024-03-01',
      published_date: '2024-03-02',
      identifiers: [gtin('ean')],
    }),
    draft('F-2-2024', {
      recall_date: '2024-03-01',
      published_date: '2024-03-02',
      identifiers: [gtin('upc')],
    }),
    draft('F-3-2024', { recall_date: '2024-03-01', published_date: '2024-03-02' }),
    draft('D-4-2024', {
      published_date: '2024-02-01',
      identifiers: [
        { kind: 'ndc', value: 'NDC 0143-1473-01', normalized: '00143147301', confidence: 'exact' },
      ],
    }),
    draft('F-5-2024', {
      published_date: '2024-01-05',
      identifiers: [{ kind: 'model', value: 'KX-7/B', normalized: 'KX7B', confidence: 'exact' }],
    }),
    draft('F-6-2024', { published_date: null }),
    draft('F-7-2024', { published_date: null }),
  ];
}

/**
 * A client whose fetch records every answer's status and Retry-After before the client sees them, and whose
 * onRetry records each retry.
 */
function observedClient(options: RecallsClientOptions): {
  client: RecallsClient;
  seen: { status: number; retryAfter: string | null }[];
  retries: RetryInfo[];
} {
  const seen: { status: number; retryAfter: string | null }[] = [];
  const retries: RetryInfo[] = [];
  const client = new RecallsClient({
    ...options,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      seen.push({ status: response.status, retryAfter: response.headers.get('retry-after') });
      return response;
    },
    onRetry: (info) => retries.push(info),
  });
  return { client, seen, retries };
}

/** The RecallsApiError `promise` rejects with. */
async function apiError(promise: Promise<unknown>): Promise<RecallsApiError> {
  const error = await promise.then(
    () => assert.fail('expected a RecallsApiError'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof RecallsApiError, `${error}`);
  return error;
}

describe('typed client: reading and checking', () => {
  let s: TestService;
  let client: RecallsClient;
  before(async () => {
    s = await startService();
    await s.seed(corpus());
    client = new RecallsClient({ baseUrl: s.url, apiKey: await s.key('scale') });
  });
  after(() => s.close());

  test('listRecalls answers a typed page; recalls() walks the cursor to its end in the same order', async () => {
    const whole = await client.listRecalls({ limit: 200, include_total: true });
    assert.equal(whole.status, 200);
    assert.equal(whole.data.meta.total, 7);
    assert.equal(whole.data.meta.next_cursor, null);
    assert.deepEqual(JSON.parse(whole.text), whole.data, 'text is the body as served');
    assert.match(whole.etag ?? '', /^W\//);

    const first = await client.listRecalls({ limit: 2 });
    assert.equal(first.data.data.length, 2);
    assert.equal(typeof first.data.meta.next_cursor, 'string', 'a page of 2 of 7 leads on');

    const walked: string[] = [];
    for await (const recall of client.recalls({ limit: 2 })) walked.push(recall.id);
    assert.deepEqual(
      walked,
      whole.data.data.map((r) => r.id),
    );
    assert.equal(new Set(walked).size, 7);
  });

  test('recalls() passes its filters on every page', async () => {
    const found: string[] = [];
    for await (const recall of client.recalls({ limit: 1, from: '2024-03-01', to: '2024-03-01' }))
      found.push(recall.source.record_id);
    assert.deepEqual(found.sort(), ['F-1-2024', 'F-2-2024', 'F-3-2024']);
  });

  test('lookup finds recalls by an identifier in any printed form; an invalid value is a RecallsApiError', async () => {
    const found = await client.lookup('ean', '692 6145 71402 9');
    assert.deepEqual(found.data.data.map((r) => r.source.record_id).sort(), ['F-1-2024', 'F-2-2024']);
    assert.equal(found.data.data[0]!.match.normalized, '06926145714029');
    const all: string[] = [];
    for await (const r of client.lookupAll('gtin', '06926145714029', { limit: 1 })) all.push(r.id);
    assert.equal(all.length, 2);

    const refused = await apiError(client.lookup('ean', '6926145714028')); // wrong check digit
    assert.equal(refused.status, 400);
    assert.equal(refused.problem.type, '/problems/invalid-parameter');
    assert.equal(refused.problem.parameter, 'value');
    assert.equal(refused.retryAfterSeconds, null);
  });

  test('lookup encodes a value holding /, ? and # as one path segment', async () => {
    const found = await client.lookup('model', 'KX-7/B?#');
    assert.deepEqual(
      found.data.data.map((r) => r.source.record_id),
      ['F-5-2024'],
    );
  });

  test('getRecall of an unknown id throws the not-found problem', async () => {
    const error = await apiError(client.getRecall('rcl_nope'));
    assert.equal(error.status, 404);
    assert.equal(error.problem.type, '/problems/not-found');
  });

  test('runCheck returns the receipt; getCheck re-reads it unchanged; checkDigestOf reproduces its digest', async () => {
    const identifiers = [
      { kind: 'upc', value: '6926145714029' },
      { kind: 'ean', value: '0 6926145714029' }, // another kind, same canonical form: a pair of its own
      { kind: 'upc', value: '692-6145-7140-29' }, // duplicate of the first once normalised
      { kind: 'NDC', value: '0143-1473-01' },
      { kind: 'ean', value: '6926145714028' }, // bad check digit: rejected
      { kind: 'isbn', value: '12345' }, // unknown kind: rejected
      { kind: 'lot', value: '   ' }, // empty: rejected
      { kind: 'lot', value: '   ' }, // rejected again (rejections are listed as submitted)
      { kind: 'model', value: 'X'.repeat(100) }, // checked, matches nothing
    ];
    const run = await client.runCheck({ label: 'client test', identifiers });
    assert.equal(run.status, 201);
    assert.equal(run.replayed, false);
    const receipt = run.data.data;
    const offline = checkDigestOf(identifiers);
    assert.equal(receipt.submitted_digest, offline.submittedDigest);
    assert.equal(receipt.submitted_count, offline.submittedCount);
    assert.equal(receipt.submitted_count, 4);
    assert.deepEqual(receipt.rejected, offline.rejected);
    assert.equal(receipt.rejected_count, 4);
    assert.equal(receipt.result_digest, resultDigestOf(receipt.matches ?? []));
    assert.equal(receipt.match_count, 5, 'upc and ean pairs each match two recalls; the NDC one');

    const again = await client.getCheck(receipt.check_id);
    assert.deepEqual(again.data.data, receipt);
    assert.deepEqual(JSON.parse(again.text).data, receipt);

    const listed: string[] = [];
    for await (const r of client.checks({ limit: 1 })) listed.push(r.check_id);
    assert.ok(listed.includes(receipt.check_id));
  });

  test('runCheck with an Idempotency-Key replays the first receipt', async () => {
    const body = { identifiers: [{ kind: 'lot', value: 'L-1' }] };
    const first = await client.runCheck(body, { idempotencyKey: 'client-test-1' });
    const second = await client.runCheck(body, { idempotencyKey: 'client-test-1' });
    assert.equal(first.replayed, false);
    assert.equal(second.replayed, true);
    assert.equal(second.data.data.check_id, first.data.data.check_id);
  });

  test('a conditional request with the ETag answers NotModified; a stale tag gets the body', async () => {
    const page = await client.listRecalls({ limit: 3 });
    const unchanged = await client.listRecalls({ limit: 3 }, { ifNoneMatch: page.etag });
    assert.ok(isNotModified(unchanged));
    assert.equal(unchanged.status, 304);
    const stale = await client.listRecalls({ limit: 3 }, { ifNoneMatch: 'W/"stale"' });
    assert.ok(!isNotModified(stale));
    assert.deepEqual(stale.data, page.data);
    const none = await client.listRecalls({ limit: 3 }, { ifNoneMatch: null });
    assert.equal(none.status, 200, 'no tag: an ordinary request');

    const receipt = (await client.runCheck({ identifiers: [{ kind: 'lot', value: 'L-2' }] })).data.data;
    const read = await client.getCheck(receipt.check_id);
    const still = await client.getCheck(receipt.check_id, { ifNoneMatch: read.etag });
    assert.ok(isNotModified(still));
  });

  test('sources and health are typed and need no key', async () => {
    const anonymous = new RecallsClient({ baseUrl: s.url });
    const health = await anonymous.getHealth();
    assert.ok(['ok', 'degraded', 'unknown'].includes(health.data.status));
    const sources = await anonymous.listSources();
    assert.ok(sources.data.data.some((source) => source.id === 'us-fda-food'));
  });

  test('a missing key is the unauthorized problem', async () => {
    const error = await apiError(new RecallsClient({ baseUrl: s.url }).listRecalls());
    assert.equal(error.status, 401);
    assert.equal(error.problem.type, '/problems/unauthorized');
  });
});

describe('typed client: 429 and 402', () => {
  let offsetMs = 0;
  let s: TestService;
  let key: string;
  before(async () => {
    s = await startService({
      env: { RECALLS_PLAN_FREE_BURST: '1', RECALLS_BURST_EXEMPT: '' },
      clock: () => new Date(Date.now() + offsetMs),
    });
    key = await s.key('free');
  });
  after(() => s.close());

  test('a 429 is retried after its Retry-After', async () => {
    // maxRetries 1: a retry sent before the window ends would be refused again and thrown.
    const { client, seen, retries } = observedClient({ baseUrl: s.url, apiKey: key, maxRetries: 1 });
    assert.equal((await client.listRecalls()).status, 200, 'the one request of this window');
    offsetMs += 58_000; // two seconds before the window ends
    const answer = await client.listRecalls();
    assert.equal(answer.status, 200);
    assert.deepEqual(
      seen.map((a) => a.status),
      [200, 429, 200],
    );
    const asked = Number(seen[1]!.retryAfter);
    assert.ok(asked >= 1 && asked <= 2, `Retry-After ${asked}`);
    assert.deepEqual(retries, [{ status: 429, waitSeconds: asked, attempt: 1 }]);
  });

  test('a 429 asking to wait longer than maxRetryWaitSeconds is thrown at once', async () => {
    const { client, seen, retries } = observedClient({ baseUrl: s.url, apiKey: key, maxRetryWaitSeconds: 5 });
    // the window holds the previous test's retried request: this one is refused for about a minute
    const error = await apiError(client.listRecalls());
    assert.equal(error.status, 429);
    assert.equal(error.problem.type, '/problems/rate-limited');
    assert.ok(error.retryAfterSeconds !== null && error.retryAfterSeconds > 5);
    assert.equal(seen.length, 1);
    assert.deepEqual(retries, []);
  });

  test('maxRetries 0 throws the first 429', async () => {
    const { client, seen } = observedClient({ baseUrl: s.url, apiKey: key, maxRetries: 0 });
    assert.equal((await apiError(client.listRecalls())).status, 429);
    assert.equal(seen.length, 1);
  });
});

describe('typed client: 402', () => {
  let s: TestService;
  before(async () => {
    s = await startService({ env: { RECALLS_PLAN_FREE_REQUESTS: '1' } });
  });
  after(() => s.close());

  test('a 402 is thrown with its problem and never retried', async () => {
    const { client, seen, retries } = observedClient({ baseUrl: s.url, apiKey: await s.key('free') });
    await client.listRecalls();
    const error = await apiError(client.listRecalls());
    assert.equal(error.status, 402);
    assert.equal(error.problem.type, '/problems/quota-exceeded');
    assert.match(error.message, /quota-exceeded/);
    assert.deepEqual(
      seen.map((a) => a.status),
      [200, 402],
    );
    assert.deepEqual(retries, []);
  });
});

/** A TCP proxy to the service that, when told, cuts the connection as the service's answer arrives. */
async function startCuttingProxy(
  target: URL,
): Promise<{ url: string; cutNextAnswer(): void; close(): Promise<void> }> {
  let cut = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.on('data', (chunk) => {
      if (cut) {
        cut = false;
        client.destroy();
        upstream.destroy();
      } else client.write(chunk);
    });
    upstream.on('end', () => client.end());
    for (const socket of [client, upstream]) {
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        (socket === client ? upstream : client).destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return {
    url: `http://127.0.0.1:${address.port}`,
    cutNextAnswer: () => {
      cut = true;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('typed client: network errors', () => {
  let s: TestService;
  let proxy: Awaited<ReturnType<typeof startCuttingProxy>>;
  let client: RecallsClient;
  let retries: RetryInfo[];
  before(async () => {
    s = await startService();
    proxy = await startCuttingProxy(new URL(s.url));
    retries = [];
    client = new RecallsClient({
      baseUrl: proxy.url,
      apiKey: await s.key('scale'),
      maxRetryWaitSeconds: 0,
      onRetry: (info) => retries.push(info),
    });
  });
  after(async () => {
    await proxy.close();
    await s.close();
  });

  test('a GET whose answer is lost is sent again', async () => {
    retries.length = 0;
    proxy.cutNextAnswer();
    assert.equal((await client.listRecalls()).status, 200);
    assert.deepEqual(retries, [{ status: null, waitSeconds: 0, attempt: 1 }]);
  });

  test('a check without an Idempotency-Key whose answer is lost is not sent again', async () => {
    retries.length = 0;
    proxy.cutNextAnswer();
    await assert.rejects(client.runCheck({ identifiers: [{ kind: 'lot', value: 'N-1' }] }), TypeError);
    assert.deepEqual(retries, []);
  });

  test('a check with an Idempotency-Key whose answer is lost is sent again and replays its receipt', async () => {
    retries.length = 0;
    const before = [];
    for await (const r of client.checks()) before.push(r.check_id);
    proxy.cutNextAnswer();
    const answer = await client.runCheck(
      { identifiers: [{ kind: 'lot', value: 'N-2' }] },
      { idempotencyKey: 'lost-answer-1' },
    );
    assert.equal(answer.replayed, true, 'the first attempt was recorded; the retry replays it');
    assert.equal(retries.length, 1);
    const afterwards = [];
    for await (const r of client.checks()) afterwards.push(r.check_id);
    assert.equal(afterwards.length, before.length + 1, 'one receipt, not two');
  });
});

describe('typed client: the normaliser and digests are the service’s own', () => {
  const file = sharedPath('spec', 'identifier-vectors.json');

  test('every shared identifier vector normalises as specified through the client export', (t) => {
    if (!requireShared(t, file, 'spec/identifier-vectors.json')) return;
    const vectors = JSON.parse(readFileSync(file, 'utf8')) as Record<
      string,
      { input: string; valid: boolean; normalized?: string }[]
    >;
    let count = 0;
    for (const [kind, list] of Object.entries(vectors)) {
      for (const v of list) {
        const r = normaliseIdentifier(kind, v.input);
        assert.equal(r.ok, v.valid, `${kind} ${JSON.stringify(v.input)}`);
        if (r.ok) assert.equal(r.normalized, v.normalized, `${kind} ${JSON.stringify(v.input)}`);
        count++;
      }
    }
    assert.ok(count > 100, `${count} vectors`);
  });

  test('a check of every shared vector has the digest, count and rejections checkDigestOf computes', async (t) => {
    if (!requireShared(t, file, 'spec/identifier-vectors.json')) return;
    const vectors = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { input: string }[]>;
    const identifiers = Object.entries(vectors).flatMap(([kind, list]) =>
      list.map((v) => ({ kind, value: v.input })),
    );
    const s = await startService();
    try {
      const client = new RecallsClient({ baseUrl: s.url, apiKey: await s.key('scale') });
      const receipt = (await client.runCheck({ identifiers })).data.data;
      const offline = checkDigestOf(identifiers);
      assert.ok(offline.rejectedCount > 0 && offline.submittedCount > 0);
      assert.equal(receipt.submitted_digest, offline.submittedDigest);
      assert.equal(receipt.submitted_count, offline.submittedCount);
      assert.deepEqual(receipt.rejected, offline.rejected);
    } finally {
      await s.close();
    }
  });
});
