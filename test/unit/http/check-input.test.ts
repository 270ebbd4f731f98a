/** The request checks of POST /v1/checks that the body schema cannot express. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertWellFormed } from '../../../src/checks/check-service.ts';
import { toProblemError } from '../../../src/http/error-handler.ts';
import { parseIdempotencyKey } from '../../../src/http/routes/checks.ts';

/** Refused as a 400 problem naming `parameter`, as the error handler maps it. */
const refusedNaming = (parameter: string) => (error: unknown) => {
  const problem = toProblemError(error)?.toProblem('/v1/checks');
  return problem?.status === 400 && problem.parameter === parameter;
};

describe('Idempotency-Key', () => {
  test('is read from the raw header lines, case-insensitively; absent is null', () => {
    assert.equal(parseIdempotencyKey(['Host', 'x', 'IDEMPOTENCY-KEY', 'order-1']), 'order-1');
    assert.equal(parseIdempotencyKey(['idempotency-key', 'a, b']), 'a, b');
    assert.equal(parseIdempotencyKey(['Host', 'x']), null);
  });
  test('sent twice, empty, too long or not printable ASCII is refused naming it', () => {
    for (const raw of [
      ['Idempotency-Key', 'a', 'idempotency-key', 'b'],
      ['Idempotency-Key', 'a', 'Idempotency-Key', 'a'],
      ['Idempotency-Key', ''],
      ['Idempotency-Key', 'x'.repeat(256)],
      ['Idempotency-Key', 'caf\u00e9'],
    ])
      assert.throws(() => parseIdempotencyKey(raw), refusedNaming('Idempotency-Key'));
  });
});

describe('well-formed text', () => {
  test('a lone surrogate in the label, a kind or a value is refused naming the field', () => {
    const item = { kind: 'lot', value: 'AB12' };
    assert.throws(() => assertWellFormed({ label: 'x\ud800', identifiers: [item] }), refusedNaming('label'));
    assert.throws(
      () => assertWellFormed({ identifiers: [item, { kind: 'lot', value: '\udc00AB' }] }),
      refusedNaming('identifiers[1].value'),
    );
    assert.throws(
      () => assertWellFormed({ identifiers: [{ kind: 'lot\ud83d', value: 'AB' }] }),
      refusedNaming('identifiers[0].kind'),
    );
  });
  test('paired surrogates (astral characters) are text', () => {
    assert.doesNotThrow(() =>
      assertWellFormed({
        label: 'catalogue \u{1F600}',
        identifiers: [{ kind: 'lot', value: 'A\u{1F600}B' }],
      }),
    );
  });
});
