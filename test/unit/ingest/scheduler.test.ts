import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RETRY_MINUTES, startDailySchedule } from '../../../src/ingest/scheduler.ts';
import { until } from '../../support/until.ts';

/**
 * A schedule at 04:00 UTC on a clock the test sets (`clock.now`), ticking every 5 ms; `wait` waits for it to
 * look at the clock a few more times (a few ticks), not for a fixed time.
 */
function onClock(start: string, run: (now: Date) => Promise<boolean>) {
  const clock = { now: new Date(start), reads: 0 };
  const schedule = startDailySchedule({
    hourUtc: 4,
    now: () => {
      clock.reads++;
      return clock.now;
    },
    tickMs: 5,
    run: () => run(clock.now),
  });
  const wait = async () => {
    const target = clock.reads + 3;
    await until(
      () => clock.reads >= target,
      () => `the schedule to tick (${clock.reads} clock reads)`,
    );
  };
  return { clock, wait, stop: () => schedule.stop() };
}

test('starts one run per UTC day, at or after the configured hour', async () => {
  const runs: string[] = [];
  const { clock, wait, stop } = onClock('2026-11-22T02:00:00Z', async (now) => {
    runs.push(now.toISOString());
    return true;
  });
  try {
    await wait();
    assert.deepEqual(runs, [], 'not before the hour');
    clock.now = new Date('2026-11-22T04:10:00Z');
    await wait();
    clock.now = new Date('2026-11-22T18:00:00Z');
    await wait();
    assert.deepEqual(runs, ['2026-11-22T04:10:00.000Z'], 'once that day');
    clock.now = new Date('2026-11-23T05:00:00Z');
    await wait();
    assert.deepEqual(runs, ['2026-11-22T04:10:00.000Z', '2026-11-23T05:00:00.000Z']);
  } finally {
    stop();
  }
});

test('a failed run is tried again the same day after growing waits, and a success ends the retries', async () => {
  const runs: string[] = [];
  let outcomes = [false, false, false, false, false, false, true];
  const { clock, wait, stop } = onClock('2026-11-22T04:00:00Z', async (now) => {
    runs.push(now.toISOString().slice(11, 16));
    const [ok, ...rest] = outcomes;
    outcomes = rest;
    if (ok === undefined) throw new Error('more runs than planned');
    return ok;
  });
  const at = (hhmm: string) => new Date(`2026-11-22T${hhmm}:00Z`);
  try {
    await wait();
    assert.deepEqual(runs, ['04:00']);
    // Just before each wait is over nothing starts; once it is over the run is tried again.
    let due = at('04:00').getTime();
    for (const minutes of [...RETRY_MINUTES, RETRY_MINUTES.at(-1)!]) {
      due += minutes * 60_000;
      clock.now = new Date(due - 60_000);
      await wait();
      clock.now = new Date(due);
      await wait();
    }
    assert.deepEqual(runs, ['04:00', '04:15', '04:45', '05:45', '07:45', '11:45', '15:45']);
    clock.now = at('23:00');
    await wait();
    assert.equal(runs.length, 7, 'the seventh run succeeded: no more that day');
  } finally {
    stop();
  }
});
