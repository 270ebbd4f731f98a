/**
 * The block-size rule of quota leases: max(1, min(B, ⌊remaining / k⌋)), nothing when nothing
 * remains, and the database condition it is granted under (`remainingNeeded`).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { LEASE_SHARE, leaseBlock, remainingNeeded, type LeaseRule } from '../../../src/domain/quota-lease.ts';

const RULE: LeaseRule = { maxBlock: 1000, share: LEASE_SHARE };

const rules = fc.record({
  maxBlock: fc.integer({ min: 1, max: 1_000_000 }),
  share: fc.integer({ min: 1, max: 64 }),
});
const remaining = fc.integer({ min: -5, max: 50_000_000 });

describe('lease block size', () => {
  test('a whole block far from the limit, a k-th of what remains near it, single units at the end', () => {
    assert.equal(
      leaseBlock(1_000_000, RULE),
      1000,
      'a scale key (1,000,000 a month) starts with whole blocks',
    );
    assert.equal(leaseBlock(64_000, RULE), 1000);
    assert.equal(leaseBlock(63_999, RULE), 999);
    assert.equal(leaseBlock(10_000, RULE), 156, 'a starter key (10,000 a month) starts with blocks of 156');
    assert.equal(leaseBlock(500, RULE), 7, 'a free key (500 a month) starts with blocks of 7');
    assert.equal(leaseBlock(128, RULE), 2);
    assert.equal(leaseBlock(127, RULE), 1);
    assert.equal(leaseBlock(1, RULE), 1);
  });

  test('nothing is leased when nothing remains', () => {
    assert.equal(leaseBlock(0, RULE), 0);
    assert.equal(leaseBlock(-3, RULE), 0, 'a lease never goes past the limit, even if one was passed');
  });

  test('a block is at most B, at most what remains, at most a k-th of it (or 1), and at least 1 while any remains', () => {
    fc.assert(
      fc.property(rules, remaining, (rule, r) => {
        const b = leaseBlock(r, rule);
        if (r < 1) return b === 0;
        return (
          b >= 1 && b <= rule.maxBlock && b <= r && (b === 1 || b <= r / rule.share) && Number.isInteger(b)
        );
      }),
    );
  });

  test('smaller as the key nears its limit: never larger for less remaining', () => {
    fc.assert(
      fc.property(rules, remaining, fc.integer({ min: 0, max: 1_000_000 }), (rule, r, less) => {
        return leaseBlock(r - less, rule) <= leaseBlock(r, rule);
      }),
    );
  });

  test('the condition a block is granted under admits the rule’s own block and no larger one', () => {
    fc.assert(
      fc.property(rules, fc.integer({ min: 1, max: 50_000_000 }), (rule, r) => {
        const b = leaseBlock(r, rule);
        // what the rule gives for r passes the condition at r…
        if (remainingNeeded(b, rule) > r) return false;
        // …and any block that passes it at r is no larger than the rule's
        const larger = Math.min(rule.maxBlock, b + 1);
        return larger === b || remainingNeeded(larger, rule) > r;
      }),
    );
  });

  test('leasing block after block from one quota never hands out more than the quota', () => {
    fc.assert(
      fc.property(rules, fc.integer({ min: 0, max: 100_000 }), (rule, quota) => {
        let left = quota;
        let leased = 0;
        let grants = 0;
        for (let b = leaseBlock(left, rule); b > 0; b = leaseBlock(left, rule)) {
          leased += b;
          left -= b;
          grants++;
        }
        return leased === quota && left === 0 && grants <= quota;
      }),
    );
  });
});
