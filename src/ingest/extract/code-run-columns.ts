/**
 * The columns of a list or flattened table the code-run reader fills (one per identifier family), and the
 * pure helpers over its values: a code's shape, its confidence, a range rule or the one value it names.
 */
import type { Confidence, IdentifierKind } from '../../domain/identifiers/kinds.ts';
import { normaliseVin } from '../../domain/identifiers/vin.ts';
import type { Label } from './labels.ts';

/** A column of a list or table: the identifiers of one family read into it. */
export interface Column {
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

/** One column per family, in the order of their first label (two serial-number columns are one). */
export function distinct(columns: readonly Column[]): Column[] {
  return columns.filter((c, i) => columns.findIndex((d) => d.family === c.family) === i);
}

export function columnOf(label: Label): Column {
  return {
    family:
      label.family === 'barcode' || label.family === 'lot' || label.family === 'vin' ? label.family : 'model',
    kind: label.kind,
    dateCodes: label.dateCodes,
  };
}

/** The shape of a code: its runs of letters, digits and punctuation (`GDM-47FC` → `A-9A`). */
export function shape(code: string): string {
  return code
    .replace(/[A-Za-z]+/g, 'A')
    .replace(/\d+/g, '9')
    .replace(/[^A9]+/g, '-');
}

/** How sure a value read from prose is (../shared/spec/identifiers.md, "Confidence at ingestion"). */
export function confidenceOf(column: Column, value: string): Confidence {
  if (column.family === 'barcode') return 'extracted';
  if (column.family === 'vin') {
    const vin = normaliseVin(value);
    return vin.ok && vin.checkDigitValid ? 'extracted' : 'inferred';
  }
  return 'inferred';
}

/** "KAF1000LRFNN/LRFNL" → "KAF1000LRFNN" (a variant suffix); "NE58N9430SG/AA", "KX-200A/BK" stay. */
export function withoutAlternateSuffix(value: string): string {
  // Only a short code with a slash: the pattern backtracks over a long run (64 KB of digits took 3 s).
  if (value.length > 64 || !value.includes('/')) return value;
  const m = /^([^/]*\d[^/]*?([A-Za-z]{4,}))\/([A-Za-z]{4,})$/.exec(value);
  return m !== null && m[2]!.length === m[3]!.length ? m[1]! : value;
}

/** A range rule read into `column`, or the one value it names when its ends are equal ("A thru A"). */
export function singleOrRange(
  column: Column,
  from: string,
  printed: string,
  rule: string,
): { column: Column; value: string; rule?: string } {
  const [lo, hi] = rule.split('..');
  return lo === hi ? { column, value: from } : { column, value: printed, rule };
}

export function stem(shapeOf: string): string {
  return shapeOf.split('-')[0]!;
}

export function classes(shapeOf: string): string {
  return [...new Set(shapeOf)].sort().join('');
}
