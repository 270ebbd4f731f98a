/**
 * Everything an identifier label governs, token by token: a list after it ("Lots 18024 18037"),
 * a list after a colon, or a product table flattened into prose whose header names the columns.
 * Precision first: a table needs {@link MIN_TABLE_CODES} codes; ranges and wildcards are never codes.
 * This file reads a list's or table's body; the layers under the reader are `code-run-values.ts` (what a
 * token reads as, and its column), `code-run-ranges.ts` (ranges and bounds) and `code-run-tokens.ts`; the
 * words it goes by are in `code-run-words.ts`, its columns and their helpers in `code-run-columns.ts`.
 */
import type { Confidence, IdentifierKind } from '../../domain/identifiers/kinds.ts';
import { isCodeShaped, isYear } from './code-shapes.ts';
import { columnOf, confidenceOf, distinct, shape, singleOrRange, type Column } from './code-run-columns.ts';
import { CodeRunValues } from './code-run-values.ts';
import {
  COLOURS,
  FILLER,
  MAX_BODY,
  MAX_LEAD_IN,
  MIN_CODE_LENGTH,
  MIN_TABLE_CODES,
  NAME_STEM,
  PAIRED_COLUMNS,
  SEPARATORS,
  SINGLES_OR_RANGES,
} from './code-run-words.ts';
import type { Label } from './labels.ts';
import { RANGES_NAMED, gluedEnds, isWildcard, prefixOf, rangeOf, readsAsRange } from './rule-values.ts';
import { endsSentence, type Token } from './tokens.ts';

/** Where read values go: normalised and kept when the normaliser accepts them. */
export interface CodeSink {
  add(kind: IdentifierKind, value: string, confidence: Confidence, minLength?: number): boolean;
  /** A match rule (`STEM*`, `FROM..TO`) of a model or lot, `value` as printed. */
  addRule(kind: IdentifierKind, value: string, normalized: string): void;
}

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

/** Reads the values a label governs; see the module comment. */
export class CodeRunReader extends CodeRunValues {
  constructor(
    text: string,
    tokens: readonly Token[],
    labels: readonly Label[],
    private readonly out: CodeSink,
  ) {
    super(text, tokens, labels);
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
}
