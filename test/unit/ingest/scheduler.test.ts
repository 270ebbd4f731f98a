import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startDailySchedule } from '../../../src/ingest/scheduler.ts';
import { until } from '../../support/until.ts';

test('starts one run per UTC day, at or after the configured hour', async () => {
  let now = new Date('2026-11-22T02:00:00Z');
  let clockReads = 0;
  const runs: string[] = [];
  const schedule = startDailySchedule({
    hourUtc: 4,
    now: () => {
      clockReads++;
      return now;
    },
    tickMs: 5,
    run: async () => {
      runs.push(now.toISOString());
    },
  });
  /** Waits for the schedule to look at the clock a few more times (a few ticks), not for a fixed time. */
  const wait = async () => {
    const target = clockReads + 3;
    await until(
      () => clockReads >= target,
      () => `the schedule to tick (${clockReads} clock reads)`,
    );
  };
  try {
    await wait();
    assert.deepEqual(runs, [], 'not before the hour');
    now = new Date('2026-11-22T04:10:00Z');
    await wait();
    now = new Date('2026-11-22T18:00:00Z');
    await wait();
    assert.deepEqual(runs, ['2026-11-22T04:10:00.000Z'], 'once that day');
    now = new Date('2026-11-23T05:00:00Z');
    await wait();
    assert.deepEqual(runs, ['2026-11-22T04:10:00.000Z', '2026-11-23T05:00:00.000Z']);
  } finally {
    schedule.stop();
  }
});
