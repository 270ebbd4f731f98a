/** `gtin`, `upc`, `ean` (bare or GS1 syntax) as GTIN-14 (../shared/spec/identifiers.md, "Rules per kind"). */
import { expandUpcE, gs1CheckDigit, isbn10ToIsbn13 } from './gs1-check-digits.ts';
import { looksLikeGs1Syntax, parseGs1, splitSymbology, type Gs1ParseResult } from './gs1-syntax.ts';
import { reject, type Rejection } from './kinds.ts';

/** The kinds that take the GTIN rules. */
export type GtinKind = 'gtin' | 'upc' | 'ean';
/** A 14-digit GTIN, or why there is none. */
export type GtinResult = { ok: true; normalized: string } | Rejection;

/** 8–14 digits as a GTIN-14 once the check digit verifies; `what` opens the refusal's detail. */
export function checkedGtin(code: string, what = ''): GtinResult {
  const expected = gs1CheckDigit(code.slice(0, -1));
  if (expected !== Number(code.slice(-1))) {
    return reject('invalid_check_digit', `${what}check digit does not verify (expected ${expected})`);
  }
  return { ok: true, normalized: code.padStart(14, '0') };
}

/** A 12-digit UPC-A whose leading zeros a spreadsheet dropped (it stores the column as a number). */
function lostZeros(digits: string): GtinResult {
  const upcA = digits.padStart(12, '0');
  const lost = 12 - digits.length;
  return checkedGtin(
    upcA,
    `read as UPC-A ${upcA} that lost ${lost} leading zero${lost === 1 ? '' : 's'}, the `,
  );
}

function byLength(kind: GtinKind, digits: string): GtinResult {
  switch (digits.length) {
    case 14:
    case 13:
    case 12:
      return checkedGtin(digits);
    case 8: {
      const upcA = kind === 'upc' ? expandUpcE(digits) : undefined;
      return upcA ? checkedGtin(upcA, `UPC-E expanded to UPC-A ${upcA}, but its `) : checkedGtin(digits);
    }
    case 10: {
      // An ISBN-10 first (never for `upc`); otherwise, like 9 and 11, a padded UPC-A.
      const isbn13 = kind === 'upc' ? undefined : isbn10ToIsbn13(digits);
      if (isbn13) return { ok: true, normalized: isbn13.padStart(14, '0') };
      return lostZeros(digits);
    }
    case 9:
    case 11:
      return lostZeros(digits);
    default:
      return reject(
        'invalid_length',
        `${digits.length} digit${digits.length === 1 ? '' : 's'} is not a GTIN length (8 to 14 digits)`,
      );
  }
}

function fromGs1(parsed: Gs1ParseResult): GtinResult {
  if (!parsed.ok) return parsed;
  if (parsed.data.gtin === null) return reject('invalid_characters', 'the GS1 data carries no GTIN (AI 01)');
  return { ok: true, normalized: parsed.data.gtin };
}

/**
 * Spaces, hyphens, dots go; GS1 syntax yields its AI 01. 8 digits are UPC-E for `upc` (0/1 first),
 * 9–11 a UPC-A missing leading zeros, 10 first an ISBN-10 (not `upc`). A check digit is never repaired.
 */
export function normaliseGtin(kind: GtinKind, value: string): GtinResult {
  const text = value.trim();
  const symbology = splitSymbology(text);
  if (symbology?.family === 'ean') {
    const payload = symbology.id === ']E3' ? symbology.payload.slice(0, 13) : symbology.payload;
    if (!/^\d+$/.test(payload))
      return reject('invalid_characters', `scan ${symbology.id} must carry digits only`);
    return byLength(kind, payload);
  }
  if (symbology?.family === 'other') return normaliseGtin(kind, symbology.payload);
  if (looksLikeGs1Syntax(text)) return fromGs1(parseGs1(text));
  const compact = text.replace(/[\s.-]+/g, '');
  if (/^\d+$/.test(compact)) return byLength(kind, compact);
  if (kind !== 'upc' && /^\d{9}X$/i.test(compact)) {
    const isbn13 = isbn10ToIsbn13(compact);
    if (isbn13) return { ok: true, normalized: isbn13.padStart(14, '0') };
    return reject('invalid_check_digit', 'ISBN-10 check character does not verify');
  }
  // An unbracketed element string written without FNC1 markers: AI 01, 14 digits, then more AIs.
  if (/^01\d{14}\d*[^\d\s.-]/.test(text)) return fromGs1(parseGs1(text));
  const bad = /[^\d]/.exec(compact);
  return reject('invalid_characters', `contains "${bad?.[0] ?? ''}"; a GTIN has only digits`);
}
