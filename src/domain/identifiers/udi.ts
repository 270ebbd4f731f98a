/**
 * UDIs (../shared/spec/identifiers.md, "Rules per kind"): only the device identifier is the key
 * (GTIN-14, `hibcc:<DI>` or `iccbba:<DI>`); the lot is returned to be stored as a `lot` identifier.
 */
import { looksLikeGs1Syntax, parseGs1, splitSymbology } from './gs1-syntax.ts';
import { checkedGtin } from './gtin.ts';
import { reject, type Rejection } from './kinds.ts';
import { normaliseTextCode } from './text-codes.ts';

/** The DI key and, when the UDI carries one, its lot. */
export type UdiResult = { ok: true; normalized: string; lot?: string } | Rejection;

/** The lot normalised by the `lot` rules; dropped when it does not normalise. */
function withLot(normalized: string, rawLot: string | null | undefined): UdiResult {
  if (rawLot) {
    const lot = normaliseTextCode(rawLot);
    if (lot.ok) return { ok: true, normalized, lot: lot.normalized };
  }
  return { ok: true, normalized };
}

// HIBCC (HIBC LIC)

/** HIBC characters in mod-43 value order. */
const HIBC_CHARSET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-. $/+%';

/** The HIBC mod-43 check character of `data`. */
export function hibccCheckCharacter(data: string): string {
  let sum = 0;
  for (const c of data) sum += HIBC_CHARSET.indexOf(c);
  return HIBC_CHARSET.charAt(sum % 43);
}

/** HIBCC primary DI: LIC (letter + 3), product code (1-18), unit-of-measure digit. */
const HIBCC_PRIMARY = /^[A-Z][A-Z0-9]{3}[A-Z0-9]{1,18}[0-9]$/;

/** Characters to skip after `$$` (and its quantity) per expiry-date format flag. */
const HIBCC_DATE_SKIP: Readonly<Record<string, number>> = {
  '0': 4, // MMYY (the flag is the first digit of the month)
  '1': 4,
  '2': 7, // 2MMDDYY
  '3': 7, // 3YYMMDD
  '4': 9, // 4YYMMDDHH
  '5': 6, // 5YYJJJ
  '6': 8, // 6YYJJJHH
  '7': 1, // 7: no date
};

/** The lot in HIBCC secondary data (`$$0519` `1234AB`, `$` `LOT`, `YYJJJ` `LOT`); undefined if none. */
function hibccLot(secondary: string): string | undefined {
  if (secondary.startsWith('$$+') || secondary.startsWith('$+')) return undefined; // serial, not lot
  if (secondary.startsWith('$$')) {
    let rest = secondary.slice(2);
    if (rest.startsWith('8'))
      rest = rest.slice(3); // 2-digit quantity
    else if (rest.startsWith('9')) rest = rest.slice(6); // 5-digit quantity
    const skip = HIBCC_DATE_SKIP[rest.charAt(0)];
    return skip === undefined ? undefined : rest.slice(skip);
  }
  if (secondary.startsWith('$')) return secondary.slice(1);
  if (/^\d{5}/.test(secondary)) return secondary.slice(5); // YYJJJ then lot
  return undefined;
}

function normaliseHibcc(text: string): UdiResult {
  const s = text.toUpperCase();
  if (!/^\+[0-9A-Z\-. $/+%]{2,}$/.test(s)) {
    return reject('invalid_characters', 'a HIBCC UDI has only letters, digits and - . space $ / + %');
  }
  const expected = hibccCheckCharacter(s.slice(0, -1));
  if (s.slice(-1) !== expected) {
    return reject('invalid_check_digit', `HIBCC check character does not verify (expected ${expected})`);
  }
  const [primary = '', secondary] = s.slice(1, -1).split('/');
  if (primary === '' || primary.startsWith('$') || /^\d/.test(primary)) {
    return reject('invalid_characters', 'HIBCC secondary data alone carries no device identifier');
  }
  if (primary.length < 6 || primary.length > 23) {
    return reject(
      'invalid_length',
      'a HIBCC device identifier has 6 to 23 characters (LIC, product code, unit of measure)',
    );
  }
  if (!HIBCC_PRIMARY.test(primary)) {
    return reject(
      'invalid_characters',
      'a HIBCC device identifier is a letter-led LIC, a product code and a unit-of-measure digit',
    );
  }
  return withLot(`hibcc:${primary}`, secondary === undefined ? undefined : hibccLot(secondary));
}

// ICCBBA (ISBT 128)

function normaliseIccbba(text: string): UdiResult {
  const s = text.toUpperCase();
  if (!s.startsWith('=/')) {
    return reject(
      'invalid_characters',
      'an ICCBBA UDI starts with "=/" and its 16-character device identifier',
    );
  }
  const di = s.slice(2, 18);
  const next = s.charAt(18);
  if (di.length < 16 || (next !== '' && next !== '=' && next !== '&')) {
    return reject('invalid_length', 'an ICCBBA device identifier has 16 characters after "=/"');
  }
  if (!/^[A-Z0-9]{16}$/.test(di)) {
    return reject('invalid_characters', 'an ICCBBA device identifier has only letters and digits');
  }
  // Data structure 031, MPHO lot number: "&,1" then 18 characters.
  const lotAt = s.indexOf('&,1', 18);
  return withLot(`iccbba:${di}`, lotAt < 0 ? undefined : s.slice(lotAt + 3, lotAt + 21));
}

/** Canonical keys given back as input (`hibcc:X999123ABC0`), so a normalised value is stable. */
function fromCanonical(text: string): UdiResult | undefined {
  const m = /^(hibcc|iccbba):(.*)$/i.exec(text);
  if (!m) return undefined;
  const agency = (m[1] ?? '').toLowerCase();
  const di = (m[2] ?? '').trim().toUpperCase();
  const valid = agency === 'hibcc' ? HIBCC_PRIMARY.test(di) : /^[A-Z0-9]{16}$/.test(di);
  if (!valid) return reject('invalid_characters', `not a valid ${agency.toUpperCase()} device identifier`);
  return { ok: true, normalized: `${agency}:${di}` };
}

/**
 * The DI key: GS1 (any syntax, AI 01 and lot AI 10), HIBCC (`+…`, mod-43 check must verify, lot
 * from secondary data) or ICCBBA (`=/` + 16 characters, MPHO lot `&,1`); the lot already normalised.
 */
export function normaliseUdi(value: string): UdiResult {
  let text = value.trim();
  // Plain-data scans (]Q1, ]d1 …) of HIBCC or ICCBBA; GS1 scans go to parseGs1.
  const scan = splitSymbology(text);
  if (scan?.family === 'other') text = scan.payload.trim();
  // Code 39 start/stop characters as some readers transmit them.
  if (/^\*.+\*$/.test(text)) text = text.slice(1, -1);

  const canonical = fromCanonical(text);
  if (canonical) return canonical;
  if (text.startsWith('+')) return normaliseHibcc(text);
  if (text.startsWith('=') || text.startsWith('&')) return normaliseIccbba(text);

  if (looksLikeGs1Syntax(text) || /^01\d{14}/.test(text)) {
    const parsed = parseGs1(text);
    if (!parsed.ok) return parsed;
    if (parsed.data.gtin === null) {
      return reject('invalid_characters', 'the GS1 data carries no device identifier (AI 01)');
    }
    return withLot(parsed.data.gtin, parsed.data.lot);
  }
  const digits = text.replace(/[\s-]+/g, '');
  if (/^\d+$/.test(digits)) {
    if (![8, 12, 13, 14].includes(digits.length)) {
      return reject(
        'invalid_length',
        `${digits.length} digits is not a GTIN length (8, 12, 13 or 14 digits)`,
      );
    }
    return checkedGtin(digits);
  }
  return reject('invalid_characters', 'not a GS1, HIBCC or ICCBBA UDI');
}
