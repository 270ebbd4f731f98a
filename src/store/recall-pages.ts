/**
 * Pages of recalls as served, in the newest-first list order; and list pages joined by the database: each
 * recall's JSON written in SQL from the template `assembleRecall` writes from (recall-json.ts `RECALL_TEMPLATE`)
 * around its stored rendering, and the page's recalls joined into one value, each one's position, source and
 * byte length beside it. The driver hands over two values a page
 * where reading each recall's columns made eleven a recall: `GET /v1/recalls` page 1 takes ~390 µs of server CPU
 * this way against ~605 µs assembled here (bench/BOUNDS.md). The bytes are `assembleRecall`'s
 * (test/integration/rendered-answers.test.ts compares them).
 */
import { sql, type AliasedSelectQueryBuilder, type Expression, type Kysely } from 'kysely';
import type { JsonText } from '../domain/json-text.ts';
import { RECALL_TEMPLATE, type Slot, type SlotName } from '../domain/recall-json.ts';
import type { Engine } from './engine.ts';
import type { Database } from './schema.ts';

/** Keyset position in the newest-first order: the last row's sort date and id. */
export interface RecallPosition {
  sortDate: string;
  id: string;
}

/** Newest publication first, then id (ASCII both: code-unit order is the engines' byte order). */
export function compareListOrder(a: RecallPosition, b: RecallPosition): number {
  if (a.sortDate !== b.sortDate) return a.sortDate > b.sortDate ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A recall read for an answer: its JSON, assembled around the stored rendering, and its list position. */
export interface RenderedRecall {
  id: string;
  sourceId: string;
  /** Where it stands in the newest-first order (the next page's cursor). */
  position: RecallPosition;
  /** A RecallSummary, a Recall (with its identifiers) or, from a lookup, a RecallMatch, as served. */
  json: JsonText;
}

/** A page of recalls as served, in list order, and whether another page follows. */
export interface RecallPage {
  rows: RenderedRecall[];
  more: boolean;
}

/** A RecallSummary's JSON, written by the database from a row of `recalls as r` joined to `sources as s`. */
export function recallJsonSql(engine: Engine) {
  const q = (column: string) => engine.jsonQuote(sql.ref(column));
  const slots: Record<SlotName, Expression<unknown>> = {
    id: q('r.id'),
    sourceId: q('r.source_id'),
    recordId: q('r.record_id'),
    agency: q('s.agency'),
    jurisdiction: q('r.jurisdiction'),
    revision: sql.ref('r.revision'),
    dataAsOf: engine.jsonQuote(sql`coalesce(s.data_as_of, r.last_seen_at)`),
    firstSeenAt: q('r.first_seen_at'),
    lastSeenAt: q('r.last_seen_at'),
  };
  const written = (parts: readonly (string | Slot)[]) =>
    parts.map((part) => (typeof part === 'string' ? sql.lit(part) : slots[part.slot]));
  return sql<string>`concat(${sql.join([
    ...written(RECALL_TEMPLATE.head),
    sql.ref('r.rendered_fields'),
    ...written(RECALL_TEMPLATE.tail),
    sql.lit('}'),
  ])})`;
}

/** What a list page's ordered subquery selects, as `j`: each recall's list position, source and JSON. */
export type JoinedSource = AliasedSelectQueryBuilder<
  { id: string; sort_date: string; source_id: string; json: string },
  'j'
>;

/** The recalls `rows` selects as one row: their JSON joined, and each one's `[sort_date, id, source_id, bytes]`. */
export const joinedOf = (db: Kysely<Database>, engine: Engine, rows: JoinedSource) =>
  db
    .selectFrom(rows)
    .select([
      engine.commaJoined(sql.ref('j.json')).as('joined'),
      engine
        .jsonRows([
          sql.ref('j.sort_date'),
          sql.ref('j.id'),
          sql.ref('j.source_id'),
          sql`octet_length(j.json)`,
        ])
        .as('rows'),
    ]);

/** One recall of a joined value: its list position, source and the byte length of its JSON. */
type JoinedRow = [sortDate: string, id: string, sourceId: string, bytes: number];

/**
 * The first `limit` recalls of a joined page, in list order, each a view of the joined bytes. PostgreSQL hands
 * the value over as text: it is encoded here, since the lengths count bytes. The database joins the recalls in
 * the order its ordered subquery gives them; should it not, they are put in order here.
 */
export function pageOfJoined(
  joined: string | Uint8Array | null,
  rowsJson: string,
  limit: number,
): RecallPage {
  const bytes =
    joined === null ? new Uint8Array(0) : typeof joined === 'string' ? Buffer.from(joined) : joined;
  const rows: RenderedRecall[] = [];
  let at = 0;
  for (const [sortDate, id, sourceId, length] of JSON.parse(rowsJson) as JoinedRow[]) {
    rows.push({ id, sourceId, position: { sortDate, id }, json: bytes.subarray(at, at + length) });
    at += length + 1;
  }
  if (at - (rows.length > 0 ? 1 : 0) !== bytes.length)
    throw new Error(
      `a joined value of ${bytes.length} bytes does not hold its ${rows.length} recalls' lengths`,
    );
  if (rows.some((r, i) => i > 0 && compareListOrder(rows[i - 1]!.position, r.position) >= 0))
    rows.sort((a, b) => compareListOrder(a.position, b.position));
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}
