/**
 * The hazard classification the sources' normalisers use: domain/hazard-rules.ts's `classifyHazard`, each text's
 * category kept in the `hazard-texts` cache, since one wording recurs across a recall event's products and the
 * table is costly. Filled by the ingest (its own process), never by an API node.
 */
import { classifyHazard as classify } from '../domain/hazard-rules.ts';
import type { HazardCategory } from '../domain/taxonomy.ts';
import { BoundedCache, memoized } from '../node/caches.ts';

const classified = memoized(
  new BoundedCache<string, { category: HazardCategory | null }>('hazard-texts', { max: 4096 }),
  (text) => ({ category: classify(text) }),
);

/** The canonical hazard category (domain/hazard-rules.ts), kept per text. */
export function classifyHazard(text: string | null): HazardCategory | null {
  return text === null ? null : classified(text).category;
}
