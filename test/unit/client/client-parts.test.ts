/** The typed client's pure parts: option bounds, problem documents, Retry-After, and offline digests. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { problemFrom, retryAfterSeconds } from '../../../src/client/errors.ts';
import {
  checkDigestOf,
  MAX_RETRIES_LIMIT,
  MAX_RETRY_WAIT_SECONDS_LIMIT,
  RecallsClient,
  resultDigestOf,
} from '../../../src/client/index.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('RecallsClient options', () => {
  test('accepts retry bounds from 0 to their documented limits', () => {
    for (const maxRetries of [0, 1, MAX_RETRIES_LIMIT])
      new RecallsClient({ baseUrl: 'http://127.0.0.1:1', maxRetries });
    for (const maxRetryWaitSeconds of [0, MAX_RETRY_WAIT_SECONDS_LIMIT])
      new RecallsClient({ baseUrl: 'http://127.0.0.1:1', maxRetryWaitSeconds });
  });

  test('refuses a negative, fractional or too large bound with a RangeError naming it', () => {
    for (const maxRetries of [-1, 1.5, MAX_RETRIES_LIMIT + 1, Number.NaN])
      assert.throws(() => new RecallsClient({ baseUrl: 'http://127.0.0.1:1', maxRetries }), {
        name: 'RangeError',
        message: /^maxRetries must be an integer from 0 to 100/,
      });
    assert.throws(
      () =>
        new RecallsClient({
          baseUrl: 'http://127.0.0.1:1',
          maxRetryWaitSeconds: MAX_RETRY_WAIT_SECONDS_LIMIT + 1,
        }),
      { name: 'RangeError', message: /^maxRetryWaitSeconds must be an integer from 0 to 3600/ },
    );
  });
});

describe('problemFrom', () => {
  test('keeps a problem document of the service', () => {
    const body = JSON.stringify({
      type: '/problems/invalid-parameter',
      title: 'Invalid parameter',
      status: 400,
      detail: 'limit must be 1 to 200',
      instance: '/v1/recalls',
      parameter: 'limit',
    });
    assert.deepEqual(problemFrom(400, body), JSON.parse(body));
  });

  test('describes an answer that is not one as /problems/internal quoting its start', () => {
    const html = `<html>${'x'.repeat(500)}</html>`;
    const p = problemFrom(502, html);
    assert.equal(p.type, '/problems/internal');
    assert.equal(p.status, 502);
    assert.equal(p.title, 'HTTP 502');
    assert.ok(p.detail.includes('<html>xxx') && p.detail.length < 300, p.detail);
    const unknownType = JSON.stringify({ type: '/problems/teapot', title: 't', status: 418, detail: 'd' });
    assert.equal(problemFrom(418, unknownType).type, '/problems/internal');
    assert.equal(problemFrom(500, '').type, '/problems/internal');
  });
});

describe('retryAfterSeconds', () => {
  const now = Date.parse('2026-06-17T12:00:00Z');
  test('reads delta-seconds and HTTP dates', () => {
    assert.equal(retryAfterSeconds('7', now), 7);
    assert.equal(retryAfterSeconds(' 0 ', now), 0);
    assert.equal(retryAfterSeconds('Wed, 17 Jun 2026 12:00:30 GMT', now), 30);
    assert.equal(retryAfterSeconds('Wed, 17 Jun 2026 11:00:00 GMT', now), 0, 'a date past is now');
  });
  test('gives null when absent or unreadable', () => {
    assert.equal(retryAfterSeconds(null, now), null);
    assert.equal(retryAfterSeconds('soon', now), null);
    assert.equal(retryAfterSeconds('-5', now), null);
  });
});

describe('checkDigestOf', () => {
  test('normalises, keeps each (kind, canonical form) once and lists rejections as submitted', () => {
    const d = checkDigestOf([
      { kind: 'UPC', value: '692-6145-7140-29' },
      { kind: 'upc', value: '06926145714029' },
      { kind: 'ean', value: '6926145714029' },
      { kind: 'lot', value: 'Lot: A12' },
      { kind: 'ean', value: '123' },
      { kind: 'sku', value: 'X' },
    ]);
    assert.equal(d.submittedDigest, sha256('ean:06926145714029\nlot:A12\nupc:06926145714029'));
    assert.equal(d.submittedCount, 3);
    assert.equal(d.rejectedCount, 2);
    assert.deepEqual(
      d.rejected.map((r) => [r.kind, r.value, r.reason]),
      [
        ['ean', '123', 'invalid_length'],
        ['sku', 'X', 'unknown_kind'],
      ],
    );
  });

  test('of nothing checkable is the digest of the empty string', () => {
    assert.deepEqual(checkDigestOf([{ kind: 'vin', value: '' }]).submittedDigest, sha256(''));
  });

  test('resultDigestOf hashes the distinct sorted recall ids of the matches', () => {
    const matches = [{ recall_id: 'rcl_b' }, { recall_id: 'rcl_a' }, { recall_id: 'rcl_b' }];
    assert.equal(resultDigestOf(matches), sha256('rcl_a\nrcl_b'));
  });
});
