/** Match rules: prefixes and ranges of models and lots (../shared/spec/identifiers.md, "Match rules"). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { lookupKeys, storageKeys } from '../../../src/domain/identifiers/match-keys.ts';
import {
  isRule,
  parseRule,
  prefixRule,
  rangeRule,
  ruleMatches,
} from '../../../src/domain/identifiers/match-rules.ts';
import { normaliseIdentifier } from '../../../src/domain/identifiers/normalise.ts';

/** Whether a supplied value of `kind` reaches and matches a stored rule, through the keys a lookup probes. */
function found(
  kind: 'model' | 'lot' | 'batch',
  supplied: string,
  storedKind: 'model' | 'lot',
  rule: string,
): boolean {
  const n = normaliseIdentifier(kind, supplied);
  assert.ok(n.ok, supplied);
  const keys = lookupKeys(n.kind, n.normalized);
  return keys.ruleKeys.includes(storageKeys(storedKind, rule).matchKey) && ruleMatches(rule, n.normalized);
}

describe('match rules', () => {
  test('a prefix rule is the normalised stem and `*`, only with 5 characters and a digit', () => {
    assert.equal(prefixRule('KX-2040GC'), 'KX2040GC*');
    assert.equal(prefixRule('AB12'), undefined, 'four characters');
    assert.equal(prefixRule('ABCDEFG'), undefined, 'no digit');
    assert.equal(prefixRule('N/A'), undefined);
  });

  test('a range joins ends of one shape with `..`; ends of another shape, length or order are no rule', () => {
    assert.equal(rangeRule('40012000', '40098999'), '40012000..40098999');
    assert.equal(rangeRule('A2001', 'A-2308'), 'A2001..A2308');
    assert.equal(rangeRule('19K 0000000 000', '22C 9999999 999'), undefined, 'letters differ');
    assert.equal(rangeRule('4001', '400999'), undefined, 'lengths differ');
    assert.equal(rangeRule('123', '456'), undefined, 'shorter than 4');
    assert.equal(rangeRule('5000', '4000'), undefined, 'from after to');
    assert.equal(rangeRule('A200', '2001'), undefined, 'letters against digits');
  });

  test('a rule is never an exact form, and is read back from its normalised form', () => {
    assert.ok(isRule('KX2040GC*') && isRule('A2001..A2308') && !isRule('KX2040GC'));
    assert.deepEqual(parseRule('KX2040GC*'), { rule: 'prefix', stem: 'KX2040GC' });
    assert.deepEqual(parseRule('A2001..A2308'), { rule: 'range', from: 'A2001', to: 'A2308' });
    assert.equal(parseRule('KX2040GC'), undefined);
    for (const printed of ['KX2040GC*', 'A2001..A2308']) {
      const n = normaliseIdentifier('model', printed);
      assert.ok(n.ok && !isRule(n.normalized), 'a supplied value normalises to an exact form');
    }
  });

  test('a value under a prefix matches from its stem on; a shorter one, or another stem, does not', () => {
    assert.ok(ruleMatches('KX2040GC*', 'KX2040GC'));
    assert.ok(ruleMatches('KX2040GC*', 'KX2040GCBK'));
    assert.ok(!ruleMatches('KX2040GC*', 'KX2040G'));
    assert.ok(!ruleMatches('KX2040GC*', 'KX2041GCBK'));
  });

  test('a value inside a range matches, ends included; one past an end, or of another shape, does not', () => {
    const rule = '40012000..40098999';
    for (const v of ['40012000', '40050000', '40098999']) assert.ok(ruleMatches(rule, v), v);
    for (const v of ['40011999', '40099000', '4005000', '400500000', '4005000A'])
      assert.ok(!ruleMatches(rule, v), v);
    assert.ok(ruleMatches('A2001..A2308', 'A2100'));
    assert.ok(!ruleMatches('A2001..A2308', 'B2100'), 'another letter');
    assert.ok(!ruleMatches('1A50..2A30', '1Z90'), 'between as strings, but of another shape');
  });

  test('a value probes three rule buckets at most, the coarser of which the values of one shape share', () => {
    assert.deepEqual(lookupKeys('lot', '40050000').ruleKeys, [
      'lot*4005',
      'lot..00000000:',
      'lot..00000000:40',
    ]);
    assert.deepEqual(lookupKeys('model', 'ABCD').ruleKeys, ['model..ABCD:'], 'no stem without a digit');
    assert.deepEqual(lookupKeys('lot', 'A1').ruleKeys, [], 'shorter than any rule');
    assert.deepEqual(storageKeys('lot', '40012000..40098999').matchKey, 'lot..00000000:40');
    assert.deepEqual(storageKeys('lot', 'A1000..A2999').matchKey, 'lot..A0000:', 'no digit in common');
    assert.deepEqual(storageKeys('model', 'KX2040GC*').matchKey, 'model*KX20');
  });

  test('a lookup reaches each stored rule that holds its value through the keys it probes, whatever the lengths', () => {
    for (let stem = 5; stem <= 70; stem++) {
      const rule = `${'K1'.repeat(40).slice(0, stem)}*`;
      for (const extra of [0, 1, 7, 30]) {
        const value = rule.slice(0, -1) + 'Z'.repeat(extra);
        assert.ok(found('model', value, 'model', rule), `${rule} holds ${value}`);
      }
    }
    for (const [from, to, inside] of [
      ['40012000', '40098999', '40050000'],
      ['0000', '9999', '5000'],
      ['A2001', 'A2308', 'A2100'],
      ['12345678901234567890', '12345678901234567899', '12345678901234567895'],
      ['AB10000000', 'AB10000000', 'AB10000000'],
    ] as const) {
      const rule = rangeRule(from, to)!;
      assert.ok(found('lot', inside, 'lot', rule), `${rule} holds ${inside}`);
      assert.ok(found('batch', inside, 'lot', rule), `a batch finds the lot rule ${rule}`);
      assert.ok(!found('model', inside, 'lot', rule), 'never across families');
    }
  });
});
