/** The month usage is counted in. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { usageMonth } from '../../../src/domain/meters.ts';

describe('usage month', () => {
  test('is the UTC calendar month, whatever the local zone', () => {
    assert.equal(usageMonth(new Date('2026-06-30T23:59:59.999Z')), '2026-06');
    assert.equal(usageMonth(new Date('2026-07-01T00:00:00.000Z')), '2026-07');
    assert.equal(usageMonth(new Date('2024-02-29T12:00:00Z')), '2024-02');
  });
});
