/** The one normaliser shared by ingestion, lookups and checks (../shared/spec/identifiers.md). */
import { normaliseGtin } from './gtin.ts';
import { IDENTIFIER_KINDS, parseKind, reject, type Normalised } from './kinds.ts';
import { cleanTextWithin, stripLabel } from './labels.ts';
import { normaliseNdc } from './ndc.ts';
import { isPlaceholder, normaliseTextCode } from './text-codes.ts';
import { normaliseUdi } from './udi.ts';
import { normaliseVin } from './vin.ts';

/** Longest value (and NFKC form), in UTF-16 units; longer is `invalid_length` unread, bounding the work. */
export const MAX_VALUE_LENGTH = 512;

/**
 * Normalises a value of `kind` (any case) to its canonical form (14-digit GTIN, `hibcc:<DI>` …) or
 * a rejection with `detail`; NFKC, trim and label stripping first, placeholders are `empty`. Never guesses.
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
