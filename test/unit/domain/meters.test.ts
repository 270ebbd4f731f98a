/** The month usage is counted in, and the kept month of the request path agreeing with it at every instant. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { usageMonth, usageMonthKeeper } from '../../../src/domain/meters.ts';

describe('usage month', () => {
  test('is the UTC calendar month, whatever the local zone', () => {
    assert.equal(usageMonth(new Date('2026-06-30T23:59:59.999Z')), '2026-06');
    assert.equal(usageMonth(new Date('2026-07-01T00:00:00.000Z')), '2026-07');
    assert.equal(usageMonth(new Date('2024-02-29T12:00:00Z')), '2024-02');
  });

  test('the keeper gives usageMonth at the last and first millisecond of a month, forwards and back', () => {
    const month = usageMonthKeeper();
    const instants = [
      '2026-06-15T10:00:00Z',
      '2026-06-30T23:59:59.999Z',
      '2026-07-01T00:00:00.000Z',
      '2026-06-30T23:59:59.999Z', // a clock set back
      '2026-12-31T23:59:59.999Z',
      '2027-01-01T00:00:00.000Z',
    ].map((t) => new Date(t));
    for (const at of instants) assert.equal(month(at), usageMonth(at), at.toISOString());
  });

  test('the keeper agrees with usageMonth over any sequence of instants', () => {
    fc.assert(
      fc.property(
        fc.array(fc.date({ min: new Date('1970-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })),
        (dates) => {
          const month = usageMonthKeeper();
          for (const at of dates) assert.equal(month(at), usageMonth(at));
        },
      ),
    );
  });
});
