/** Match keys: kinds that name the same thing share one (../shared/spec/identifiers.md, "Match families"). */
import type { IdentifierKind } from './kinds.ts';
import { parseRule, ruleKey, ruleProbeKeys } from './match-rules.ts';

/** Key families; `udi` covers HIBCC and ICCBBA, a GS1 udi is `gs1`. */
export type MatchFamily = 'gs1' | 'lot' | 'model' | 'vin' | 'ndc' | 'udi';

/** The keys of one stored identifier. */
export interface StorageKeys {
  /** `<family>:<normalized>`, e.g. `gs1:00012345678905`, `lot:A213B1`, `udi:hibcc:X999123ABC0`. */
  matchKey: string;
  /** For an 11-digit NDC, `ndc:<first 9 digits>` (its labeler + product); otherwise null. */
  productKey: string | null;
}

/** The keys a lookup searches: rows whose match_key is in `matchKeys` or product_key in `productKeys`. */
export interface LookupKeys {
  matchKeys: string[];
  productKeys: string[];
  /** The buckets of the match rules that may hold the value (models and lots; match-rules.ts). */
  ruleKeys: string[];
  /** The normalised value looked up: a rule found under `ruleKeys` is a match only when it holds it. */
  normalized: string;
}

/** A `udi` is `gs1` when its normalised DI is a GTIN-14, `udi` when `hibcc:…` or `iccbba:…`. */
export function matchFamily(kind: IdentifierKind, normalized: string): MatchFamily {
  switch (kind) {
    case 'gtin':
    case 'upc':
    case 'ean':
      return 'gs1';
    case 'udi':
      return /^\d+$/.test(normalized) ? 'gs1' : 'udi';
    case 'lot':
    case 'batch':
      return 'lot';
    case 'model':
    case 'vin':
    case 'ndc':
      return kind;
  }
}

/**
 * Keys to store; an 11-digit NDC also gets its 9-digit product key, so a product finds its packages. A match
 * rule of a model or lot (`KX2040GC*`, `A2001..A2308`) is stored under its bucket (match-rules.ts).
 */
export function storageKeys(kind: IdentifierKind, normalized: string): StorageKeys {
  const family = matchFamily(kind, normalized);
  if (family === 'model' || family === 'lot') {
    const rule = parseRule(normalized);
    if (rule !== undefined) return { matchKey: ruleKey(family, rule), productKey: null };
  }
  const matchKey = `${family}:${normalized}`;
  const productKey = kind === 'ndc' && /^\d{11}$/.test(normalized) ? `ndc:${normalized.slice(0, 9)}` : null;
  return { matchKey, productKey };
}

/**
 * Lookup keys: a product NDC also finds its packages; an 11-digit package its product, not siblings; a model
 * or lot also probes the buckets of the rules that may hold it (each rule found there confirmed by
 * `ruleMatches`).
 */
export function lookupKeys(kind: IdentifierKind, normalized: string): LookupKeys {
  const family = matchFamily(kind, normalized);
  const matchKey = `${family}:${normalized}`;
  if (family === 'model' || family === 'lot')
    return {
      matchKeys: [matchKey],
      productKeys: [],
      ruleKeys: ruleProbeKeys(family, normalized),
      normalized,
    };
  if (kind === 'ndc' && /^\d{9}$/.test(normalized))
    return { matchKeys: [matchKey], productKeys: [matchKey], ruleKeys: [], normalized };
  if (kind === 'ndc' && /^\d{11}$/.test(normalized)) {
    return {
      matchKeys: [matchKey, `ndc:${normalized.slice(0, 9)}`],
      productKeys: [],
      ruleKeys: [],
      normalized,
    };
  }
  return { matchKeys: [matchKey], productKeys: [], ruleKeys: [], normalized };
}
