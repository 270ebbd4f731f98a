/** GS1 element strings, symbology-prefixed scans and Digital Link URIs, read into AIs and validated. */
import { CHECKED_AIS, CSET82, PREDEFINED_LENGTH, aiLengthAt, aiSpec, type Gs1Element } from './gs1-ai.ts';
import { gs1CheckDigit, hasValidGs1CheckDigit } from './gs1-check-digits.ts';
import { readDigitalLink } from './gs1-digital-link.ts';
import { reject, type Rejection } from './kinds.ts';

export type { Gs1Element } from './gs1-ai.ts';

/** ASCII group separator: FNC1 in scanned unbracketed element strings. */
export const GS = '\x1d';

/** GS1 data read from an element string, a scan or a Digital Link. */
export interface Gs1Data {
  syntax: 'element-string' | 'digital-link' | 'ean-scan';
  elements: Gs1Element[];
  /** The GTIN of AI 01 as 14 digits, its check digit verified; null when there is no AI 01. */
  gtin: string | null;
  /** AI 10 as encoded (percent-decoded for a Digital Link); null if absent. */
  lot: string | null;
}

/** The outcome of parsing GS1 data. */
export type Gs1ParseResult = { ok: true; data: Gs1Data } | Rejection;

/** The symbology identifier of a scan (`]d2…`) and what it says about the data after it. */
export interface Symbology {
  id: string;
  /** `gs1`: unbracketed AI data; `ean`: EAN/UPC digits; `other`: plain data (may carry a DL URI). */
  family: 'gs1' | 'ean' | 'other';
  payload: string;
}

/** Splits a symbology identifier (ISO/IEC 15424, `]` + code + modifier) from scanned data. */
export function splitSymbology(value: string): Symbology | undefined {
  const m = /^\]([A-Za-z])([0-9A-Za-z])/.exec(value);
  if (!m) return undefined;
  const id = `]${m[1]}${m[2]}`;
  const payload = value.slice(3);
  if (/^\](C1|e0|d2|Q3|J1)$/.test(id)) return { id, family: 'gs1', payload };
  if (/^\]E[0-4]$/.test(id)) return { id, family: 'ean', payload };
  return { id, family: 'other', payload };
}

/** Whether a value is GS1 syntax: bracketed, a Digital Link, a symbology scan, or FNC1-marked (`^` or GS). */
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

/** Parses element strings, symbology scans (`]d2`, `]E0` …) and Digital Links into AIs, validating each. */
export function parseGs1(value: string): Gs1ParseResult {
  const text = value.trim();
  const symbology = splitSymbology(text);
  if (symbology) {
    const { family, payload } = symbology;
    if (family === 'gs1') return finish('element-string', readUnbracketed(payload));
    if (family === 'other') return parseGs1(payload);
    // ]E0: 13 digits, ]E4: 8, ]E3: 13 plus a 2- or 5-digit add-on.
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
