/** Values that are at hand or awaited: `andThen` and `settle` answer at once for a value, later for a promise. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { andThen, settle } from '../../../src/domain/maybe-promise.ts';

test('andThen runs at once on a value and after the promise on a promise', async () => {
  assert.equal(
    andThen(2, (v) => v * 3),
    6,
  );
  const later = andThen(Promise.resolve(2), (v) => v * 3);
  assert.ok(later instanceof Promise);
  assert.equal(await later, 6);
});

test('settle hands a value over in the same tick, a promise once resolved, and any error to onError', async () => {
  const seen: string[] = [];
  settle(
    () => 'now',
    (v) => seen.push(v),
    (e) => seen.push(`error ${e.message}`),
  );
  assert.deepEqual(seen, ['now'], 'a value at hand is handed over before settle returns');

  const later = new Promise<void>((resolve) =>
    settle(
      () => Promise.resolve('later'),
      (v) => {
        seen.push(v);
        resolve();
      },
      (e) => seen.push(`error ${e.message}`),
    ),
  );
  assert.deepEqual(seen, ['now'], 'a promise is not handed over at once');
  await later;

  settle(
    () => {
      throw new Error('thrown');
    },
    (v) => seen.push(String(v)),
    (e) => seen.push(`error ${e.message}`),
  );
  await new Promise<void>((resolve) =>
    settle(
      () => Promise.reject(new Error('rejected')),
      (v) => seen.push(String(v)),
      (e) => {
        seen.push(`error ${e.message}`);
        resolve();
      },
    ),
  );
  assert.deepEqual(seen, ['now', 'later', 'error thrown', 'error rejected']);
});
