/**
 * Everything an identifier label governs, token by token: a list after it ("Lots 18024 18037"),
 * a list after a colon, or a product table flattened into prose whose header names the columns.
 * Precision first: a table needs {@link MIN_TABLE_CODES} codes; ranges and wildcards are never codes.
 */
import type { Confidence, IdentifierKind } from '../../domain/identifiers/kinds.ts';
import { normaliseIdentifier } from '../../domain/identifiers/normalise.ts';
import { normaliseVin } from '../../domain/identifiers/vin.ts';
import {
  OPEN_BOUND_WORDS,
  embedsFullDate,
  isCodeShaped,
  isDateLike,
  isDayDate,
  isUnitWord,
  isYear,
} from './code-shapes.ts';
import type { Label } from './labels.ts';
import { RANGES_NAMED, gluedEnds, isWildcard, prefixOf, rangeOf, readsAsRange } from './rule-values.ts';
import { endsSentence, type Token } from './tokens.ts';

/** Where read values go: normalised and kept when the normaliser accepts them. */
export interface CodeSink {
  add(kind: IdentifierKind, value: string, confidence: Confidence, minLength?: number): boolean;
  /** A match rule (`STEM*`, `FROM..TO`) of a model or lot, `value` as printed. */
  addRule(kind: IdentifierKind, value: string, normalized: string): void;
}

/** Minimum normalised length of a model or lot read from prose; shorter is too generic. */
export const MIN_CODE_LENGTH = 3;
/** Codes a flattened table needs after its header to be read as one. */
export const MIN_TABLE_CODES = 3;
/** Alphanumeric length from which a code unlike every column is read as a serial number. */
const SERIAL_LENGTH = 12;
/** Leading characters a vehicle's name shares with its model number ("KX450SR", "KX450PSFNN"). */
const NAME_STEM = 4;
/** Tokens allowed between a label and its first value (a table header, "are included:"). */
const MAX_LEAD_IN = 24;
/** Tokens of the longest table read after one label (about 60 KB of prose). */
const MAX_BODY = 10_000;

interface Column {
  family: 'model' | 'lot' | 'barcode' | 'vin';
  kind: IdentifierKind;
  dateCodes: boolean;
  /** The first value read into it: later values of the same shape belong here. */
  first?: string;
  /** A table's range columns ("Serial Number Start … End"): only pairs of ends are read into them. */
  pairsOnly?: boolean;
  /** A column of value beginnings ("Serial Numbers (first 8 digits)"): values of this length are prefixes. */
  prefixLength?: number;
}

/** Words allowed between a label and its first value without making it a table. */
const FILLER = new Set([
  'is',
  'are',
  'was',
  'were',
  'the',
  'number',
  'numbers',
  'no',
  'nos',
  '#',
  'code',
  'codes',
]);
const SEPARATORS = new Set([
  ',',
  ';',
  '&',
  '/',
  'and',
  'or',
  '"',
  '“',
  '”',
  "'",
  '‘',
  '’',
  '«',
  '»',
  '+',
  'y',
  'et',
]);
/** Words between the ends of a range: "VF34618193 thru VF34618322", "0815 - 1253" (and "between … and …"). */
const RANGE_WORDS = new Set(['thru', 'through', 'to', '~', '-', '–', '—', 'until', 'till', 'al', 'a', 'au']);
/** Words before a value that make it an open bound or fragment: "starting with FC32", "ending in 211". */
const BOUND_BEFORE =
  /^(?:containing|contains|starting|start|starts|beginning|begin|begins|ending|ends|end|prefix|prefixes|prefixed|from|after|before|above|below|over|under|than)$/i;
/** Capitals only, four or more, inner `-`, `/`, `+`: `MPISUS`, `HWL-MTK-RT-IN`. */
const LETTER_CODE = /^(?=[A-Z+/-]{4,}$)[A-Z]{2,}(?:[-/+]?[A-Z]+)*$/;
/** Words in capitals that follow a model label but are not models. */
const COMMON_CAPITALS = new Set([
  'AND',
  'OR',
  'THE',
  'ALL',
  'NEW',
  'NONE',
  'WITH',
  'ONLY',
  'SEE',
  'FROM',
  'THAT',
  'THIS',
  'ARE',
  'WERE',
  'HAS',
  'HAVE',
  'INCLUDE',
  'INCLUDES',
  'INCLUDED',
  'LISTED',
  'BELOW',
  'ABOVE',
  'MODEL',
  'MODELS',
  'NUMBER',
  'NUMBERS',
  'SERIES',
  'YEAR',
  'YEARS',
  'NAME',
  'NAMES',
  'BRAND',
  'LABEL',
  'PRINTED',
  'LOCATED',
  'FOUND',
  'BOTTOM',
  'BACK',
  'FRONT',
  'SIDE',
  'TOP',
  'UNIT',
  'UNITS',
  'PRODUCT',
  'PRODUCTS',
  'RECALL',
  'RECALLED',
  'SOLD',
  'WHITE',
  'BLACK',
  'BLUE',
  'RED',
  'GREEN',
  'GRAY',
  'GREY',
  'PINK',
  'SILVER',
  'GOLD',
  'ORANGE',
  'YELLOW',
  'PURPLE',
  'BROWN',
  'SIZE',
  'SMALL',
  'MEDIUM',
  'LARGE',
  'KING',
  'QUEEN',
  'TWIN',
  'FULL',
  'PLUS',
  'PRO',
  'MAX',
  'MINI',
  'LITE',
  'NOTE',
  'ASIN',
  'FNSKU',
]);

/** Colour words, which name a listing's variant beside its code, never a code. */
const COLOURS = new Set([
  'black',
  'white',
  'gray',
  'grey',
  'blue',
  'navy',
  'red',
  'green',
  'pink',
  'purple',
  'beige',
  'brown',
  'orange',
  'yellow',
  'silver',
  'gold',
  'tan',
  'cream',
  'ivory',
  'teal',
  'khaki',
  'charcoal',
  'clear',
]);

/** A brand's name in a list of models: a capitalised word. */
const BRAND_WORD = /^\p{Lu}\p{Ll}+$/u;
/** A model number beside a brand: letters and digits together, four characters at least (not a name's "3000"). */
const MIXED_CODE = /^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9][A-Za-z0-9/-]{3,}$/;

/** A verb after a list's last code: its short capital group belongs to the code ("40513 ABX are"). */
const VERB_AFTER = /^(?:is|are|was|were|has|have|had)$/;

/** Header words of a table whose two columns hold the two ends of a range. */
const PAIRED_COLUMNS = /\b(?:range|from|start(?:ing)?|first|begin(?:ning)?)\b/i;
/** A header saying its range column holds single codes too: "Serial Number(s) or Range". */
const SINGLES_OR_RANGES = /\bor\s+(?:a\s+)?ranges?\b|\branges?\s+or\b/i;

const BOUND_AFTER = new RegExp(`^(?:${OPEN_BOUND_WORDS})$`, 'i');

interface BodyOptions {
  table: boolean;
  /** The table has a price column: a number without letters is not read as a lot. */
  priced: boolean;
  minCodes: number;
  pairs: boolean;
  /** The range column holds nothing but pairs of ends (no "… or Range" in the header). */
  pairsOnly: boolean;
  labelEnd: number;
  /** The text says it lists ranges: a pair of ends glued by a dash is one (`40512-41780`). */
  rangesNamed: boolean;
  /** The header has a prefix column ("Prefix Min Max"): the ends in the columns after it are no whole values. */
  prefixed: boolean;
  /**
   * A table of two columns, models then serial numbers, whose rows are read in turn: a value after a
   * separator (`,`, `/`, "or") stays in its column, any other moves to the next ("MX100 GK2301, GK2302").
   */
  alternate: boolean;
}

/** One column per family, in the order of their first label (two serial-number columns are one). */
function distinct(columns: readonly Column[]): Column[] {
  return columns.filter((c, i) => columns.findIndex((d) => d.family === c.family) === i);
}

function columnOf(label: Label): Column {
  return {
    family:
      label.family === 'barcode' || label.family === 'lot' || label.family === 'vin' ? label.family : 'model',
    kind: label.kind,
    dateCodes: label.dateCodes,
  };
}

/** The shape of a code: its runs of letters, digits and punctuation (`GDM-47FC` → `A-9A`). */
function shape(code: string): string {
  return code
    .replace(/[A-Za-z]+/g, 'A')
    .replace(/\d+/g, '9')
    .replace(/[^A9]+/g, '-');
}

/** How sure a value read from prose is (../shared/spec/identifiers.md, "Confidence at ingestion"). */
function confidenceOf(column: Column, value: string): Confidence {
  if (column.family === 'barcode') return 'extracted';
  if (column.family === 'vin') {
    const vin = normaliseVin(value);
    return vin.ok && vin.checkDigitValid ? 'extracted' : 'inferred';
  }
  return 'inferred';
}

/** "KAF1000LRFNN/LRFNL" → "KAF1000LRFNN" (a variant suffix); "NE58N9430SG/AA", "KX-200A/BK" stay. */
function withoutAlternateSuffix(value: string): string {
  // Only a short code with a slash: the pattern backtracks over a long run (64 KB of digits took 3 s).
  if (value.length > 64 || !value.includes('/')) return value;
  const m = /^([^/]*\d[^/]*?([A-Za-z]{4,}))\/([A-Za-z]{4,})$/.exec(value);
  return m !== null && m[2]!.length === m[3]!.length ? m[1]! : value;
}

/** A range rule read into `column`, or the one value it names when its ends are equal ("A thru A"). */
function singleOrRange(
  column: Column,
  from: string,
  printed: string,
  rule: string,
): { column: Column; value: string; rule?: string } {
  const [lo, hi] = rule.split('..');
  return lo === hi ? { column, value: from } : { column, value: printed, rule };
}

function stem(shapeOf: string): string {
  return shapeOf.split('-')[0]!;
}

function classes(shapeOf: string): string {
  return [...new Set(shapeOf)].sort().join('');
}

/** Reads the values a label governs; see the module comment. */
export class CodeRunReader {
  private readonly labelAt = new Map<number, Label>();
  private headerTable = false;
  private priced = false;
  /** The two ends of the range {@link boundAt} last found, as printed. */
  private lastRange: { from: string; to: string; printed: string } | undefined;
  /** Whether the text is in capitals (NHTSA), where capitals say nothing; computed when first asked. */
  private capitalsCache: boolean | undefined;

  constructor(
    private readonly text: string,
    private readonly tokens: readonly Token[],
    labels: readonly Label[],
    private readonly out: CodeSink,
  ) {
    for (const label of labels) this.labelAt.set(label.start, label);
  }

  private get capitals(): boolean {
    if (this.capitalsCache === undefined) {
      const letters = this.text.replace(/[^A-Za-z]/g, '');
      this.capitalsCache = letters.length > 0 && letters.replace(/[^A-Z]/g, '').length / letters.length > 0.7;
    }
    return this.capitalsCache;
  }

  private tokenAt(offset: number): number {
    let lo = 0;
    let hi = this.tokens.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.tokens[mid]!.start < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private labelStartingAt(i: number): Label | undefined {
    const t = this.tokens[i];
    return t === undefined ? undefined : this.labelAt.get(t.start);
  }

  /**
   * Reads what follows `label` (a barcode label only as a table header; a lot label's plain list
   * only unless `listRead`). Returns the offset up to which a table was read, or the label's end.
   */
  read(label: Label, opts: { listRead?: boolean } = {}): number {
    let columns: Column[] = [columnOf(label)];
    /** Columns named after a colon: the table's header, when the label was in its introduction. */
    const header: Column[] = [];
    let i = this.tokenAt(label.end);
    const leadStart = i;
    // "date codes:" introduces its list as a colon after the label would.
    let colon = /[:]\s*$/.test(this.text.slice(label.start, label.end));
    let words = 0;
    const headerLabels: Label[] = [label];
    for (; i < this.tokens.length; i++) {
      if (i - leadStart > MAX_LEAD_IN || endsSentence(this.tokens, i)) return label.end;
      const t = this.tokens[i]!;
      if (t.text === ':') {
        colon = true;
        continue;
      }
      const inner = this.labelStartingAt(i);
      if (inner !== undefined && inner.family !== 'ndc' && inner.family !== 'udi') {
        (colon ? header : columns).push(columnOf(inner));
        headerLabels.push(inner);
        i = this.tokenAt(inner.end) - 1;
        continue;
      }
      if (this.valueAt(i, header.length > 0 ? header : columns, words > 0) !== null) break;
      // A wildcard value, ends glued by a dash or a range's first end ("iQ0041591 through …") start the body too.
      if (isWildcard(t.text) || gluedEnds(t.text) !== undefined) break;
      if (/\d/.test(t.text) && this.boundAt(i, -1) !== -1 && this.lastRange !== undefined) break;
      if (!FILLER.has(t.text.toLowerCase()) && !/^[#/()\-–"“”'‘’«»,;]$/.test(t.text)) words += 1;
    }
    // "… are included: Model Serial No. …": the header after the colon names the columns.
    if (header.length > 0) columns = header;
    const table = words > 0 || columns.length > 1;
    if (!table && (label.family === 'barcode' || opts.listRead === true)) return label.end;
    if (table && label.of) return label.end;
    const leadIn = this.text.slice(label.start, this.tokens[i]?.start ?? this.text.length);
    const cols = distinct(columns);
    // "Serial Numbers (first 8 digits)": that column holds beginnings of serial numbers.
    const first = /\(\s*first\s+(\d{1,2})\s+(?:digits|characters|numbers)\s*\)/i.exec(leadIn);
    const lotColumn = cols.find((c) => c.family === 'lot');
    if (first !== null && lotColumn !== undefined && table) lotColumn.prefixLength = Number(first[1]);
    const paired = table && PAIRED_COLUMNS.test(leadIn);
    return this.body(i, cols, {
      prefixed: /\bprefix(?:es)?\b/i.test(leadIn),
      rangesNamed: RANGES_NAMED.test(this.text.slice(Math.max(0, label.start - 80), label.start) + leadIn),
      alternate:
        table &&
        !paired &&
        first === null &&
        cols.length === 2 &&
        cols[0]!.family === 'model' &&
        cols[1]!.family === 'lot' &&
        !cols[1]!.dateCodes &&
        this.twoColumnHeader(headerLabels, i),
      table,
      minCodes: !table ? 1 : colon ? 1 : MIN_TABLE_CODES,
      pairs: table && PAIRED_COLUMNS.test(leadIn),
      pairsOnly: table && PAIRED_COLUMNS.test(leadIn) && !SINGLES_OR_RANGES.test(leadIn),
      // "… Retail Price": a bare number may be a price.
      priced: table && /\bprices?\b/i.test(leadIn),
      labelEnd: label.end,
    });
  }

  /**
   * Whether a header is two labels and nothing else ("Model Number Serial Numbers"), the body right after:
   * other header words (a name, a size, a date column) would make a row's values other than two.
   */
  private twoColumnHeader(labels: readonly Label[], bodyStart: number): boolean {
    const [a, b] = labels.slice(-2) as [Label | undefined, Label | undefined];
    if (a === undefined || b === undefined) return false;
    const bodyAt = this.tokens[bodyStart]?.start ?? this.text.length;
    return (
      /^[\s:/-]*$/.test(this.text.slice(a.end, b.start)) && /^[\s:]*$/.test(this.text.slice(b.end, bodyAt))
    );
  }

  /** Token `i` as a value of one of the columns: a barcode (possibly in groups) or a code. */
  private valueAt(
    i: number,
    columns: readonly Column[],
    table: boolean,
  ): { column: number; value: string; next: number; alternate?: boolean } | null {
    const t = this.tokens[i];
    if (t === undefined) return null;
    // In a list after a model label, capitals alone ("MPISUS"), unless a brand heading the next label or a
    // word right after a code ("DWA8280HRT DEWALT Elite").
    if (
      !table &&
      !/\d/.test(this.tokens[i - 1]?.text ?? '') &&
      LETTER_CODE.test(t.text) &&
      !COMMON_CAPITALS.has(t.text) &&
      !this.capitals &&
      this.labelStartingAt(i + 1) === undefined
    ) {
      const model = columns.findIndex((c) => c.family === 'model');
      if (model !== -1 && normaliseIdentifier('model', t.text).ok)
        return { column: model, value: t.text, next: i + 1 };
    }
    // In a list of models, a brand before the next one: "KX-200A, Zephyra KX-310B and KX-420C".
    if (!table && BRAND_WORD.test(t.text) && SEPARATORS.has(this.tokens[i - 1]?.text.toLowerCase() ?? '')) {
      const code = this.tokens[i + 1];
      const model = columns.findIndex((c) => c.family === 'model');
      if (
        model !== -1 &&
        code !== undefined &&
        this.text.slice(t.end, code.start) === ' ' &&
        MIXED_CODE.test(code.text) &&
        this.fits(code.text, columns[model]!, false)
      )
        return { column: model, value: code.text, next: i + 2 };
    }
    // In a list, a code after a short capital prefix: "VRS Plus-150"; in a table, the same as a
    // row's other designation after a slash ("010-130A1 / CX 199-NG").
    const alternate = table && this.tokens[i - 1]?.text === '/';
    if (
      (!table || alternate) &&
      /^[A-Z]{2,4}$/.test(t.text) &&
      !COMMON_CAPITALS.has(t.text) &&
      !this.capitals
    ) {
      const code = this.tokens[i + 1];
      const after = this.tokens[i + 2];
      const model = columns.findIndex((c) => c.family === 'model');
      // "GDM GDM-49": a prefix printed again in the code is said once.
      const repeated = code !== undefined && code.text.toUpperCase().startsWith(t.text);
      const value = repeated ? code.text : `${t.text} ${code?.text ?? ''}`;
      if (
        model !== -1 &&
        code !== undefined &&
        this.text.slice(t.end, code.start) === ' ' &&
        isCodeShaped(code.text, 'model') &&
        (alternate ||
          after === undefined ||
          /^[,;.)]$/.test(after.text) ||
          SEPARATORS.has(after.text.toLowerCase())) &&
        normaliseIdentifier('model', value).ok
      ) {
        return { column: model, value, next: i + 2, alternate };
      }
    }
    if (!/\d/.test(t.text)) return null;
    const barcode = columns.findIndex((c) => c.family === 'barcode');
    if (barcode !== -1) {
      const b = this.barcodeAt(i, columns[barcode]!.kind);
      if (b !== null) return { column: barcode, ...b };
      // A barcode-length number failing its check digit is a misprinted barcode, not a model or lot.
      if (/^\d{11,14}$/.test(t.text)) return null;
    }
    // In a table, brackets after a word hold a description's detail ("60 Capsules (1029U)").
    if (table && this.headerTable && this.inBracketsAfterWord(i)) return null;
    const next = this.tokens[i + 1];
    if (next !== undefined && isUnitWord(next.text)) return null;
    if (this.isMeasureMark(i)) return null;
    // A lot in two groups whose first is no code alone ("01/15/24 CH1"), or a unit's date code and its
    // plant ("05/23 PL1").
    const lot = columns.findIndex((c) => c.family === 'lot');
    if (
      lot !== -1 &&
      this.grouped(i) &&
      (isDateLike(t.text) || !columns.some((c) => this.fits(t.text, c, table)))
    ) {
      const value = `${t.text} ${this.tokens[i + 1]!.text}`;
      if (normaliseIdentifier(columns[lot]!.kind, value).ok) return { column: lot, value, next: i + 2 };
    }
    // A quoted name that starts with a code: the model "Hover-1 Helix".
    if (/^["“‘']$/.test(this.tokens[i - 1]?.text ?? '') && /^\p{Lu}?\p{Ll}+$/u.test(next?.text ?? ''))
      return null;
    const text = withoutAlternateSuffix(t.text);
    const fits = columns.flatMap((c, index) => (this.fits(text, c, table) ? [index] : []));
    if (fits.length === 0) return null;
    // In a list, a code may end in a short capital group: "MG10X CV", "40513 ABX are".
    const after = this.tokens[i + 2];
    if (
      !table &&
      next !== undefined &&
      /^[A-Z]{2,3}$/.test(next.text) &&
      this.text.slice(t.end, next.start) === ' ' &&
      (after === undefined ||
        /^[,;.)]$/.test(after.text) ||
        SEPARATORS.has(after.text.toLowerCase()) ||
        VERB_AFTER.test(after.text))
    ) {
      return { column: fits[0]!, value: `${text} ${next.text}`, next: i + 2 };
    }
    return { column: fits[0]!, value: text, next: i + 1 };
  }

  private inBracketsAfterWord(i: number): boolean {
    for (let j = i - 1; j >= 0 && j >= i - 8; j--) {
      const t = this.tokens[j]!.text;
      if (t === ')') return false;
      if (t === '(') {
        const before = this.tokens[j - 1]?.text ?? '';
        return /^[A-Za-z][A-Za-z'’-]*$/.test(before) && !/\d/.test(before);
      }
    }
    return false;
  }

  /** A number with a glued inch or foot mark (`72"`), not the closing quote of `"0214"`. */
  private isMeasureMark(i: number): boolean {
    const [prev, t, next] = [this.tokens[i - 1], this.tokens[i]!, this.tokens[i + 1]];
    if (next === undefined || next.start !== t.end || !/^["'”’]$/.test(next.text) || !/^\d+$/.test(t.text))
      return false;
    return !(prev !== undefined && prev.end === t.start && /^["'“‘]$/.test(prev.text));
  }

  private fits(value: string, column: Column, table: boolean): boolean {
    if (column.family === 'barcode') return false;
    if (column.family === 'vin') return normaliseVin(value).ok;
    // A date code may look like a date (`JUL24`), but a whole date or `Nov-19` is a date.
    if (column.dateCodes && isDateLike(value))
      return !isDayDate(value) && !/[A-Za-z].*[-/. ]|[-/. ].*[A-Za-z]/.test(value);
    if (!isCodeShaped(value, column.family)) return false;
    if ((table || column.family === 'model') && isYear(value)) return false;
    if (table && column.family === 'model' && embedsFullDate(value)) return false;
    // Table codes are capitals; "240z", "3pk" are description words.
    if (table && /\p{Ll}/u.test(value) && !/\p{Ll}/u.test(column.first ?? '')) return false;
    // In a table ≤ 3 digits is a size or count; beside prices, a digits-only lot may be a price.
    if (table && /^\d{1,3}$/.test(value)) return false;
    if (table && this.priced && column.family === 'lot' && /^[\d.,]+$/.test(value)) return false;
    const n = normaliseIdentifier(column.kind, value);
    return n.ok && n.normalized.length >= MIN_CODE_LENGTH;
  }

  /** A barcode at token `i`, possibly in digit groups ("0 50875 82840 7"). */
  private barcodeAt(i: number, kind: IdentifierKind): { value: string; next: number } | null {
    let digits = '';
    let best: { value: string; next: number } | null = null;
    for (let j = i; j < this.tokens.length && j < i + 6; j++) {
      const t = this.tokens[j]!;
      if (!/^\d[\d-]*$/.test(t.text) || (j > i && t.start - this.tokens[j - 1]!.end !== 1)) break;
      digits += t.text.replace(/-/g, '');
      if (digits.length > 14) break;
      if (digits.length >= 11) {
        const value = this.text.slice(this.tokens[i]!.start, t.end);
        if (normaliseIdentifier(kind, value).ok) best = { value, next: j + 1 };
      }
    }
    return best;
  }

  /**
   * The end of a range or open bound at token `i` ("A thru B", "starting with FC32"), or -1. A
   * capitalised word before a body's first value ends its header ("… Serial Number End 010-13").
   */
  private boundAt(i: number, bodyStart: number): number {
    this.lastRange = undefined;
    const t = this.tokens[i]!;
    if (!/\d/.test(t.text)) return -1;
    const prev = this.tokens[i - 1]?.text ?? '';
    const prev2 = this.tokens[i - 2]?.text ?? '';
    const header = i === bodyStart && /^\p{Lu}/u.test(prev);
    // "ranging from 546515117 to 547916107": "from" opens a range, not a bound.
    const fromTo =
      /^from$/i.test(prev) &&
      RANGE_WORDS.has(this.tokens[i + 1]?.text.toLowerCase() ?? '') &&
      /\d/.test(this.tokens[i + 2]?.text ?? '');
    if (
      !header &&
      !fromTo &&
      (BOUND_BEFORE.test(prev) || (/^(?:with|in|at)$/i.test(prev) && BOUND_BEFORE.test(prev2)))
    ) {
      return i + 1;
    }
    // Ends in several groups, the same number each ("19K 0000000 000 to 22C 9999999 999").
    const groups = this.groupsAt(i);
    // Groups all of one shape are a list written with spaces ("QB1201 QB1388 - QB1499"), not one end.
    const oneShape = new Set(this.tokens.slice(i, i + groups).map((g) => shape(g.text))).size === 1;
    if (groups >= 2 && !oneShape && RANGE_WORDS.has(this.tokens[i + groups]?.text.toLowerCase() ?? '')) {
      const ends = this.mirroredEnds(i, groups);
      if (ends !== undefined) return ends;
    }
    // The first end may be in two groups ("17348 L24 - 23320 K26").
    const end = this.grouped(i) ? i + 2 : i + 1;
    const next = this.tokens[end]?.text.toLowerCase() ?? '';
    const other = this.tokens[end + 1]?.text ?? '';
    // "between 37567 2442 and 37567 2451": ends in groups, one mirroring the other.
    if (/^between$/i.test(prev) && groups >= 2 && this.tokens[i + groups]?.text.toLowerCase() === 'and') {
      const ends = this.mirroredEnds(i, groups);
      if (ends !== undefined) return ends;
    }
    // "between A2001 and A2310", "between 0125 (January 2025) and 0825".
    if (/^between$/i.test(prev)) {
      let word = end;
      if (this.tokens[word]?.text === '(') {
        const close = this.tokens.findIndex((tk, k) => k > word && k <= word + 8 && tk.text === ')');
        if (close !== -1) word = close + 1;
      }
      const after = this.tokens[word + 1]?.text ?? '';
      if (this.tokens[word]?.text.toLowerCase() === 'and' && /\d/.test(after)) {
        const stop = end === i + 2 && this.grouped(word + 1) ? word + 3 : word + 2;
        const r = this.rangeEnds(i, word, stop);
        this.lastRange = { ...this.lastRange!, from: this.text.slice(t.start, this.tokens[end - 1]!.end) };
        return r;
      }
    }
    // "N00265 - 03/31/2025" is a lot and its expiry, not a range; "R09894 - 18Volt Nailer", a dash between
    // a code and a name of another shape, is no range either.
    const dashed = /^[-–—~]$/.test(next) && end === i + 1 && shape(t.text) !== shape(other);
    if (RANGE_WORDS.has(next) && /\d/.test(other) && !isDayDate(other) && !dashed) {
      // The second end is in two groups only when the first is ("… - 40012999 T40" ends before T40).
      return this.rangeEnds(i, end, end === i + 2 && this.grouped(end + 1) ? end + 3 : end + 2);
    }
    if (/^(?:or|and)$/.test(next) && BOUND_AFTER.test(this.tokens[end + 1]?.text ?? '')) return end + 2;
    return -1;
  }

  /**
   * Notes the range whose first end is tokens `from`…`word - 1` and second `word + 1`…`end - 1` (the range
   * word between), for the body to read as a rule; returns `end`.
   */
  private rangeEnds(from: number, word: number, end: number): number {
    const at = (a: number, b: number) => this.text.slice(this.tokens[a]!.start, this.tokens[b - 1]!.end);
    this.lastRange = { from: at(from, word), to: at(word + 1, end), printed: at(from, end) };
    return end;
  }

  /**
   * The end of a range whose first end is the `groups` groups at token `i` and whose second, after one word
   * ("to", "and"), mirrors it group by group in length and shape; undefined when it does not.
   */
  private mirroredEnds(i: number, groups: number): number | undefined {
    const to = i + groups + 1;
    const mirrors = (k: number) => {
      const [a, b] = [this.tokens[i + k]!.text, this.tokens[to + k]?.text ?? ''];
      return a.length === b.length && shape(a) === shape(b);
    };
    if (this.groupsAt(to) < groups || ![...Array(groups).keys()].every(mirrors)) return undefined;
    return this.rangeEnds(i, i + groups, to + groups);
  }

  /** How many groups of a code start at token `i`: runs with a digit, one space apart (at most four). */
  private groupsAt(i: number): number {
    let n = 0;
    for (let j = i; j < this.tokens.length && n < 4; j++) {
      const t = this.tokens[j]!;
      if (!/\d/.test(t.text) || !/^[A-Za-z0-9][A-Za-z0-9-]*$/.test(t.text)) break;
      if (j > i && this.text.slice(this.tokens[j - 1]!.end, t.start) !== ' ') break;
      n += 1;
    }
    return n;
  }

  /** Whether token `i` and the next are one code in two groups ("17348 L24", "2023 32-58"). */
  private grouped(i: number): boolean {
    const [t, next] = [this.tokens[i], this.tokens[i + 1]];
    return (
      t !== undefined &&
      next !== undefined &&
      /\d/.test(t.text) &&
      (/^[A-Z]{1,2}\d{1,2}$/.test(next.text) || (isYear(t.text) && /^\d{1,2}-\d{1,3}$/.test(next.text))) &&
      this.text.slice(t.end, next.start) === ' '
    );
  }

  /** Whether a value and the next are a range's two ends in two columns: same shape, nearly same length. */
  private isPair(value: { value: string; next: number }, columns: readonly Column[]): boolean {
    const lot = columns.find((c) => c.family === 'lot');
    const next = this.valueAt(value.next, columns, true);
    // "A B - C": B starts a range written with its word, A is a value of its own.
    const after = next === null ? '' : (this.tokens[next.next]?.text.toLowerCase() ?? '');
    if (
      lot === undefined ||
      next === null ||
      RANGE_WORDS.has(after) ||
      !this.fits(value.value, lot, true) ||
      !this.fits(next.value, lot, true)
    ) {
      return false;
    }
    return shape(value.value) === shape(next.value) && Math.abs(value.value.length - next.value.length) <= 2;
  }

  /**
   * Whether a table value is a vehicle's name after its model year, with the model number that
   * starts like it in a column of its own: "2025 KX450SR KX450PSFNN".
   */
  private namesNext(value: { value: string; next: number }, start: number): boolean {
    const before = this.tokens[start - 1];
    const next = this.tokens[value.next];
    return (
      before !== undefined &&
      isYear(before.text) &&
      next !== undefined &&
      isCodeShaped(next.text, 'model') &&
      next.text.length > value.value.length &&
      next.text.slice(0, NAME_STEM) === value.value.slice(0, NAME_STEM)
    );
  }

  /**
   * Whether token `i` is a colour after a list's last code with a code of the same shape next: a listing's
   * variants ("QB10004GR Gray QB10004BE Beige"), where the colour names the row, not the end of the list.
   */
  private colourBetween(i: number, found: readonly { value: string }[]): boolean {
    const last = found[found.length - 1]?.value;
    const next = this.tokens[i + 1]?.text;
    return (
      last !== undefined &&
      next !== undefined &&
      COLOURS.has(this.tokens[i]!.text.toLowerCase()) &&
      this.tokens[i - 1]?.text === last &&
      shape(next) === shape(last) &&
      /\d/.test(next)
    );
  }

  /** Whether the sentence at token `i` continues a table: it starts with codes, mostly. */
  private continuesTable(i: number, columns: readonly Column[]): boolean {
    let codes = 0;
    let seen = 0;
    for (let j = i; j < this.tokens.length && seen < 8; j++) {
      const t = this.tokens[j]!;
      if (SEPARATORS.has(t.text.toLowerCase())) continue;
      seen += 1;
      if (this.valueAt(j, columns, true) !== null) codes += 1;
      else if (seen === 1) return false;
    }
    return seen > 0 && codes / seen >= 0.6;
  }

  /** Reads a list or table body and keeps its values if there are at least `minCodes`. */
  private body(start: number, columns: Column[], opts: BodyOptions): number {
    const { table, minCodes, pairs, pairsOnly, labelEnd, priced, rangesNamed, alternate, prefixed } = opts;
    this.headerTable = table && minCodes === MIN_TABLE_CODES;
    this.priced = priced;
    // A lone code in a range column is no range's end: a model variant or a prefix, not a lot.
    if (pairsOnly) for (const c of columns) if (c.family === 'lot') c.pairsOnly = true;
    /** Values read, with the normalized form of a rule (`STEM*`, `FROM..TO`) when one is. */
    const found: { column: Column; value: string; rule?: string }[] = [];
    const lotAt = columns.findIndex((c) => c.family === 'lot');
    /** The column of a wildcard value: a list's own, a table's lot column when it is read in turn. */
    const ruleColumn = (): Column | undefined => {
      if (!table)
        return columns[0]!.family === 'model' || columns[0]!.family === 'lot' ? columns[0] : undefined;
      if (alternate) return columns[current === 0 ? 1 : 0];
      return columns.find((c) => c.family === 'model' && c.first === undefined) ?? columns[lotAt];
    };
    let current = -1;
    /** The token after the last value read into a column. */
    let lastEnd = -1;
    /** The shapes of the ranges' ends read: a lone value of one of them is a serial number, not a model. */
    const rangeShapes = new Set<string>();
    /** Ranges read, rules or not: a table's rows, so they count toward its codes. */
    let ranges = 0;
    let depth = 0;
    let i = start;
    for (; i < this.tokens.length && i - start < MAX_BODY;) {
      if (endsSentence(this.tokens, i)) {
        if (!table || !this.continuesTable(i + 1, columns)) break;
        i += 1;
        continue;
      }
      const t = this.tokens[i]!;
      // "(Rev A00 and A01)": revision marks in brackets are no codes.
      if (t.text === '(' && /^rev(?:ision)?s?\.?$/i.test(this.tokens[i + 1]?.text ?? '')) {
        const close = this.tokens.findIndex((tk, k) => k > i && k <= i + 12 && tk.text === ')');
        if (close !== -1) {
          i = close + 1;
          continue;
        }
      }
      const inner = this.labelStartingAt(i);
      if (inner !== undefined) {
        if (!table || inner.family === 'ndc' || inner.family === 'udi') break;
        const column = columnOf(inner);
        const same = columns.findIndex((c) => c.family === column.family);
        current = same !== -1 ? same : columns.push(column) - 1;
        i = this.tokenAt(inner.end);
        continue;
      }
      const bound = this.boundAt(i, start);
      if (bound !== -1) {
        // A range of serial numbers or lots is one rule when its ends share one shape; its ends are no values.
        const range = this.lastRange;
        if (range !== undefined) {
          rangeShapes.add(shape(range.from));
          ranges += 1;
        }
        const rule =
          range === undefined || lotAt === -1
            ? undefined
            : rangeOf(range.from, range.to, columns[lotAt]!.dateCodes);
        if (rule !== undefined) found.push(singleOrRange(columns[lotAt]!, range!.from, range!.printed, rule));
        if (lotAt !== -1) current = lotAt;
        i = bound;
        continue;
      }
      // A wildcard value is a prefix rule when its stem is long enough, else nothing; either way the list goes on.
      if (isWildcard(t.text)) {
        const column = ruleColumn();
        const rule = prefixOf(t.text);
        if (column !== undefined && rule !== undefined) {
          found.push({ column, value: t.text, rule });
          current = columns.indexOf(column);
        }
        i += 1;
        continue;
      }
      // Ends glued by a dash ("40512-41780"), several in a row in a text of ranges: one rule each.
      const glued = lotAt === -1 ? undefined : gluedEnds(t.text);
      if (glued !== undefined && readsAsRange(glued, rangesNamed)) {
        found.push({ column: columns[lotAt]!, value: t.text, rule: rangeOf(glued[0], glued[1])! });
        current = lotAt;
        i += 1;
        continue;
      }
      // A column of beginnings: a value of its length is a prefix rule when long enough, else nothing.
      const prefixColumn = columns.find((c) => c.prefixLength !== undefined);
      if (prefixColumn !== undefined && /^[A-Za-z0-9]+$/.test(t.text) && /\d/.test(t.text)) {
        if (t.text.length === prefixColumn.prefixLength) {
          const rule = prefixOf(`${t.text}*`);
          if (rule !== undefined) found.push({ column: prefixColumn, value: `${t.text}*`, rule });
          i += 1;
          continue;
        }
      }
      const value = this.valueAt(i, columns, table);
      if (value !== null && pairs && this.isPair(value, columns)) {
        if (lotAt !== -1) current = lotAt;
        const next = this.valueAt(value.next, columns, table)!;
        // Two columns holding a range's ends ("First serial number Last serial number"): one rule.
        // Only where the header says its columns hold ends, not single serial numbers too, nor ends after a
        // prefix column ("Prefix Min Max"), whose full serial number is unclear.
        const rule =
          lotAt === -1 || !pairsOnly || prefixed
            ? undefined
            : rangeOf(value.value, next.value, columns[lotAt]!.dateCodes);
        if (rule !== undefined) {
          const printed = this.text.slice(t.start, this.tokens[next.next - 1]!.end);
          found.push(singleOrRange(columns[lotAt]!, value.value, printed, rule));
        }
        i = next.next;
        continue;
      }
      if (value !== null) {
        const column = table
          ? this.tableColumn(value, columns, current, i, alternate ? { lastEnd } : null)
          : value.column;
        const at = i;
        i = value.next;
        if (column === -1) continue;
        const c = columns[column]!;
        // A model starting unlike its column's first (letter vs digit) is a description word.
        if (
          table &&
          value.alternate !== true &&
          c.family === 'model' &&
          c.first !== undefined &&
          shape(c.first)[0] !== shape(value.value)[0]
        ) {
          continue;
        }
        if (table && c.family === 'model' && this.namesNext(value, at)) continue;
        if (table && c.family === 'model' && rangeShapes.has(shape(value.value))) continue;
        current = column;
        lastEnd = i;
        c.first ??= value.value;
        found.push({ column: c, value: value.value });
        continue;
      }
      if (t.text === '(') depth += 1;
      else if (t.text === ')') {
        // A bracket opened before the label ends a list: "(Model #SM4910-10) or SKIL".
        if (depth === 0 && !table) break;
        depth = Math.max(0, depth - 1);
      } else if (
        !table &&
        depth === 0 &&
        !SEPARATORS.has(t.text.toLowerCase()) &&
        !this.colourBetween(i, found)
      )
        break;
      i += 1;
    }
    // Capitals alone ("MPISUS") need digit codes beside them or inner punctuation, else likely a name.
    const withDigits = found.some((f) => /\d/.test(f.value));
    const kept = found.filter((f) => withDigits || /\d|[-+/]/.test(f.value));
    // A body with a range or wildcard is read whatever its length: a rule is stated, never guessed.
    if (kept.length + ranges < minCodes && !kept.some((f) => f.rule !== undefined)) return labelEnd;
    for (const { column, value, rule } of kept) {
      if (rule !== undefined) this.out.addRule(column.kind, value, rule);
      else this.out.add(column.kind, value, confidenceOf(column, value), MIN_CODE_LENGTH);
    }
    return table ? (this.tokens[i - 1]?.end ?? labelEnd) : labelEnd;
  }

  /**
   * A table value's column. Read in turn (`alternate`), a value after a separator stays in the column of
   * the one before, any other takes the next column, when it fits there; else by {@link columnFor}.
   */
  private tableColumn(
    value: { column: number; value: string },
    columns: readonly Column[],
    current: number,
    at: number,
    alternate: { lastEnd: number } | null,
  ): number {
    if (alternate !== null && columns[value.column]!.family !== 'barcode') {
      // Only right after the value before (or its separator): words between make the row unclear.
      const before = this.tokens[at - 1]?.text.toLowerCase() ?? '';
      const turn =
        current === -1
          ? 0
          : alternate.lastEnd === at
            ? (current + 1) % columns.length
            : alternate.lastEnd === at - 1 && SEPARATORS.has(before)
              ? current
              : -1;
      if (turn !== -1 && this.fits(value.value, columns[turn]!, true)) return turn;
    }
    return this.columnFor(value, columns, current);
  }

  /**
   * A table value's column: the only one it fits, else the one whose first value it is most like
   * in shape; unlike all, a column not yet seen, or -1 (a model/lot guess would be a false match).
   */
  private columnFor(
    value: { column: number; value: string },
    columns: readonly Column[],
    current: number,
  ): number {
    if (columns[value.column]!.family === 'barcode') return value.column;
    const fits = columns.flatMap((c, index) =>
      !c.pairsOnly && c.prefixLength === undefined && this.fits(value.value, c, true) ? [index] : [],
    );
    const own = columns[value.column]!;
    if (fits.length <= 1)
      return fits[0] ?? (own.pairsOnly || own.prefixLength !== undefined ? -1 : value.column);
    if (new Set(fits.map((f) => columns[f]!.family)).size === 1)
      return fits.includes(current) ? current : fits[0]!;
    const v = value.value;
    const long = v.replace(/[^A-Za-z0-9]/g, '').length >= SERIAL_LENGTH;
    const modelsKnown = columns.some((c) => c.family === 'model' && c.first !== undefined);
    const score = (f: number): number => {
      const c = columns[f]!;
      if (c.family === 'vin') return 10;
      // Once models are known, a long code unlike them is a serial number.
      if (c.first === undefined) return c.family === 'lot' && long && modelsKnown ? 0.4 : 0;
      const [a, b] = [shape(c.first), shape(v)];
      const gap = Math.abs(c.first.length - v.length);
      if (a === b) return gap <= 2 ? 3 - gap / 10 : gap <= 5 ? 1 - gap / 10 : 0;
      // Same stem, variant after: "PH11887" and "PH11887-1".
      if (stem(a) === stem(b)) return 0.8 - Math.min(gap, 9) / 20;
      return a.charAt(0) === b.charAt(0) && classes(a) === classes(b) && gap <= 5 ? 0.5 - gap / 20 : 0;
    };
    const best = Math.max(...fits.map(score));
    if (best === 0) {
      const unseen = fits.filter((f) => columns[f]!.first === undefined);
      return unseen.find((f) => f > current) ?? unseen[0] ?? -1;
    }
    const top = fits.filter((f) => score(f) === best);
    return top.find((f) => f > current) ?? top[0]!;
  }
}
