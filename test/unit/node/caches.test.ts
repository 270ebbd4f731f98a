import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoundedCache, CacheRegistry, memoized, VersionedCache } from '../../../src/node/caches.ts';

test('a memoised function computes each input once while it is among the last `max` used', () => {
  const calls: string[] = [];
  const upper = memoized(new BoundedCache<string, string>('upper', { max: 2 }), (s: string) => {
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
  const never = memoized(
    new BoundedCache<string, boolean>('never', { max: 10 }),
    (_s: string) => (n++, false),
  );
  never('x');
  never('x');
  assert.equal(n, 1);
});

test('a cache counts its hits and misses, holds at most its bound, and says so', () => {
  const cache = new BoundedCache<string, number>('numbers', { max: 2 });
  assert.equal(cache.get('a'), undefined);
  cache.set('a', 1);
  cache.set('b', 2);
  assert.equal(cache.get('a'), 1);
  cache.set('c', 3); // b, the least recently used, goes
  assert.equal(cache.get('b'), undefined);
  assert.equal(cache.peek('c'), 3, 'a peek is not counted');
  assert.equal(
    cache.get('c', (v) => v > 5),
    undefined,
    'an entry refused as unusable is a miss',
  );
  assert.deepEqual(cache.figures(), {
    name: 'numbers',
    entries: 2,
    maxEntries: 2,
    bytes: undefined,
    maxBytes: undefined,
    hits: 1,
    misses: 3,
  });
});

test('a cache bounded by bytes counts what each entry costs', () => {
  const cache = new BoundedCache<string, string>('texts', { maxBytes: 10, bytesOf: (v) => v.length });
  cache.set('a', 'xxxx');
  cache.set('b', 'yyyy');
  cache.set('c', 'zzzz'); // 12 bytes: a goes
  assert.equal(cache.peek('a'), undefined);
  const f = cache.figures();
  assert.deepEqual([f.entries, f.bytes, f.maxBytes, f.maxEntries], [2, 8, 10, undefined]);
});

test('a versioned cache answers at its version only; a newer version empties it, an older one is not kept', () => {
  const cache = new VersionedCache<string, string>('answers', { max: 10 });
  cache.set(7, '/a', 'seven');
  assert.equal(cache.get(7, '/a'), 'seven');
  assert.equal(cache.get(8, '/a'), undefined);
  cache.set(8, '/b', 'eight');
  assert.equal(cache.get(7, '/a'), undefined);
  assert.equal(cache.get(8, '/a'), undefined, 'emptied by the newer version');
  cache.set(7, '/a', 'late');
  assert.equal(cache.size, 1, 'an entry made at an older version is not kept');
  const f = cache.figures();
  assert.deepEqual([f.name, f.entries, f.hits, f.misses], ['answers', 1, 1, 3]);
});

test('a registry lists every cache by name, summing those of one name', () => {
  const registry = new CacheRegistry();
  const one = registry.add(new BoundedCache<string, number>('statements', { max: 3 }));
  const two = registry.add(new BoundedCache<string, number>('statements', { max: 5 }));
  registry.add(new BoundedCache<string, number>('answers', { maxBytes: 100, bytesOf: () => 10 })).set('x', 1);
  one.set('a', 1);
  two.set('b', 2);
  two.get('b');
  one.get('z');
  assert.deepEqual(registry.figures(), [
    { name: 'answers', entries: 1, maxEntries: undefined, bytes: 10, maxBytes: 100, hits: 0, misses: 0 },
    {
      name: 'statements',
      entries: 2,
      maxEntries: 8,
      bytes: undefined,
      maxBytes: undefined,
      hits: 1,
      misses: 1,
    },
  ]);
});
