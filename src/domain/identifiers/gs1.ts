/**
 * GS1 identifiers: GTIN-8/12/13/14 as `gtin`, `upc` and `ean` (identifiers.md, "gtin, upc,
 * ean"), and the GS1 carriers they arrive in: element strings (`(01)…(10)…`, or unbracketed
 * with FNC1/GS separators), scans with a symbology identifier (`]E0`, `]d2`, `]C1`, `]Q1` …)
 * and GS1 Digital Link URIs. The canonical GTIN is 14 digits.
 */
import type { Normalised } from './kinds.ts';

type Rejection = Extract<Normalised, { ok: false }>;
/** The kinds that take the GTIN rules. */
export type GtinKind = 'gtin' | 'upc' | 'ean';
/** The outcome of the GTIN rules: a 14-digit GTIN, or why there is none. */
export type GtinResult = { ok: true; normalized: string } | Rejection;

/** The ASCII group separator, which stands for FNC1 in scanned unbracketed element strings. */
export const GS = '\x1d';

function reject(reason: Rejection['reason'], detail: string): Rejection {
  return { ok: false, reason, detail };
}

// ---------------------------------------------------------------------------------------------
// Check digits and conversions
// ---------------------------------------------------------------------------------------------

/** The GS1 mod-10 check digit for `body` (all digits of a code except its check digit). */
export function gs1CheckDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    // The digit next to the check digit weighs 3, then 1, 3, 1 … leftwards.
    const weight = (body.length - i) % 2 === 1 ? 3 : 1;
    sum += Number(body.charAt(i)) * weight;
  }
  return (10 - (sum % 10)) % 10;
}

/** Whether the last digit of an all-digit code is its GS1 mod-10 check digit. */
export function hasValidGs1CheckDigit(code: string): boolean {
  return /^\d{2,}$/.test(code) && gs1CheckDigit(code.slice(0, -1)) === Number(code.slice(-1));
}

/**
 * Expands an 8-digit UPC-E (number system 0 or 1) into its 12-digit UPC-A, keeping the
 * printed check digit (it is verified on the UPC-A by the caller). `undefined` if the value
 * is not an 8-digit UPC-E.
 */
export function expandUpcE(upcE: string): string | undefined {
  if (!/^[01]\d{7}$/.test(upcE)) return undefined;
  const ns = upcE.charAt(0);
  const [a, b, c, d, e, f] = upcE.slice(1, 7);
  const check = upcE.charAt(7);
  let body: string;
  switch (f) {
    case '0':
    case '1':
    case '2':
      body = `${a}${b}${f}0000${c}${d}${e}`;
      break;
    case '3':
      body = `${a}${b}${c}00000${d}${e}`;
      break;
    case '4':
      body = `${a}${b}${c}${d}00000${e}`;
      break;
    default:
      body = `${a}${b}${c}${d}${e}0000${f}`;
  }
  return `${ns}${body}${check}`;
}

/** Whether a 10-character string is an ISBN-10 whose mod-11 check character holds. */
export function isValidIsbn10(isbn: string): boolean {
  if (!/^\d{9}[\dX]$/i.test(isbn)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) {
    const c = isbn.charAt(i).toUpperCase();
    sum += (10 - i) * (c === 'X' ? 10 : Number(c));
  }
  return sum % 11 === 0;
}

/** The 978 ISBN-13 (an EAN-13) of a valid ISBN-10; `undefined` if the ISBN-10 is not valid. */
export function isbn10ToIsbn13(isbn: string): string | undefined {
  if (!isValidIsbn10(isbn)) return undefined;
  const body = `978${isbn.slice(0, 9)}`;
  return `${body}${gs1CheckDigit(body)}`;
}

// ---------------------------------------------------------------------------------------------
// Application identifiers
// ---------------------------------------------------------------------------------------------

interface AiSpec {
  readonly pattern: RegExp;
  readonly min: number;
  readonly max: number;
  /** Digits only; otherwise the GS1 82-character set. */
  readonly numeric: boolean;
}

/** The AIs this parser knows, with their value lengths (GS1 General Specifications 3.2). */
const AI_TABLE: readonly AiSpec[] = [
  { pattern: /^00$/, min: 18, max: 18, numeric: true },
  { pattern: /^0[1-3]$/, min: 14, max: 14, numeric: true },
  { pattern: /^10$/, min: 1, max: 20, numeric: false },
  { pattern: /^1[1235-7]$/, min: 6, max: 6, numeric: true },
  { pattern: /^20$/, min: 2, max: 2, numeric: true },
  { pattern: /^2[12]$/, min: 1, max: 20, numeric: false },
  { pattern: /^235$/, min: 1, max: 28, numeric: false },
  { pattern: /^24[01]$/, min: 1, max: 30, numeric: false },
  { pattern: /^242$/, min: 1, max: 6, numeric: true },
  { pattern: /^243$/, min: 1, max: 20, numeric: false },
  { pattern: /^25[01]$/, min: 1, max: 30, numeric: false },
  { pattern: /^253$/, min: 13, max: 30, numeric: false },
  { pattern: /^254$/, min: 1, max: 20, numeric: false },
  { pattern: /^255$/, min: 13, max: 25, numeric: true },
  { pattern: /^30$/, min: 1, max: 8, numeric: true },
  { pattern: /^3[1-6]\d\d$/, min: 6, max: 6, numeric: true },
  { pattern: /^37$/, min: 1, max: 8, numeric: true },
  { pattern: /^39\d\d$/, min: 1, max: 18, numeric: true },
  { pattern: /^40[013]$/, min: 1, max: 30, numeric: false },
  { pattern: /^402$/, min: 17, max: 17, numeric: true },
  { pattern: /^41[0-7]$/, min: 13, max: 13, numeric: true },
  { pattern: /^42[0-7]$/, min: 1, max: 15, numeric: false },
  { pattern: /^43\d\d$/, min: 1, max: 70, numeric: false },
  { pattern: /^70\d\d$/, min: 1, max: 30, numeric: false },
  { pattern: /^71\d$/, min: 1, max: 20, numeric: false },
  { pattern: /^72\d\d$/, min: 1, max: 30, numeric: false },
  { pattern: /^8001$/, min: 14, max: 14, numeric: true },
  { pattern: /^80(06|17|18|26)$/, min: 18, max: 18, numeric: true },
  { pattern: /^80\d\d$/, min: 1, max: 90, numeric: false },
  { pattern: /^8[12]\d\d$/, min: 1, max: 70, numeric: false },
  { pattern: /^90$/, min: 1, max: 30, numeric: false },
  { pattern: /^9[1-9]$/, min: 1, max: 90, numeric: false },
];

/** AIs whose value ends in a GS1 mod-10 check digit. */
const CHECKED_AIS = /^(00|0[1-3]|41[0-7]|80(17|18))$/;

/**
 * AI prefixes of predefined length, which need no FNC1 after them in unbracketed data:
 * prefix → value length (GS1 General Specifications figure 7.8.5-2).
 */
// prettier-ignore
const PREDEFINED_LENGTH: Readonly<Record<string, number>> = {
  '00': 18, '01': 14, '02': 14, '03': 14, '04': 16,
  '11': 6, '12': 6, '13': 6, '14': 6, '15': 6, '16': 6, '17': 6, '18': 6, '19': 6, '20': 2,
  '31': 6, '32': 6, '33': 6, '34': 6, '35': 6, '36': 6, '41': 13,
};

/** The GS1 AI encodable character set 82 (no spaces). */
const CSET82 = /^[!"%&'()*+,\-./0-9:;<=>?A-Z_a-z]+$/;

/** Digital Link primary-key AIs (those that may start the AI part of a DL path). */
const DL_PRIMARY_KEYS = new Set([
  '00',
  '01',
  '253',
  '255',
  '401',
  '402',
  '414',
  '417',
  '8003',
  '8004',
  '8006',
  '8010',
  '8013',
  '8017',
  '8018',
]);

/** Digital Link convenience names for AIs. */
// prettier-ignore
const DL_ALIASES: Readonly<Record<string, string>> = {
  gtin: '01', sscc: '00', lot: '10', ser: '21', cpv: '22', exp: '17', bbd: '15', expdt: '7003',
  gln: '414', itip: '8006', gmn: '8013', cpid: '8010', giai: '8004', grai: '8003',
};

function aiSpec(ai: string): AiSpec | undefined {
  return AI_TABLE.find((s) => s.pattern.test(ai));
}

/** The length of the AI at the start of unbracketed data, from its first two digits. */
function aiLengthAt(data: string): 2 | 3 | 4 | undefined {
  const p = data.slice(0, 2);
  if (/^(0[0-4]|1\d|2[0-2]|30|37|9\d)$/.test(p)) return 2;
  if (/^(2[3-5]|4[0-2]|71)$/.test(p)) return 3;
  if (/^(3[1-69]|43|70|72|8[0-2])$/.test(p)) return 4;
  return undefined;
}

/** One AI and its value. */
export interface Gs1Element {
  ai: string;
  value: string;
}

/** GS1 data read from an element string, a scan or a Digital Link. */
export interface Gs1Data {
  syntax: 'element-string' | 'digital-link' | 'ean-scan';
  /** Every AI in the order found. */
  elements: Gs1Element[];
  /** The GTIN of AI 01 as 14 digits, its check digit verified; null when there is no AI 01. */
  gtin: string | null;
  /** The lot of AI 10 exactly as encoded (percent-decoded for a Digital Link); null if absent. */
  lot: string | null;
}

/** The outcome of parsing GS1 data. */
export type Gs1ParseResult = { ok: true; data: Gs1Data } | Rejection;

/** The symbology identifier of a scan (`]d2…`) and what it says about the data after it. */
interface Symbology {
  id: string;
  /** `gs1`: unbracketed AI data; `ean`: EAN/UPC digits; `other`: plain data (may carry a DL URI). */
  family: 'gs1' | 'ean' | 'other';
  payload: string;
}

/** Splits a symbology identifier (ISO/IEC 15424, `]` + code + modifier) from scanned data. */
function splitSymbology(value: string): Symbology | undefined {
  const m = /^\]([A-Za-z])([0-9A-Za-z])/.exec(value);
  if (!m) return undefined;
  const id = `]${m[1]}${m[2]}`;
  const payload = value.slice(3);
  if (/^\](C1|e0|d2|Q3|J1)$/.test(id)) return { id, family: 'gs1', payload };
  if (/^\]E[0-4]$/.test(id)) return { id, family: 'ean', payload };
  return { id, family: 'other', payload };
}

/**
 * Whether a value is written in a GS1 syntax rather than as a bare code: a bracketed element
 * string, a Digital Link (`http(s)://…`), a scan with a symbology identifier, or unbracketed
 * data marked by FNC1 (a leading `^` or a GS character).
 */
export function looksLikeGs1Syntax(value: string): boolean {
  return (
    /^\(\d{2,4}\)/.test(value) ||
    /^https?:\/\//i.test(value) ||
    splitSymbology(value) !== undefined ||
    value.startsWith('^') ||
    value.includes(GS) ||
    value.includes('\u241d')
  );
}

/** Reads bracketed data: `(01)09520123456788(10)ABC1`; whitespace around values is ignored. */
function readBracketed(data: string): Gs1Element[] | Rejection {
  const element = /\((\d{2,4})\)([^()]*)/y;
  const elements: Gs1Element[] = [];
  let pos = 0;
  while (pos < data.length) {
    element.lastIndex = pos;
    const m = element.exec(data);
    if (!m) {
      return reject('invalid_characters', `malformed GS1 element string near "${data.slice(pos, pos + 12)}"`);
    }
    elements.push({ ai: m[1] ?? '', value: (m[2] ?? '').trim() });
    pos = element.lastIndex;
  }
  return elements;
}

/** Reads unbracketed data where FNC1 is a GS character (or `^` when the data starts with `^`). */
function readUnbracketed(raw: string): Gs1Element[] | Rejection {
  let data = raw.replaceAll('\u241d', GS);
  if (data.startsWith('^')) data = data.replaceAll('^', GS);
  const elements: Gs1Element[] = [];
  let pos = 0;
  while (pos < data.length) {
    if (data.charAt(pos) === GS) {
      pos++;
      continue;
    }
    const rest = data.slice(pos);
    const length = aiLengthAt(rest);
    const ai = rest.slice(0, length ?? 2);
    if (length === undefined || !/^\d+$/.test(ai) || !aiSpec(ai)) {
      return reject('invalid_characters', `unknown GS1 application identifier at "${rest.slice(0, 12)}"`);
    }
    pos += length;
    const fixed = PREDEFINED_LENGTH[ai.slice(0, 2)];
    let end: number;
    if (fixed !== undefined) {
      end = Math.min(pos + fixed, data.length);
    } else {
      end = data.indexOf(GS, pos);
      if (end < 0) end = data.length;
    }
    elements.push({ ai, value: data.slice(pos, end) });
    pos = end;
  }
  return elements;
}

function decode(component: string): string | undefined {
  try {
    return decodeURIComponent(component);
  } catch {
    return undefined;
  }
}

/** Reads a GS1 Digital Link URI: AIs from the path (after any stem) and from the query. */
function readDigitalLink(uri: string): Gs1Element[] | Rejection {
  const m = /^https?:\/\/[^/?#\s]+([^?#\s]*)(?:\?([^#\s]*))?(?:#\S*)?$/i.exec(uri);
  if (!m) return reject('invalid_characters', 'not a well-formed Digital Link URI');
  const path = m[1] ?? '';
  const query = m[2] ?? '';
  if (path === '' || path === '/')
    return reject('invalid_characters', 'the Digital Link URI has no GS1 path');
  if (path.endsWith('/')) return reject('invalid_characters', 'a Digital Link URI must not end with a slash');
  const segments: string[] = [];
  for (const raw of path.slice(1).split('/')) {
    const s = decode(raw);
    if (s === undefined) return reject('invalid_characters', 'bad percent-encoding in the Digital Link URI');
    segments.push(s);
  }
  const keyOf = (s: string): string => DL_ALIASES[s] ?? s;
  const isAi = (s: string): boolean => /^\d{2,4}$/.test(s) && aiSpec(s) !== undefined;
  let start = -1;
  for (let i = 0; i + 1 < segments.length; i++) {
    if (!DL_PRIMARY_KEYS.has(keyOf(segments[i] ?? ''))) continue;
    if ((segments.length - i) % 2 !== 0) continue;
    let pairs = true;
    for (let j = i; j < segments.length; j += 2) pairs &&= isAi(keyOf(segments[j] ?? ''));
    if (pairs) {
      start = i;
      break;
    }
  }
  if (start < 0)
    return reject(
      'invalid_characters',
      'no GS1 primary key (such as /01/ and a GTIN) in the Digital Link path',
    );
  const elements: Gs1Element[] = [];
  for (let j = start; j < segments.length; j += 2) {
    elements.push({ ai: keyOf(segments[j] ?? ''), value: segments[j + 1] ?? '' });
  }
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = decode(eq < 0 ? '' : pair.slice(eq + 1));
    if (key === undefined || value === undefined) {
      return reject('invalid_characters', 'bad percent-encoding in the Digital Link query');
    }
    const ai = keyOf(key);
    if (/^\d+$/.test(ai)) {
      if (!isAi(ai))
        return reject(
          'invalid_characters',
          `unknown GS1 application identifier ${ai} in the Digital Link query`,
        );
      elements.push({ ai, value });
    }
    // Other query parameters (linkType, context …) are not GS1 data.
  }
  // A DL path may carry a GTIN-8, -12 or -13; it is the same GTIN padded to 14 digits.
  for (const el of elements) {
    if (el.ai === '01' && /^(\d{8}|\d{12}|\d{13})$/.test(el.value)) el.value = el.value.padStart(14, '0');
  }
  return elements;
}

/** Checks each element against the AI table and collects the GTIN and lot. */
function validate(syntax: Gs1Data['syntax'], elements: Gs1Element[]): Gs1ParseResult {
  if (elements.length === 0) return reject('empty', 'the GS1 data holds no application identifiers');
  const seen = new Map<string, string>();
  for (const { ai, value } of elements) {
    const spec = aiSpec(ai);
    if (!spec) return reject('invalid_characters', `unknown GS1 application identifier (${ai})`);
    if (value === '') return reject('invalid_length', `AI (${ai}) has no value`);
    if (spec.numeric ? !/^\d+$/.test(value) : !CSET82.test(value)) {
      return reject(
        'invalid_characters',
        `AI (${ai}) value "${value.slice(0, 30)}" has characters not allowed there${spec.numeric ? ' (digits only)' : ''}`,
      );
    }
    if (value.length < spec.min || value.length > spec.max) {
      const expected = spec.min === spec.max ? `${spec.min}` : `${spec.min} to ${spec.max}`;
      return reject(
        'invalid_length',
        `AI (${ai}) takes ${expected} ${spec.numeric ? 'digits' : 'characters'}, this value has ${value.length}`,
      );
    }
    if (CHECKED_AIS.test(ai) && !hasValidGs1CheckDigit(value)) {
      return reject(
        'invalid_check_digit',
        `check digit of AI (${ai}) ${value} does not verify (expected ${gs1CheckDigit(value.slice(0, -1))})`,
      );
    }
    const before = seen.get(ai);
    if (before !== undefined && before !== value) {
      return reject('invalid_characters', `AI (${ai}) appears twice with different values`);
    }
    seen.set(ai, value);
  }
  return { ok: true, data: { syntax, elements, gtin: seen.get('01') ?? null, lot: seen.get('10') ?? null } };
}

function finish(syntax: Gs1Data['syntax'], read: Gs1Element[] | Rejection): Gs1ParseResult {
  return Array.isArray(read) ? validate(syntax, read) : read;
}

/**
 * Parses GS1 data into its AIs: a bracketed element string (`(01)…(17)…(10)…`), unbracketed
 * data with FNC1 as GS or a leading `^` (`0112312312312333` `10ABC123` GS `99…`), a scan with a
 * symbology identifier (`]d2`, `]C1`, `]e0`, `]Q3`, `]J1` for AI data; `]E0`/`]E4` for an
 * EAN/UPC; `]Q1` and others for plain data such as a Digital Link), or a GS1 Digital Link URI
 * (path after any stem, query, percent-decoding, convenience names such as `/gtin/`).
 * Validates lengths, character sets and check digits; `gtin` is AI 01 and `lot` AI 10.
 */
export function parseGs1(value: string): Gs1ParseResult {
  const text = value.trim();
  const symbology = splitSymbology(text);
  if (symbology) {
    const { family, payload } = symbology;
    if (family === 'gs1') return finish('element-string', readUnbracketed(payload));
    if (family === 'other') return parseGs1(payload);
    // EAN/UPC scan: 13 digits (]E0), 8 (]E4), or 13 followed by a 2- or 5-digit add-on (]E3).
    const digits = /^(\d{13})(\d{2}|\d{5})?$|^(\d{8})$/.exec(payload);
    if (!digits) return reject('invalid_length', `scan ${symbology.id} does not carry an EAN-13 or EAN-8`);
    return finish('ean-scan', [{ ai: '01', value: (digits[1] ?? digits[3] ?? '').padStart(14, '0') }]);
  }
  if (text.startsWith('(')) return finish('element-string', readBracketed(text));
  if (/^https?:\/\//i.test(text)) return finish('digital-link', readDigitalLink(text));
  // eslint-disable-next-line no-control-regex -- GS (0x1d) is the GS1 field separator
  if (/^[\d^\x1d\u241d]/.test(text)) return finish('element-string', readUnbracketed(text));
  return reject('invalid_characters', 'not GS1 data (no element string, scan or Digital Link)');
}

// ---------------------------------------------------------------------------------------------
// GTIN normalisation
// ---------------------------------------------------------------------------------------------

function checked(code: string, what: string): GtinResult {
  const expected = gs1CheckDigit(code.slice(0, -1));
  if (expected !== Number(code.slice(-1))) {
    return reject('invalid_check_digit', `${what}check digit does not verify (expected ${expected})`);
  }
  return { ok: true, normalized: code.padStart(14, '0') };
}

/** The length rules applied to a bare run of digits. */
function byLength(kind: GtinKind, digits: string): GtinResult {
  switch (digits.length) {
    case 14:
    case 13:
    case 12:
      return checked(digits, '');
    case 8: {
      const upcA = kind === 'upc' ? expandUpcE(digits) : undefined;
      return upcA ? checked(upcA, `UPC-E expanded to UPC-A ${upcA}, but its `) : checked(digits, '');
    }
    case 11:
      // A 12-digit code whose leading zero a spreadsheet dropped; the check digit must hold.
      return checked(`0${digits}`, 'read as a UPC-A that lost its leading zero, the ');
    case 10: {
      const isbn13 = kind === 'upc' ? undefined : isbn10ToIsbn13(digits);
      if (isbn13) return { ok: true, normalized: isbn13.padStart(14, '0') };
      return reject(
        'invalid_length',
        kind === 'upc'
          ? '10 digits is not a UPC length (12 digits, 8 for a UPC-E)'
          : '10 digits is neither a valid ISBN-10 nor a GTIN length (8, 12, 13 or 14 digits)',
      );
    }
    default:
      return reject(
        'invalid_length',
        `${digits.length} digit${digits.length === 1 ? '' : 's'} is not a GTIN length (8, 12, 13 or 14 digits)`,
      );
  }
}

function fromGs1(parsed: Gs1ParseResult): GtinResult {
  if (!parsed.ok) return parsed;
  if (parsed.data.gtin === null) return reject('invalid_characters', 'the GS1 data carries no GTIN (AI 01)');
  return { ok: true, normalized: parsed.data.gtin };
}

/**
 * Normalises a `gtin`, `upc` or `ean` to 14 digits. Spaces, hyphens and dots go; the rest
 * must be digits, unless the whole value is GS1 syntax (see {@link parseGs1}), whose AI 01 is
 * taken. By length: 14, 13, 12 digits are check-digit verified; 8 digits are a UPC-E for `upc`
 * starting with 0 or 1 (expanded to UPC-A, then verified), else a GTIN-8; 11 digits are a
 * UPC-A that lost its leading zero (accepted only if the check digit then holds); 10 digits
 * are, for `ean` and `gtin`, an ISBN-10 converted to its 978 EAN-13. A check digit is never
 * repaired or invented.
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
