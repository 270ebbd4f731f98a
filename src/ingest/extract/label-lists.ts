/**
 * The per-family list readers of labelled extraction: after a barcode, NDC, UDI, lot or model label,
 * each reads as many items as follow, separated by commas, "and", "or" (`y`, `et`, `ou`), into a
 * {@link Collector}. A table or a list the label governs token by token is read by `code-runs.ts`.
 */
import type { Confidence, IdentifierKind } from '../../domain/identifiers/kinds.ts';
import { normaliseIdentifier } from '../../domain/identifiers/normalise.ts';
import type { Identifier } from '../../domain/recall.ts';
import type { CodeSink } from './code-runs.ts';
import { MIN_CODE_LENGTH } from './code-run-words.ts';
import { DASH, DATE_IN_TEXT, OPEN_BOUND_WORDS, isCodeShaped } from './code-shapes.ts';
import { WILDCARD_TOKEN, gluedEnds, prefixOf, rangeOf, readsAsRange } from './rule-values.ts';

/** Digits in groups separated by one space or one dash: `0 50428 54100 5`, `3 45802-237-01 9`. */
const BARCODE_TOKEN = new RegExp(String.raw`\d+(?:[ \u00a0${DASH}]\d+)*`, 'y');
const NDC_TOKEN = new RegExp(
  String.raw`(?:\d{4,5}[${DASH}]\d{3,4}(?:[${DASH}]\d{1,2})?|\d{4,5} \d{3,4} \d{1,2}|\d{10,11})`,
  'y',
);
/** A GS1 element string in brackets: `(01)00382903835164(10)A213B1`. */
const GS1_TOKEN = /\(\d{2,4}\)\s?[^\s()]+(?:\s?\(\d{2,4}\)\s?[^\s()]+)*/y;
/** An AI (01) before a labelled barcode: `Barcode (01) 0 0361958 01013 9`. */
const AI_01 = /\(01\)\s?/y;
/** Any other UDI form (HIBCC, ICCBBA, bare GTIN): one run without spaces. */
const UDI_TOKEN = /[^\s,;]+/y;
const CODE_TOKEN = new RegExp(String.raw`[A-Za-z0-9](?:[A-Za-z0-9]|[${DASH}/.](?=[A-Za-z0-9]))*`, 'y');

/** An expiry phrase with its date, skipped in lot lists: `Exp. 07/18`, `Best By: 1/18/2027`. */
const EXPIRY_PHRASE = new RegExp(
  String.raw`\s*\(?\s*(?:exp(?:\.|iry|iration|ires)?|use[ ${DASH}]?by|best[ ${DASH}]?by|best before|best if used by|sell[ ${DASH}]?by|mfg\.?|manufactured|production)(?:\s*dates?)?\s*[.:]*\s*(?:dates?\s*[.:]*\s*)?${DATE_IN_TEXT}\s*\)?`,
  'iy',
);
const PARENTHETICAL = /\s*\([^()]{0,40}\)/y;
/** List separators, with Spanish and French `y`, `o`, `et`, `ou`; `, and` counts as one. */
const SEPARATOR =
  /\s*(?:[,;&](?:\s*(?:and|or|y|et|o|ou)(?![A-Za-z]))?|(?:and|or|y|et|o|ou)(?![A-Za-z])|\s\/(?=\s))\s*/iy;
/** Nouns that make a number a count, not a lot: "Lot 5 cases". */
const COUNT_NOUN =
  /\s+(?:units?|cases?|bottles?|boxes?|bags?|packages?|cartons?|pieces?|pcs|kits?|vials?|tubes?|jars?|cans?|trays?|pallets?|count)(?![A-Za-z])/iy;
/** A lot written as a year and month and a plant's capitals: `2019/04 KT`. */
const DATE_AND_PLANT = /((?:19|20)\d{2}\/(?:0[1-9]|1[0-2])) ([A-Z]{2,3})(?![A-Za-z0-9])/y;
/** "between A2001 and A2310", "between 8029703 to 8031430": a range's two ends. */
const BETWEEN =
  /between\s+([A-Za-z0-9][A-Za-z0-9-]*)\s+(?:and|to)\s+([A-Za-z0-9][A-Za-z0-9-]*)(?![A-Za-z0-9])/iy;
const RANGE_TO = new RegExp(String.raw`\s+(?:to|thru|through|until|[${DASH}~])\s+(?=[A-Za-z0-9])`, 'iy');
/** An open bound: "3114 or older" stands for many codes. */
const OPEN_BOUND = new RegExp(String.raw`\s+(?:or|and)\s+(?:${OPEN_BOUND_WORDS})(?![A-Za-z])`, 'iy');
/** Words that end a value or list (labels, date words), never values. */
const STOP_WORDS = new Set([
  'and',
  'y',
  'et',
  'o',
  'ou',
  'or',
  'exp',
  'expiry',
  'expiration',
  'best',
  'use',
  'sell',
  'mfg',
  'date',
  'dates',
  'upc',
  'ndc',
  'lot',
  'lots',
  'batch',
  'model',
  'code',
  'codes',
  'serial',
  'item',
  'product',
  'catalog',
  'ref',
  'udi',
  'no',
  'number',
  'all',
  'none',
  'unknown',
  'na',
]);

const GROUP_GAP = /[ \u00a0](?=[A-Za-z0-9])/y;

/** The match of sticky `re` at `pos`, or null. */
export function sticky(re: RegExp, text: string, pos: number): RegExpExecArray | null {
  re.lastIndex = pos;
  return re.exec(text);
}

/** Not glued to more (`12:30`, `5%`); a closing quote ends a value, an apostrophe only before no letter. */
function endsCleanly(text: string, end: number): boolean {
  const next = text.charAt(end);
  if (next === '') return true;
  if (/[\s,;)(&\]"”»]/.test(next)) return true;
  if (next === "'" || next === '’') return !/\p{L}/u.test(text.charAt(end + 1));
  return next === '.' && !/\d/.test(text.charAt(end + 1));
}

/** What the readers read: identifiers of the wanted kinds, each kept when its normaliser accepts it. */
export class Collector implements CodeSink {
  readonly found: Identifier[] = [];
  constructor(private readonly kinds: ReadonlySet<IdentifierKind> | null) {}

  private wants(kind: IdentifierKind): boolean {
    return this.kinds === null || this.kinds.has(kind);
  }

  add(kind: IdentifierKind, value: string, confidence: Confidence, minLength = 1): boolean {
    const n = normaliseIdentifier(kind, value);
    if (!n.ok || n.normalized.length < minLength) return false;
    if (this.wants(kind)) {
      this.found.push({ kind, value, normalized: n.normalized, confidence });
    }
    return true;
  }

  addRule(kind: IdentifierKind, value: string, normalized: string): void {
    if (this.wants(kind)) this.found.push({ kind, value, normalized, confidence: 'inferred' });
  }

  /** A UDI and, when it carries one, its lot (AI 10) as a separate `lot`. */
  addUdi(value: string): boolean {
    const n = normaliseIdentifier('udi', value);
    if (!n.ok) return false;
    if (this.wants('udi')) {
      this.found.push({ kind: 'udi', value, normalized: n.normalized, confidence: 'extracted' });
    }
    if (n.lot !== undefined && this.wants('lot')) {
      // Behind its own AI in a check-digit-verified GS1 string: positional, not a guess.
      const raw = /\(10\)\s?([^\s()]+)/.exec(value)?.[1] ?? n.lot;
      this.found.push({ kind: 'lot', value: raw, normalized: n.lot, confidence: 'extracted' });
    }
    return true;
  }
}

// Per-family list readers: each starts right after a label and reads as many items as follow.

/** The position after a separator (another item may follow), or -1. */
function nextItem(text: string, pos: number): number {
  const sep = sticky(SEPARATOR, text, pos);
  return sep ? pos + sep[0].length : -1;
}

/** Reads a list from `start` while a separator follows each item; `readItem` returns an item's end or -1. */
function readList(text: string, start: number, readItem: (pos: number, index: number) => number): void {
  for (let pos = start, index = 0; pos >= 0; index++) {
    const end = readItem(pos, index);
    if (end < 0) return;
    pos = nextItem(text, end);
  }
}

export function readBarcodes(text: string, start: number, kind: IdentifierKind, out: Collector): void {
  readList(text, start, (at) => {
    const pos = at + (sticky(AI_01, text, at)?.[0].length ?? 0);
    const token = sticky(BARCODE_TOKEN, text, pos)?.[0];
    if (token === undefined) return -1;
    const end = pos + token.length;
    if (!endsCleanly(text, end) || text.charAt(end) === '/') return -1;
    if (!out.add(kind, token, 'extracted')) {
      // Several complete codes separated by single spaces: take each one that validates.
      const parts = token.split(/[ \u00a0]/);
      if (parts.length > 1 && parts.every((p) => /^\d{12,14}$/.test(p))) {
        for (const p of parts) out.add(kind, p, 'extracted');
      }
    }
    return end;
  });
}

export function readNdcs(text: string, start: number, out: Collector): void {
  readList(text, start, (pos) => {
    const token = sticky(NDC_TOKEN, text, pos)?.[0];
    if (token === undefined) return -1;
    const end = pos + token.length;
    if (!endsCleanly(text, end) || /[\d]/.test(text.charAt(end))) return -1;
    // A labelled hyphenated layout is unambiguous; a bare 11-digit run is read by shape only.
    out.add('ndc', token, /^\d+$/.test(token) ? 'inferred' : 'extracted');
    return end;
  });
}

export function readUdis(text: string, start: number, out: Collector): void {
  readList(text, start, (pos) => {
    const m = sticky(GS1_TOKEN, text, pos) ?? sticky(UDI_TOKEN, text, pos);
    if (!m) return -1;
    const token = m[0].replace(/[.,;:]+$/, '');
    return out.addUdi(token) ? pos + token.length : -1;
  });
}

/** One lot or model, maybe in spaced groups ("CR 18 13B"); several values when the groups are a list. */
function readCodeGroups(
  text: string,
  pos: number,
  family: 'lot' | 'model',
): { values: string[]; end: number } | null {
  const first = sticky(CODE_TOKEN, text, pos);
  if (!first) return null;
  const groups = [{ text: first[0], start: pos }];
  let end = pos + first[0].length;
  if (family === 'lot') {
    for (;;) {
      if (!sticky(GROUP_GAP, text, end)) break;
      const g = sticky(CODE_TOKEN, text, end + 1);
      if (!g || STOP_WORDS.has(g[0].toLowerCase()) || !isCodeShaped(g[0], family)) break;
      if (!endsCleanly(text, end + 1 + g[0].length)) break;
      groups.push({ text: g[0], start: end + 1 });
      end = end + 1 + g[0].length;
    }
  }
  if (groups.length === 1) {
    return isCodeShaped(first[0], family) ? { values: [first[0]], end } : null;
  }
  const firstIsPrefix = /^[A-Za-z]{1,4}$/.test(first[0]) && !STOP_WORDS.has(first[0].toLowerCase());
  if (firstIsPrefix) return { values: [text.slice(pos, end)], end };
  if (!isCodeShaped(first[0], family)) return null;
  // "18024 18037 18043": a list written with spaces; "5G6 21X8": one code in two groups.
  if (groups.every((g) => g.text.length >= 4)) return { values: groups.map((g) => g.text), end };
  return { values: [text.slice(pos, end)], end };
}

export function readCodes(
  text: string,
  start: number,
  kind: IdentifierKind,
  family: 'lot' | 'model',
  out: Collector,
  rangesNamed: boolean,
  dateCodes: boolean,
): void {
  readList(text, start, (at, index) => {
    let pos = at;
    // "Lot A, Exp 07/18; B Exp 06/18": an expiry phrase between items is skipped.
    const between = index > 0 && family === 'lot' ? sticky(EXPIRY_PHRASE, text, pos) : null;
    if (between) {
      pos = nextItem(text, pos + between[0].length);
      if (pos < 0) return -1;
    }
    // "KX2040GC*", "AB12xxxx": a prefix rule when the stem is long enough, else nothing; the list goes on.
    const wildcard = sticky(WILDCARD_TOKEN, text, pos);
    if (wildcard) {
      const rule = prefixOf(wildcard[0]);
      if (rule !== undefined) out.addRule(kind, wildcard[0], rule);
      return pos + wildcard[0].length;
    }
    // "between 4400120 and 4400990" (or "… to …"): one rule when the ends share one shape, else the list ends.
    const ends = family === 'lot' ? sticky(BETWEEN, text, pos) : null;
    if (ends) {
      const rule = rangeOf(ends[1]!, ends[2]!, dateCodes);
      if (rule === undefined) return -1;
      out.addRule(kind, ends[0].replace(/^between\s+/i, ''), rule);
      return pos + ends[0].length;
    }
    // "2019/04 KT": a device lot written as its year and month and a plant's capitals is one lot.
    const dated = family === 'lot' ? sticky(DATE_AND_PLANT, text, pos) : null;
    if (dated && !STOP_WORDS.has(dated[2]!.toLowerCase())) {
      out.add(kind, dated[0], 'inferred', MIN_CODE_LENGTH);
      return pos + dated[0].length;
    }
    const read = readCodeGroups(text, pos, family);
    // "40512-41780 233006-235101": ranges glued by a dash, one rule each, in a text of ranges.
    const token = sticky(CODE_TOKEN, text, pos)?.[0];
    const glued = family === 'lot' && token !== undefined ? gluedEnds(token) : undefined;
    if (glued !== undefined && readsAsRange(glued, rangesNamed) && endsCleanly(text, pos + token!.length)) {
      out.addRule(kind, token!, rangeOf(glued[0], glued[1])!);
      return pos + token!.length;
    }
    if (!read) return -1;
    let end = read.end;
    if (!endsCleanly(text, end)) return -1;
    if (sticky(COUNT_NOUN, text, end)) return -1;
    // "40012000 to 40098999": the two ends of a range are a family of codes, not codes; of lots, one rule.
    const rangeTo = sticky(RANGE_TO, text, end);
    if (rangeTo) {
      if (family !== 'lot' || read.values.length !== 1) return -1;
      const toAt = end + rangeTo[0].length;
      const to = readCodeGroups(text, toAt, family);
      if (to === null || to.values.length !== 1 || !endsCleanly(text, to.end)) return -1;
      const rule = rangeOf(read.values[0]!, to.values[0]!, dateCodes);
      if (rule === undefined) return -1;
      out.addRule(kind, text.slice(pos, to.end), rule);
      return to.end;
    }
    if (sticky(OPEN_BOUND, text, end)) return -1;
    for (const value of read.values) out.add(kind, value, 'inferred', MIN_CODE_LENGTH);
    const paren = sticky(PARENTHETICAL, text, end);
    if (paren) end += paren[0].length;
    if (family === 'lot') {
      const exp = sticky(EXPIRY_PHRASE, text, end);
      if (exp) end += exp[0].length;
    }
    return end;
  });
}
