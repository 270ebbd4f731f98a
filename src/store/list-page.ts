/**
 * A list page put together by the database: its recalls' JSON joined by commas in one value, and beside it
 * each recall's list position, source and byte length. Here the page is cut to its size (the statement reads
 * one row more, to know whether another page follows) and checked to be in list order.
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

/** One recall of the joined value: its sort date, id, source and the byte length of its JSON. */
export type JoinedRow = [sortDate: string, id: string, sourceId: string, bytes: number];

/** Newest publication first, then id (ids and sort dates are ASCII: code-unit order is byte order). */
export function compareListOrder(a: RecallPosition, b: RecallPosition): number {
  if (a.sortDate !== b.sortDate) return a.sortDate > b.sortDate ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

const positionOf = (row: JoinedRow): RecallPosition => ({ sortDate: row[0], id: row[1] });

/**
 * The first `limit` recalls of the joined value, in list order. The database joins them in the order its
 * ordered subquery gives them; should it not, the pieces are put in order here by their lengths.
 */
export function pageOfJoined(
  joined: string | Uint8Array | null,
  rows: readonly JoinedRow[],
  limit: number,
): RecallPage {
  const bytes =
    joined === null ? new Uint8Array(0) : typeof joined === 'string' ? Buffer.from(joined) : joined;
  const starts: number[] = [];
  let at = 0;
  for (const row of rows) {
    starts.push(at);
    at += row[3] + 1;
  }
  if (at - (rows.length > 0 ? 1 : 0) !== bytes.length)
    throw new Error(`a list page of ${bytes.length} bytes does not hold its ${rows.length} recalls' lengths`);
  let order = rows.map((_, i) => i);
  const inOrder = order.every(
    (i) => i === 0 || compareListOrder(positionOf(rows[i - 1]!), positionOf(rows[i]!)) < 0,
  );
  if (!inOrder) order = order.sort((a, b) => compareListOrder(positionOf(rows[a]!), positionOf(rows[b]!)));
  const kept = order.slice(0, limit);
  const piece = (i: number) => bytes.subarray(starts[i], starts[i]! + rows[i]![3]);
  let data: JsonText;
  if (inOrder) {
    const end = kept.length === 0 ? 0 : starts[kept.length - 1]! + rows[kept.length - 1]![3];
    data = bytes.subarray(0, end);
  } else {
    data = kept.flatMap((i, n) => (n === 0 ? [piece(i)] : [',', piece(i)]));
  }
  const lastRow = kept.length === 0 ? undefined : rows[kept[kept.length - 1]!]!;
  return {
    json: ['[', data, ']'],
    count: kept.length,
    ...(lastRow === undefined ? {} : { last: positionOf(lastRow) }),
    sourceIds: [...new Set(kept.map((i) => rows[i]![2]))],
    more: rows.length > limit,
  };
}
