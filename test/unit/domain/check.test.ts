/**
 * A catalogue check as pure steps (../shared/spec/decisions.md, "Checks"): the plan normalises,
 * rejects with a reason and checks each distinct kind:normalized pair once; the receipt has one
 * match entry per (checked identifier, matching recall), in a stable order, and both digests.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  buildReceipt,
  planCheck,
  REJECTED_VALUE_LENGTH,
  rejectedValue,
  type Hit,
} from '../../../src/domain/check.ts';
import { resultDigest, submittedDigest } from '../../../src/domain/digests.ts';

const CONTEXT = {
  checkId: 'chk_test',
  label: 'spring catalogue',
  performedAt: '2026-06-18T10:00:00.000Z',
  corpusAsOf: '2026-06-17',
  corpusSize: 1234,
};

function hit(recallId: string, matchKey: string, overrides: Partial<Hit> = {}): Hit {
  return {
    matchKey,
    productKey: null,
    normalized: matchKey.slice(matchKey.indexOf(':') + 1),
    recallId,
    revision: 1,
    title: `Recall ${recallId}`,
    jurisdiction: 'US',
    recallDate: '2024-01-10',
    severity: 'serious',
    url: `https://example.test/${recallId}`,
    ...overrides,
  };
}

describe('planning a check', () => {
  test('checks each kind:normalized pair once, the kind as submitted, lower-cased', () => {
    const plan = planCheck([
      { kind: 'UPC', value: '0 12000 00789 7' },
      { kind: 'upc', value: '012000007897' },
      { kind: 'ean', value: '0012000007897' },
      { kind: 'lot', value: 'Lot 4242' },
      { kind: 'lot', value: '4242' },
      { kind: 'Batch', value: '4242' },
    ]);
    assert.deepEqual(
      plan.checked.map((c) => `${c.kind}:${c.normalized}`),
      ['upc:00012000007897', 'ean:00012000007897', 'lot:4242', 'batch:4242'],
    );
    assert.deepEqual(plan.rejected, []);
    assert.deepEqual(plan.checked[0]!.matchKeys, ['gs1:00012000007897'], 'upc and ean share one key space');
    assert.deepEqual(plan.checked[2]!.matchKeys, plan.checked[3]!.matchKeys, 'lot and batch too');
  });

  test('rejects what cannot be normalised, with its reason, in order, never dropping one', () => {
    const plan = planCheck([
      { kind: 'colour', value: 'red' },
      { kind: 'upc', value: '   ' },
      { kind: 'upc', value: '012000007898' },
      { kind: 'upc', value: '012000007898' },
      { kind: 'lot', value: 'A1' },
    ]);
    assert.deepEqual(plan.rejected, [
      { kind: 'colour', value: 'red', reason: 'unknown_kind' },
      { kind: 'upc', value: '   ', reason: 'empty' },
      { kind: 'upc', value: '012000007898', reason: 'invalid_check_digit' },
      { kind: 'upc', value: '012000007898', reason: 'invalid_check_digit' },
    ]);
    assert.deepEqual(
      plan.checked.map((c) => c.kind),
      ['lot'],
    );
  });

  test('a product NDC (9 digits) also searches the product key of packaged NDCs', () => {
    const [product] = planCheck([{ kind: 'ndc', value: '50383-720' }]).checked;
    assert.deepEqual(product!.productKeys, ['ndc:503830720']);
  });
});

describe('building the receipt', () => {
  test('one entry per (checked identifier, recall), ordered by identifier then recall id', () => {
    const plan = planCheck([
      { kind: 'upc', value: '012000007897' },
      { kind: 'lot', value: '4242' },
      { kind: 'batch', value: '4242' },
      { kind: 'model', value: 'NOTHING-MATCHES' },
    ]);
    const hits = [
      hit('us-fda-food.F-2', 'lot:4242', { revision: 3 }),
      hit('us-fda-food.F-1', 'gs1:00012000007897'),
      hit('us-fda-food.F-1', 'lot:4242'),
      hit('us-fda-food.F-2', 'lot:4242', { revision: 3 }), // the same recall through a second stored row
    ];
    const receipt = buildReceipt(plan, hits, CONTEXT);
    assert.deepEqual(
      receipt.matches!.map((m) => `${m.matched_on.kind}:${m.matched_on.normalized} ${m.recall_id}`),
      [
        'batch:4242 us-fda-food.F-1',
        'batch:4242 us-fda-food.F-2',
        'lot:4242 us-fda-food.F-1',
        'lot:4242 us-fda-food.F-2',
        'upc:00012000007897 us-fda-food.F-1',
      ],
    );
    assert.equal(receipt.match_count, 5);
    assert.equal(receipt.submitted_count, 4);
    assert.equal(receipt.rejected_count, 0);
    assert.equal(receipt.matches![1]!.revision_at_check, 3);
    assert.deepEqual(receipt.matches![4], {
      recall_id: 'us-fda-food.F-1',
      matched_on: { kind: 'upc', normalized: '00012000007897' },
      revision_at_check: 1,
      title: 'Recall us-fda-food.F-1',
      jurisdiction: 'US',
      recall_date: '2024-01-10',
      severity: 'serious',
      url: 'https://example.test/us-fda-food.F-1',
    });
    assert.equal(receipt.submitted_digest, submittedDigest(plan.checked));
    assert.equal(receipt.result_digest, resultDigest(['us-fda-food.F-1', 'us-fda-food.F-2']));
  });

  test('carries the context and the rejected items, and an empty match list when nothing matched', () => {
    const plan = planCheck([
      { kind: 'lot', value: 'A1' },
      { kind: 'upc', value: 'x' },
    ]);
    const receipt = buildReceipt(plan, [], CONTEXT);
    assert.equal(receipt.check_id, 'chk_test');
    assert.equal(receipt.label, 'spring catalogue');
    assert.equal(receipt.performed_at, CONTEXT.performedAt);
    assert.equal(receipt.corpus_as_of, '2026-06-17');
    assert.equal(receipt.corpus_size, 1234);
    assert.equal(receipt.submitted_count, 1);
    assert.equal(receipt.rejected_count, 1);
    assert.equal(receipt.rejected[0]!.kind, 'upc');
    assert.deepEqual(receipt.matches, []);
    assert.equal(receipt.match_count, 0);
    assert.equal(receipt.result_digest, resultDigest([]));
  });

  test('a hit through the product key matches a product NDC', () => {
    const plan = planCheck([{ kind: 'ndc', value: '50383-720' }]);
    const receipt = buildReceipt(
      plan,
      [hit('us-fda-drug.D-1088-2017', 'ndc:50383072016', { productKey: 'ndc:503830720' })],
      CONTEXT,
    );
    assert.deepEqual(
      receipt.matches!.map((m) => m.recall_id),
      ['us-fda-drug.D-1088-2017'],
    );
  });

  test('a hit on a key nobody checked is not a match', () => {
    const plan = planCheck([{ kind: 'lot', value: '4242' }]);
    const receipt = buildReceipt(plan, [hit('x.1', 'lot:9999'), hit('x.2', 'gs1:4242')], CONTEXT);
    assert.equal(receipt.match_count, 0);
  });
});

describe('rejected values', () => {
  test('are kept as submitted up to 64 characters, longer ones as their first 63 and …', () => {
    assert.equal(REJECTED_VALUE_LENGTH, 64);
    assert.equal(rejectedValue('x'.repeat(64)), 'x'.repeat(64));
    assert.equal(rejectedValue('x'.repeat(65)), `${'x'.repeat(63)}…`);
    const plan = planCheck([{ kind: 'isbn', value: 'y'.repeat(10_000) }]);
    assert.deepEqual(plan.rejected, [{ kind: 'isbn', value: `${'y'.repeat(63)}…`, reason: 'unknown_kind' }]);
  });
  test('never split a surrogate pair', () => {
    const emoji = '\u{1F600}';
    assert.equal(rejectedValue(`${'x'.repeat(62)}${emoji}${'x'.repeat(9)}`), `${'x'.repeat(62)}…`);
    assert.equal(rejectedValue(`${'x'.repeat(61)}${emoji}${'x'.repeat(9)}`), `${'x'.repeat(61)}${emoji}…`);
    assert.equal(rejectedValue(emoji.repeat(40)), `${emoji.repeat(31)}…`);
  });
});
