/**
 * The matching key space (../shared/spec/identifiers.md, "Match families"). Kinds that name the
 * same thing share one key space: a stored row carries a `match_key` and, for an 11-digit NDC, a
 * `product_key`; a lookup asks `WHERE match_key IN (matchKeys) OR product_key IN (productKeys)`.
 */
import type { IdentifierKind } from './kinds.ts';

/**
 * The key families: `gs1` (gtin, upc, ean and GS1 udi), `lot` (lot, batch), `model`, `vin`,
 * `ndc`, and `udi` (HIBCC and ICCBBA udi).
 */
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
}

/**
 * The family a normalised identifier belongs to. A `udi` is `gs1` when its normalised DI is a
 * GTIN (14 digits) and `udi` when it is `hibcc:…` or `iccbba:…`.
 */
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
 * The keys to store for a normalised identifier (the `normalized` of a successful
 * `normaliseIdentifier`). An 11-digit NDC also gets the product key of its first 9 digits, so
 * a lookup by product NDC finds every package of that product.
 */
export function storageKeys(kind: IdentifierKind, normalized: string): StorageKeys {
  const matchKey = `${matchFamily(kind, normalized)}:${normalized}`;
  const productKey = kind === 'ndc' && /^\d{11}$/.test(normalized) ? `ndc:${normalized.slice(0, 9)}` : null;
  return { matchKey, productKey };
}

/**
 * The keys a lookup of a normalised identifier searches. For NDCs (../shared/spec/identifiers.md,
 * "ndc"): a 9-digit product key P finds a stored `ndc:P` and every stored package whose product
 * key is `ndc:P`; an 11-digit package X finds a stored `ndc:X` and a stored product key
 * `ndc:<first 9 of X>`, but not the other packages of that product. Every other identifier finds
 * exactly its own match key.
 */
export function lookupKeys(kind: IdentifierKind, normalized: string): LookupKeys {
  const { matchKey } = storageKeys(kind, normalized);
  if (kind === 'ndc' && /^\d{9}$/.test(normalized)) return { matchKeys: [matchKey], productKeys: [matchKey] };
  if (kind === 'ndc' && /^\d{11}$/.test(normalized)) {
    return { matchKeys: [matchKey, `ndc:${normalized.slice(0, 9)}`], productKeys: [] };
  }
  return { matchKeys: [matchKey], productKeys: [] };
}
