/** Bounded memoisation: what is computed from a value (a key, an address, a text), kept per value. */
import { LRUCache } from 'lru-cache';

/**
 * `compute`, remembered for the last `max` inputs (least recently used dropped first). For results that
 * cost more to make than a map lookup and that never change for the same input.
 */
export function memoized<K extends string, V extends NonNullable<unknown>>(
  max: number,
  compute: (input: K) => V,
): (input: K) => V {
  const known = new LRUCache<K, V>({ max });
  return (input) => {
    let value = known.get(input);
    if (value === undefined) {
      value = compute(input);
      known.set(input, value);
    }
    return value;
  };
}
