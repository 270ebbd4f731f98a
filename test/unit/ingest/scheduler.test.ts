import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RETRY_MINUTES, startDailySchedule } from '../../../src/ingest/scheduler.ts';
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
      return true;
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

test('a failed run is tried again the same day after growing waits, and a success ends the retries', async () => {
  let now = new Date('2026-11-22T04:00:00Z');
  let clockReads = 0;
  const runs: string[] = [];
  let outcomes = [false, false, false, false, false, false, true];
  const schedule = startDailySchedule({
    hourUtc: 4,
    now: () => {
      clockReads++;
      return now;
    },
    tickMs: 5,
    run: async () => {
      runs.push(now.toISOString().slice(11, 16));
      const [ok, ...rest] = outcomes;
      outcomes = rest;
      if (ok === undefined) throw new Error('more runs than planned');
      return ok;
    },
  });
  const wait = async () => {
    const target = clockReads + 3;
    await until(
      () => clockReads >= target,
      () => `the schedule to tick (${clockReads} clock reads)`,
    );
  };
  const at = (hhmm: string) => new Date(`2026-11-22T${hhmm}:00Z`);
  try {
    await wait();
    assert.deepEqual(runs, ['04:00']);
    // Just before each wait is over nothing starts; once it is over the run is tried again.
    let clock = at('04:00').getTime();
    for (const minutes of [...RETRY_MINUTES, RETRY_MINUTES.at(-1)!]) {
      clock += minutes * 60_000;
      now = new Date(clock - 60_000);
      await wait();
      now = new Date(clock);
      await wait();
    }
    assert.deepEqual(runs, ['04:00', '04:15', '04:45', '05:45', '07:45', '11:45', '15:45']);
    now = at('23:00');
    await wait();
    assert.equal(runs.length, 7, 'the seventh run succeeded: no more that day');
  } finally {
    schedule.stop();
  }
});
