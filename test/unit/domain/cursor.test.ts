/** Paging cursors: a round trip, and refusal of anything not issued as is under the secret. */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  decodeCursor,
  encodeCursor,
  filterFingerprint,
  InvalidCursorError,
} from '../../../src/domain/cursor.ts';

const SECRET = randomBytes(32);
const ENDPOINT = '/v1/recalls';
const FINGERPRINT = filterFingerprint({ severity: 'high', q: undefined });
const POSITION = ['2024-01-17', 'us-fda-food.F-1-2024', 3, null];

/** The cursor's payload as issued, re-encoded after `edit`, with the original checksum kept. */
function withEditedPayload(cursor: string, edit: (decoded: unknown[]) => unknown): string {
  const [payload, sum] = cursor.split('.') as [string, string];
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
  const edited = Buffer.from(JSON.stringify(edit(decoded)), 'utf8').toString('base64url');
  return `${edited}.${sum}`;
}

describe('cursor', () => {
  test('decodes to the position it was issued with, for its endpoint and filters', () => {
    const cursor = encodeCursor(SECRET, ENDPOINT, FINGERPRINT, POSITION);
    assert.match(cursor, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/, 'URL-safe, one dot');
    assert.deepEqual(decodeCursor(SECRET, cursor, ENDPOINT, FINGERPRINT), POSITION);
    assert.deepEqual(
      decodeCursor(SECRET, encodeCursor(SECRET, ENDPOINT, FINGERPRINT, []), ENDPOINT, FINGERPRINT),
      [],
    );
  });

  test('refuses a cursor of another endpoint or filter set', () => {
    const cursor = encodeCursor(SECRET, ENDPOINT, FINGERPRINT, POSITION);
    assert.throws(() => decodeCursor(SECRET, cursor, '/v1/checks', FINGERPRINT), /another endpoint/);
    assert.throws(
      () => decodeCursor(SECRET, cursor, ENDPOINT, filterFingerprint({ severity: 'low' })),
      /other filters/,
    );
  });

  test('refuses an edited payload that keeps the checksum, wherever the edit is', () => {
    const cursor = encodeCursor(SECRET, ENDPOINT, FINGERPRINT, POSITION);
    const edits: [string, (d: unknown[]) => unknown][] = [
      ['endpoint', (d) => ['/v1/recalls/x', d[1], d[2]]],
      ['fingerprint', (d) => [d[0], 'AAAAAAAAAAAA', d[2]]],
      ['first position value', (d) => [d[0], d[1], ['2099-12-31', ...(d[2] as unknown[]).slice(1)]]],
      ['last position value', (d) => [d[0], d[1], [...(d[2] as unknown[]).slice(0, -1), 'z']]],
      ['an appended position value', (d) => [d[0], d[1], [...(d[2] as unknown[]), 0]]],
    ];
    for (const [what, edit] of edits) {
      const tampered = withEditedPayload(cursor, edit);
      assert.notEqual(tampered, cursor, what);
      assert.throws(() => decodeCursor(SECRET, tampered, ENDPOINT, FINGERPRINT), InvalidCursorError, what);
    }
    // And one changed character anywhere in the payload, not only in its first part.
    const [payload, sum] = cursor.split('.') as [string, string];
    for (let i = 0; i < payload.length; i++) {
      const c = payload[i] === 'A' ? 'B' : 'A';
      const tampered = `${payload.slice(0, i)}${c}${payload.slice(i + 1)}.${sum}`;
      assert.throws(
        () => decodeCursor(SECRET, tampered, ENDPOINT, FINGERPRINT),
        InvalidCursorError,
        `at ${i}`,
      );
    }
  });

  test('refuses an edited checksum, a truncated cursor and garbage', () => {
    const cursor = encodeCursor(SECRET, ENDPOINT, FINGERPRINT, POSITION);
    const [payload, sum] = cursor.split('.') as [string, string];
    const bad = [
      `${payload}.${sum.slice(0, -1)}${sum.endsWith('A') ? 'B' : 'A'}`,
      cursor.slice(0, -1),
      payload,
      `${cursor}.extra`,
      '',
      '.',
      'not a cursor',
    ];
    for (const c of bad)
      assert.throws(() => decodeCursor(SECRET, c, ENDPOINT, FINGERPRINT), InvalidCursorError, c);
  });

  test('refuses a cursor signed with another secret, or minted with the old unkeyed checksum', () => {
    const foreign = encodeCursor(randomBytes(32), ENDPOINT, FINGERPRINT, POSITION);
    assert.throws(() => decodeCursor(SECRET, foreign, ENDPOINT, FINGERPRINT), InvalidCursorError);
    // Before the secret, the checksum was a public function of the payload: anyone could mint one.
    const payload = Buffer.from(JSON.stringify([ENDPOINT, FINGERPRINT, POSITION])).toString('base64url');
    const sum = createHash('sha256').update(`recalls-cursor-v1\n${payload}`).digest('base64url').slice(0, 16);
    assert.throws(() => decodeCursor(SECRET, `${payload}.${sum}`, ENDPOINT, FINGERPRINT), InvalidCursorError);
    // A checksum spelt differently (padding, a stray character) is refused even when it decodes alike.
    const cursor = encodeCursor(SECRET, ENDPOINT, FINGERPRINT, POSITION);
    for (const c of [`${cursor}=`, `${cursor.slice(0, -1)}!${cursor.slice(-1)}`])
      assert.throws(() => decodeCursor(SECRET, c, ENDPOINT, FINGERPRINT), InvalidCursorError, c);
  });

  test('filter fingerprints ignore key order and absent filters, and tell filter sets apart', () => {
    assert.equal(
      filterFingerprint({ a: 1, b: 'x' }),
      filterFingerprint({ b: 'x', a: 1, c: undefined, d: null }),
    );
    assert.notEqual(filterFingerprint({ a: 1 }), filterFingerprint({ a: 2 }));
    assert.notEqual(filterFingerprint({ a: 1 }), filterFingerprint({ b: 1 }));
    assert.notEqual(filterFingerprint({}), filterFingerprint({ a: 1 }));
  });
});
