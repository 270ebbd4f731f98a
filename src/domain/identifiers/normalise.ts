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

// eslint-disable-next-line no-control-regex -- the control characters are what is looked for
const CONTROL = /[\u0000-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex
const CONTROL_BUT_GS = /[\u0000-\u001c\u001e\u001f\u007f]/;
/** A GS1 element string or scan, where GS (U+001D, FNC1) ends a variable-length field. */
const GS1_WITH_GS = /^(?:\](?:C1|e0|d2|Q3|J1)|\(\d{2,4}\)|\d{2,4})/;

/** Control characters are `invalid_characters`, but for GS inside a GS1 element string or scan of a GS1 kind. */
function refuseControls(kind: string, text: string): Normalised | undefined {
  if (!CONTROL.test(text)) return undefined;
  const gs1Kind = kind === 'gtin' || kind === 'upc' || kind === 'ean' || kind === 'udi';
  if (gs1Kind && !CONTROL_BUT_GS.test(text) && GS1_WITH_GS.test(text)) return undefined;
  const code = CONTROL.exec(text)![0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  return reject(
    'invalid_characters',
    code === '001D'
      ? 'contains GS (U+001D), which only a GS1 element string or scan of a gtin, upc, ean or udi may hold'
      : `contains the control character U+${code}`,
  );
}

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
  const control = refuseControls(k, cleaned);
  if (control) return control;
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
