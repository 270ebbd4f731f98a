/**
 * matches.csv: one line per catalogue identifier cell and recall it matched, placed back on its
 * row through the receipt's `matched_on` (kind and canonical form, as the shared normaliser gives).
 */
import { readFileSync } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { MatchEntry } from '../../client/index.ts';
import { pairKey, type OccurrenceIndex } from './check-plan.ts';

/** The columns of matches.csv, in order (its header row). */
export const MATCH_COLUMNS = [
  'row',
  'row_id',
  'kind',
  'value',
  'normalized',
  'recall_id',
  'title',
  'severity',
  'recall_date',
  'jurisdiction',
  'url',
  'check_id',
] as const;

/** One line of matches.csv. `row` is empty for a match the catalogue cannot place (see matchLines). */
export type MatchLine = Record<(typeof MATCH_COLUMNS)[number], string>;

/** A checked chunk's receipt: its id and matches. */
export interface ReceiptMatches {
  checkId: string;
  matches: readonly MatchEntry[];
}

/**
 * The lines for the receipts, by row, then recall id, then kind. A match whose `matched_on` is on
 * no row (only if the service normalised differently from this client) still gets a line, with
 * no row, and is returned in `unplaced`.
 */
export function matchLines(
  receipts: readonly ReceiptMatches[],
  index: OccurrenceIndex,
): { lines: MatchLine[]; unplaced: MatchEntry[] } {
  const lines: MatchLine[] = [];
  const unplaced: MatchEntry[] = [];
  for (const { checkId, matches } of receipts) {
    for (const m of matches) {
      const recall = {
        normalized: m.matched_on.normalized,
        recall_id: m.recall_id,
        title: m.title ?? '',
        severity: m.severity ?? '',
        recall_date: m.recall_date ?? '',
        jurisdiction: m.jurisdiction ?? '',
        url: m.url ?? '',
        check_id: checkId,
      };
      const occurrences = index.get(pairKey(m.matched_on.kind, m.matched_on.normalized));
      if (occurrences === undefined) {
        unplaced.push(m);
        lines.push({ row: '', row_id: '', kind: m.matched_on.kind, value: '', ...recall });
        continue;
      }
      for (const o of occurrences)
        lines.push({ row: String(o.row), row_id: o.id ?? '', kind: o.kind, value: o.value, ...recall });
    }
  }
  const rowOf = (l: MatchLine) => (l.row === '' ? Number.MAX_SAFE_INTEGER : Number(l.row));
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  lines.sort(
    (a, b) =>
      rowOf(a) - rowOf(b) || text(a.recall_id, b.recall_id) || text(a.kind, b.kind) || text(a.value, b.value),
  );
  return { lines, unplaced };
}

/**
 * matches.csv's text: the header row, then the lines. A cell that a spreadsheet would run as a formula (it
 * starts with `=`, `+`, `-`, `@`, a tab or a carriage return, as an agency's title or a catalogue cell may)
 * is written with a `'` before it, so opening the file never runs what an upstream text holds.
 */
export function formatMatches(lines: readonly MatchLine[]): string {
  return stringify(lines as MatchLine[], {
    header: true,
    columns: [...MATCH_COLUMNS],
    escape_formulas: true,
  });
}

/** Reads a matches.csv written by formatMatches; throws naming the file when it is not one. */
export function readMatches(path: string): MatchLine[] {
  const text = readFileSync(path, 'utf8');
  let records: Record<string, string>[];
  try {
    records = parseCsv(text, { columns: true }) as Record<string, string>[];
  } catch (error) {
    throw new Error(`${path} is not readable CSV: ${(error as Error).message}`, { cause: error });
  }
  const header = text.slice(0, text.indexOf('\n')).trim();
  if (header !== MATCH_COLUMNS.join(','))
    throw new Error(`${path} does not start with the header of matches.csv (${MATCH_COLUMNS.join(',')})`);
  return records as MatchLine[];
}
