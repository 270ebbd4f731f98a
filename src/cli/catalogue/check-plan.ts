/**
 * How catalogue rows become checks. Each identifier is sent once, with the first row that holds
 * it (same kind and canonical form, by the service's own normaliser); the rows are cut into
 * consecutive ranges whose new identifiers fit one check (1000). So a chunk is reproducible from
 * the catalogue alone: the identifiers first seen in its rows.
 */
import { normaliseIdentifier } from '../../client/index.ts';
import type { CatalogueRow } from './catalogue.ts';

/** Identifiers in one check: the service's limit. */
export const CHECK_SIZE = 1000;

/** An identifier as sent: its kind and the value of the first row that holds it, as written. */
export interface SentIdentifier {
  kind: string;
  value: string;
}

/** Consecutive catalogue rows checked together. */
export interface Chunk {
  /** 1-based. */
  number: number;
  firstRow: number;
  lastRow: number;
  identifiers: SentIdentifier[];
}

/** One identifier cell of the catalogue. */
export interface Occurrence {
  row: number;
  id: string | null;
  kind: string;
  value: string;
}

/** Where a `kind:normalized` pair (as a receipt's `matched_on` names it) occurs in the catalogue. */
export type OccurrenceIndex = Map<string, Occurrence[]>;

/** The key of a receipt's `matched_on` (and of a normalised cell): `kind:normalized`, kind lower-cased. */
export function pairKey(kind: string, normalized: string): string {
  return `${kind.toLowerCase()}:${normalized}`;
}

/** Per row, the identifiers not held by an earlier row; and where every checkable pair occurs. */
function firstSightings(rows: readonly CatalogueRow[]): {
  fresh: SentIdentifier[][];
  index: OccurrenceIndex;
} {
  const seen = new Set<string>();
  const index: OccurrenceIndex = new Map();
  const fresh = rows.map((row) => {
    const sent: SentIdentifier[] = [];
    for (const { kind, value } of row.identifiers) {
      const n = normaliseIdentifier(kind, value);
      // A value the normaliser refuses is still sent (once per kind and text): the receipt lists it.
      const key = n.ok ? pairKey(kind, n.normalized) : `\u0000${kind}\u0000${value}`;
      if (n.ok) {
        const list = index.get(key);
        const occurrence = { row: row.row, id: row.id, kind, value };
        if (list === undefined) index.set(key, [occurrence]);
        else list.push(occurrence);
      }
      if (seen.has(key)) continue;
      seen.add(key);
      sent.push({ kind, value });
    }
    return sent;
  });
  return { fresh, index };
}

/** Cuts the rows into chunks of at most `size` identifiers (each row whole). */
export function planChecks(
  rows: readonly CatalogueRow[],
  size = CHECK_SIZE,
): { chunks: Chunk[]; index: OccurrenceIndex } {
  const { fresh, index } = firstSightings(rows);
  const chunks: Chunk[] = [];
  rows.forEach((row, i) => {
    const sent = fresh[i]!;
    const current = chunks.at(-1);
    // A chunk never starts empty: every row here holds an identifier, and the first row's are all new.
    if (current === undefined || current.identifiers.length + sent.length > size)
      chunks.push({ number: chunks.length + 1, firstRow: row.row, lastRow: row.row, identifiers: [...sent] });
    else {
      current.lastRow = row.row;
      current.identifiers.push(...sent);
    }
  });
  return { chunks, index };
}

/** The identifiers the rows `firstRow..lastRow` bring, by the same rule: what a recorded chunk must have sent. */
export function identifiersOfRows(
  rows: readonly CatalogueRow[],
  ranges: readonly { firstRow: number; lastRow: number }[],
): SentIdentifier[][] {
  const { fresh } = firstSightings(rows);
  return ranges.map(({ firstRow, lastRow }) =>
    rows.flatMap((row, i) => (row.row >= firstRow && row.row <= lastRow ? fresh[i]! : [])),
  );
}
