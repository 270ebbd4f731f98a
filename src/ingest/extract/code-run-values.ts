/**
 * The third layer of the code-run reader: what a token reads as (a barcode, possibly in groups, or a code
 * that fits a column), whether two values are a range's ends in two columns, and which column of a table
 * a value goes into.
 */
import { normaliseIdentifier } from '../../domain/identifiers/normalise.ts';
import { normaliseVin } from '../../domain/identifiers/vin.ts';
import { embedsFullDate, isCodeShaped, isDateLike, isDayDate, isUnitWord, isYear } from './code-shapes.ts';
import { classes, shape, stem, withoutAlternateSuffix, type Column } from './code-run-columns.ts';
import { CodeRunRanges } from './code-run-ranges.ts';
import {
  BRAND_WORD,
  COMMON_CAPITALS,
  LETTER_CODE,
  MIN_CODE_LENGTH,
  MIXED_CODE,
  RANGE_WORDS,
  SEPARATORS,
  SERIAL_LENGTH,
  VERB_AFTER,
} from './code-run-words.ts';

/** Values at a token and the columns they go into. */
export abstract class CodeRunValues extends CodeRunRanges {
  /** Set by the reader for each body: a table with no colon before its values, read by its header alone. */
  protected headerTable = false;
  /** Set by the reader for each body: the table has a price column. */
  protected priced = false;

  /** Token `i` as a value of one of the columns: a barcode (possibly in groups) or a code. */
  protected valueAt(
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

  /** Whether a value and the next are a range's two ends in two columns: same shape, nearly same length. */
  protected isPair(value: { value: string; next: number }, columns: readonly Column[]): boolean {
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
   * A table value's column. Read in turn (`alternate`), a value after a separator stays in the column of
   * the one before, any other takes the next column, when it fits there; else by {@link columnFor}.
   */
  protected tableColumn(
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
