/**
 * Node-local caches, one home for all of them: each has a name, a bound, and hit and miss counts, and a
 * node's caches are listed in one registry that the admin listener's `/metrics` reads (docs/architecture.md
 * has the table of what each node keeps). A cache holds what can be made again: dropping any entry changes
 * no answer, only what it costs.
 *
 * - `BoundedCache`: entries by key, at most `max` (or `maxBytes` as counted by `bytesOf`); the least recently
 *   used goes first (lru-cache).
 * - `VersionedCache`: a `BoundedCache` whose entries belong to one version of what they were made from (the
 *   corpus version, the keys version): a newer version empties it, an older one is neither served nor kept.
 * - `memoized`: a function whose results are kept in a `BoundedCache`.
 */
import { LRUCache } from 'lru-cache';

/** What one cache holds and how it has been used. */
export interface CacheFigures {
  name: string;
  /** Entries held now. */
  entries: number;
  /** The most entries it holds (undefined when bounded by bytes only). */
  maxEntries: number | undefined;
  /** Bytes held now, as counted against `maxBytes` (undefined when bounded by entries). */
  bytes: number | undefined;
  maxBytes: number | undefined;
  /** Lookups that found an entry, and lookups that did not (since the node started). */
  hits: number;
  misses: number;
}

/** A cache a registry can list. */
export interface CountedCache {
  readonly name: string;
  figures(): CacheFigures;
}

/** How a `BoundedCache` is bounded. */
export type CacheBound<K, V> = { max: number } | { maxBytes: number; bytesOf: (value: V, key: K) => number };

/** A named cache of at most `max` entries (or `maxBytes`), counting its hits and misses. */
export class BoundedCache<
  K extends NonNullable<unknown>,
  V extends NonNullable<unknown>,
> implements CountedCache {
  hits = 0;
  misses = 0;
  private readonly entries: LRUCache<K, V>;

  constructor(
    readonly name: string,
    private readonly bound: CacheBound<K, V>,
  ) {
    this.entries =
      'max' in bound
        ? new LRUCache<K, V>({ max: bound.max })
        : new LRUCache<K, V>({ maxSize: bound.maxBytes, sizeCalculation: bound.bytesOf });
  }

  /**
   * The entry for `key`, counted as a hit (and kept as recently used) or a miss. An entry that `usable`
   * refuses (one made at an older version) counts as a miss and is not returned.
   */
  get(key: K, usable?: (value: V) => boolean): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined || (usable !== undefined && !usable(value))) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    return value;
  }

  /** The entry for `key`, neither counted nor kept as recently used. */
  peek(key: K): V | undefined {
    return this.entries.peek(key);
  }

  set(key: K, value: V): void {
    this.entries.set(key, value);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  figures(): CacheFigures {
    const { bound } = this;
    return {
      name: this.name,
      entries: this.entries.size,
      maxEntries: 'max' in bound ? bound.max : undefined,
      bytes: 'maxBytes' in bound ? this.entries.calculatedSize : undefined,
      maxBytes: 'maxBytes' in bound ? bound.maxBytes : undefined,
      hits: this.hits,
      misses: this.misses,
    };
  }
}

/**
 * The helper for whatever a version invalidates (the corpus version, the keys version): entries made at the
 * version held. Kept at a newer version, an entry empties the cache first; made at an older one, it is not
 * kept; looked up at any other version than the one held, nothing is found.
 */
export class VersionedCache<
  K extends NonNullable<unknown>,
  V extends NonNullable<unknown>,
> implements CountedCache {
  private version: number | undefined;
  private readonly cache: BoundedCache<K, V>;

  constructor(name: string, bound: CacheBound<K, V>) {
    this.cache = new BoundedCache(name, bound);
  }

  get name(): string {
    return this.cache.name;
  }

  /** The entry for `key` made at `version`, if kept (counted as a hit or a miss). */
  get(version: number, key: K): V | undefined {
    if (version !== this.version) {
      this.cache.misses++;
      return undefined;
    }
    return this.cache.get(key);
  }

  /** Keeps `value` for `key` at `version`: a newer version than the one held replaces all, an older one is dropped. */
  set(version: number, key: K, value: V): void {
    if (this.version === undefined || version > this.version) {
      this.version = version;
      this.cache.clear();
    } else if (version < this.version) return;
    this.cache.set(key, value);
  }

  get size(): number {
    return this.cache.size;
  }

  figures(): CacheFigures {
    return this.cache.figures();
  }
}

/** `compute`, its results kept in `cache` per input: for what costs more than a lookup and never changes. */
export function memoized<K extends string, V extends NonNullable<unknown>>(
  cache: BoundedCache<K, V>,
  compute: (input: K) => V,
): (input: K) => V {
  return (input) => {
    let value = cache.get(input);
    if (value === undefined) {
      value = compute(input);
      cache.set(input, value);
    }
    return value;
  };
}

/** Sums the figures of caches that share a name (one per store or app opened in the process). */
function merged(a: CacheFigures, b: CacheFigures): CacheFigures {
  const sum = (x: number | undefined, y: number | undefined) => (x === undefined ? y : x + (y ?? 0));
  return {
    name: a.name,
    entries: a.entries + b.entries,
    maxEntries: sum(a.maxEntries, b.maxEntries),
    bytes: sum(a.bytes, b.bytes),
    maxBytes: sum(a.maxBytes, b.maxBytes),
    hits: a.hits + b.hits,
    misses: a.misses + b.misses,
  };
}

/** The caches of one node, listed for the metrics. */
export class CacheRegistry {
  private readonly caches: CountedCache[] = [];

  /** Lists `cache` and returns it. */
  add<C extends CountedCache>(cache: C): C {
    this.caches.push(cache);
    return cache;
  }

  /** The figures of every cache listed, those of one name summed, in name order. */
  figures(): CacheFigures[] {
    const byName = new Map<string, CacheFigures>();
    for (const cache of this.caches) {
      const f = cache.figures();
      const seen = byName.get(f.name);
      byName.set(f.name, seen === undefined ? f : merged(seen, f));
    }
    return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }
}
