import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoized } from '../../../src/domain/memo.ts';

test('a memoised function computes each input once while it is among the last `max` used', () => {
  const calls: string[] = [];
  const upper = memoized(2, (s: string) => {
    calls.push(s);
    return s.toUpperCase();
  });
  assert.equal(upper('a'), 'A');
  assert.equal(upper('a'), 'A');
  assert.equal(upper('b'), 'B');
  assert.deepEqual(calls, ['a', 'b']);
  upper('a'); // a is now the most recently used
  upper('c'); // b is dropped
  upper('a');
  upper('b');
  assert.deepEqual(calls, ['a', 'b', 'c', 'b']);
});

test('a falsy result is remembered like any other', () => {
  let n = 0;
  const never = memoized(10, (_s: string) => (n++, false));
  never('x');
  never('x');
  assert.equal(n, 1);
});
