/**
 * Receipt digests as the contract states them (../shared/spec/decisions.md, "Checks"): lowercase
 * hex SHA-256 over the distinct entries, sorted by code unit, joined with "\n", no trailing newline.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { resultDigest, submittedDigest } from '../../../src/domain/digests.ts';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('result digest', () => {
  test('is the SHA-256 of the empty string when nothing matched', () => {
    assert.equal(resultDigest([]), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  test('hashes the distinct ids sorted by code unit and joined with newlines, nothing trailing', () => {
    const expected = sha256('us-cpsc.10221\nus-fda-food.F-1-2024\nus-fda-food.f-1-2024');
    assert.equal(resultDigest(['us-fda-food.f-1-2024', 'us-cpsc.10221', 'us-fda-food.F-1-2024']), expected);
    assert.equal(
      resultDigest(['us-fda-food.F-1-2024', 'us-cpsc.10221', 'us-fda-food.f-1-2024', 'us-cpsc.10221']),
      expected,
      'order and repetition do not matter',
    );
    assert.match(expected, /^[0-9a-f]{64}$/);
    assert.notEqual(resultDigest(['a', 'b']), sha256('a\nb\n'));
  });

  test('input already sorted, sorted with a repeat, or in any order gives one digest', () => {
    const expected = sha256('a\nb\nc');
    assert.equal(resultDigest(['a', 'b', 'c']), expected, 'ascending: taken as it is');
    assert.equal(resultDigest(['a', 'b', 'b', 'c']), expected, 'ascending with a repeat: deduplicated');
    assert.equal(resultDigest(['c', 'a', 'b']), expected);
    assert.equal(resultDigest(['a']), sha256('a'));
  });

  test('sorts by UTF-16 code unit, not by locale', () => {
    // "Z" (U+005A) < "a" (U+0061) < "é" (U+00E9) < "𝔸" (U+D835 U+DD38) < "ｚ" (U+FF5A)
    assert.equal(resultDigest(['ｚ', '𝔸', 'é', 'a', 'Z']), sha256('Z\na\né\n𝔸\nｚ'));
  });
});

describe('submitted digest', () => {
  test('hashes distinct kind:normalized pairs, the kind lower-cased', () => {
    const pairs = [
      { kind: 'UPC', normalized: '00012000007897' },
      { kind: 'lot', normalized: '4242' },
      { kind: 'upc', normalized: '00012000007897' },
      { kind: 'Batch', normalized: '4242' },
    ];
    assert.equal(submittedDigest(pairs), sha256('batch:4242\nlot:4242\nupc:00012000007897'));
  });

  test('of nothing is the SHA-256 of the empty string', () => {
    assert.equal(submittedDigest([]), sha256(''));
  });
});
