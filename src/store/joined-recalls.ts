/**
 * Recalls' JSON joined by the database into one value, with each recall's list position, source and byte
 * length beside it (and, for a lookup, the identifier it matched): one value to hand over for many recalls,
 * where reading each recall's columns made eleven. Here the value is split into its recalls' pieces again,
 * and a list page cut to its size (its statement reads one row more, to know whether another page follows).
 */
import type { JsonText } from '../domain/json-text.ts';

/** Keyset position in the newest-first order: the last row's sort date and id. */
export interface RecallPosition {
  sortDate: string;
  id: string;
}

/** A page of `GET /v1/recalls`, as served. */
export interface RecallPage {
  /** The page's `data`: a JSON array of recalls, as served. */
  json: JsonText;
  /** How many recalls it lists. */
  count: number;
  /** Where its last recall stands (the next page starts after it); undefined for an empty page. */
  last?: RecallPosition;
  /** The sources of the recalls listed, each once, in first-listed order. */
  sourceIds: string[];
  /** Whether another page follows. */
  more: boolean;
}

/** One recall of a joined value: its sort date, id, source and the byte length of its JSON. */
export type JoinedRow = [sortDate: string, id: string, sourceId: string, bytes: number];

/** A JoinedRow, possibly with more fields after its four. */
type JoinedRowHead = readonly [
  sortDate: string,
  id: string,
  sourceId: string,
  bytes: number,
  ...more: unknown[],
];

/** Newest publication first, then id (ids and sort dates are ASCII: code-unit order is byte order). */
export function compareListOrder(a: RecallPosition, b: RecallPosition): number {
  if (a.sortDate !== b.sortDate) return a.sortDate > b.sortDate ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A joined row's list position. */
export const positionOfJoined = (row: JoinedRowHead): RecallPosition => ({
  sortDate: row[0],
  id: row[1],
});

/**
 * Each row's JSON in the joined value (views of its bytes), in the rows' order, checked against their
 * lengths. PostgreSQL hands the value over as text: it is encoded here, since the lengths count bytes.
 */
export function splitJoined(
  joined: string | Uint8Array | null,
  rows: readonly JoinedRowHead[],
): Uint8Array[] {
  const bytes =
    joined === null ? new Uint8Array(0) : typeof joined === 'string' ? Buffer.from(joined) : joined;
  const pieces: Uint8Array[] = [];
  let at = 0;
  for (const row of rows) {
    pieces.push(bytes.subarray(at, at + row[3]));
    at += row[3] + 1;
  }
  if (at - (rows.length > 0 ? 1 : 0) !== bytes.length)
    throw new Error(
      `a joined value of ${bytes.length} bytes does not hold its ${rows.length} recalls' lengths`,
    );
  return pieces;
}

/**
 * The first `limit` recalls of a joined list page, in list order. The database joins them in the order its
 * ordered subquery gives them, and then the page is one view of the value; should it not, the pieces are put
 * in order here.
 */
export function pageOfJoined(
  joined: string | Uint8Array | null,
  rows: readonly JoinedRow[],
  limit: number,
): RecallPage {
  const pieces = splitJoined(joined, rows);
  const positions = rows.map(positionOfJoined);
  let order = rows.map((_, i) => i);
  const inOrder = positions.every((p, i) => i === 0 || compareListOrder(positions[i - 1]!, p) < 0);
  if (!inOrder) order = order.sort((a, b) => compareListOrder(positions[a]!, positions[b]!));
  const kept = order.slice(0, limit);
  let data: JsonText;
  if (inOrder && kept.length > 0) {
    const head = pieces[0]!;
    const tail = pieces[kept.length - 1]!;
    data = new Uint8Array(head.buffer, head.byteOffset, tail.byteOffset + tail.length - head.byteOffset);
  } else {
    data = kept.flatMap((i, n) => (n === 0 ? [pieces[i]!] : [',', pieces[i]!]));
  }
  const last = kept.length === 0 ? undefined : positions[kept[kept.length - 1]!]!;
  return {
    json: ['[', data, ']'],
    count: kept.length,
    ...(last === undefined ? {} : { last }),
    sourceIds: [...new Set(kept.map((i) => rows[i]![2]))],
    more: rows.length > limit,
  };
}
