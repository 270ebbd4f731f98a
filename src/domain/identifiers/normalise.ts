/**
 * The one normaliser that ingestion, single lookups and catalogue checks share, so a value
 * supplied by a caller is normalised exactly as it was at ingestion
 * (../shared/spec/identifiers.md).
 */
import { normaliseGtin } from './gtin.ts';
import { IDENTIFIER_KINDS, parseKind, reject, type Normalised } from './kinds.ts';
import { cleanTextWithin, stripLabel } from './labels.ts';
import { normaliseNdc } from './ndc.ts';
import { isPlaceholder, normaliseTextCode } from './text-codes.ts';
import { normaliseUdi } from './udi.ts';
import { normaliseVin } from './vin.ts';

/**
 * Values longer than this many UTF-16 code units are refused (`invalid_length`) unread, and so
 * are values whose NFKC form is longer: the work per value is bounded after normalisation.
 */
export const MAX_VALUE_LENGTH = 512;

/**
 * Normalises one identifier value of the given kind (case-insensitive: `UPC` is `upc`).
 *
 * Returns the canonical form used for matching (14-digit GTIN, 11- or 9-digit NDC,
 * `hibcc:<DI>` …), with `checkDigitValid` for a VIN and `lot` for a UDI that carries one; or a
 * rejection with its reason and a short sentence for API users in `detail`. Before any rule
 * the value goes through Unicode NFKC, trimming and label stripping (`UPC:`, `Lot #` …);
 * placeholder text (`N/A`, `All lots`, `No UDI Codes provided`) is `empty`. Never guesses:
 * no check digit is repaired and no ambiguous value is resolved. Pure and synchronous.
 */
export function normaliseIdentifier(kind: string, value: string): Normalised {
  const k = typeof kind === 'string' ? parseKind(kind) : undefined;
  if (k === undefined) {
    const shown = typeof kind === 'string' ? `"${kind.slice(0, 40)}"` : 'missing';
    return reject(
      'unknown_kind',
      `identifier kind ${shown} is unknown; use one of ${IDENTIFIER_KINDS.join(', ')}`,
    );
  }
  if (typeof value !== 'string') return reject('empty', 'no value given');
  if (value.length > MAX_VALUE_LENGTH) {
    return reject('invalid_length', `the value is longer than ${MAX_VALUE_LENGTH} characters`);
  }
  const cleaned = cleanTextWithin(value, MAX_VALUE_LENGTH);
  if (cleaned === undefined) {
    return reject(
      'invalid_length',
      `the value is longer than ${MAX_VALUE_LENGTH} characters once normalised (Unicode NFKC)`,
    );
  }
  const { value: text, label } = stripLabel(cleaned);
  if (text === '')
    return reject('empty', label === null ? 'the value is empty' : `nothing follows the label "${label}"`);
  if (isPlaceholder(text)) return reject('empty', 'placeholder text, not an identifier');

  switch (k) {
    case 'gtin':
    case 'upc':
    case 'ean': {
      const r = normaliseGtin(k, text);
      return r.ok ? { ok: true, kind: k, normalized: r.normalized } : r;
    }
    case 'vin': {
      const r = normaliseVin(text);
      return r.ok ? { ok: true, kind: k, normalized: r.normalized, checkDigitValid: r.checkDigitValid } : r;
    }
    case 'ndc': {
      const r = normaliseNdc(text);
      return r.ok ? { ok: true, kind: k, normalized: r.normalized } : r;
    }
    case 'udi': {
      const r = normaliseUdi(text);
      if (!r.ok) return r;
      return r.lot === undefined
        ? { ok: true, kind: k, normalized: r.normalized }
        : { ok: true, kind: k, normalized: r.normalized, lot: r.lot };
    }
    case 'model':
    case 'lot':
    case 'batch': {
      const r = normaliseTextCode(text);
      return r.ok ? { ok: true, kind: k, normalized: r.normalized } : r;
    }
  }
}
