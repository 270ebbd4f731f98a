/**
 * Read queries over recalls, their identifiers and revisions. Everything a route needs comes
 * back as domain shapes; no caller sees a column name.
 */
import type { Kysely } from 'kysely';
import type { Hit } from '../domain/check.ts';
import { isMoreCertain, type Confidence, type IdentifierKind } from '../domain/identifiers/kinds.ts';
import type { Identifier, Recall, Revision } from '../domain/recall.ts';
import type { HazardCategory, Remedy, Severity } from '../domain/taxonomy.ts';
import type { Engine } from './engine.ts';
import { NO_SORT_DATE, type Database } from './schema.ts';

/** Filters of GET /v1/recalls, already validated. */
export interface RecallFilters {
  jurisdiction?: string;
  source?: string;
  hazard_category?: string;
  severity?: string;
  remedy?: string;
  /** Earliest recall_date, inclusive (YYYY-MM-DD). */
  from?: string;
  /** Latest recall_date, inclusive (YYYY-MM-DD). */
  to?: string;
}

/** Keyset position in the newest-first order: the last row's sort date and id. */
export interface RecallPosition {
  sortDate: string;
  id: string;
}

/** A recall in a list: every field but its identifiers. */
export type RecallSummary = Omit<Recall, 'identifiers'>;

/** A recall found by an identifier, with the stored identifier that matched. */
export interface RecallMatch extends RecallSummary {
  match: { kind: IdentifierKind; normalized: string; confidence: Confidence };
}

/** Keys to probe for one identifier (see domain/identifiers match-keys). */
export interface ProbeKeys {
  matchKeys: string[];
  productKeys: string[];
}

type RecallRow = Omit<Database['recalls'], 'content' | 'content_hash'> & {
  agency: string;
  source_data_as_of: string | null;
};

function parseList(json: string): string[] {
  const v: unknown = JSON.parse(json);
  return Array.isArray(v) ? v.map(String) : [];
}

function toSummary(row: RecallRow): RecallSummary {
  return {
    id: row.id,
    source: {
      id: row.source_id,
      record_id: row.record_id,
      agency: row.agency,
      jurisdiction: row.jurisdiction,
    },
    title: row.title,
    summary: row.summary,
    hazard: { category: row.hazard_category as HazardCategory | null, text: row.hazard_text },
    product: { category: row.product_category, brands: parseList(row.brands), models: parseList(row.models) },
    severity: row.severity as Severity | null,
    source_classification: row.source_classification,
    remedy: row.remedy as Remedy | null,
    recall_date: row.recall_date,
    published_date: row.published_date,
    countries: parseList(row.countries),
    url: row.url,
    revision: row.revision,
    data_as_of: row.source_data_as_of ?? row.last_seen_at,
    first_seen_at: row.first_seen_at,
    last_seen_at: row.last_seen_at,
  };
}

/** The sort key of a summary, for the next page's cursor. */
export function positionOf(recall: RecallSummary): RecallPosition {
  return { sortDate: recall.published_date ?? NO_SORT_DATE, id: recall.id };
}

/** The recall columns and the two source columns every recall read returns. */
const RECALL_SELECT =
  'SELECT r.id, r.source_id, r.record_id, r.jurisdiction, r.title, r.summary, r.hazard_category, r.hazard_text, ' +
  'r.product_category, r.brands, r.models, r.severity, r.source_classification, r.remedy, r.recall_date, ' +
  'r.published_date, r.sort_date, r.countries, r.url, r.revision, r.first_seen_at, r.last_seen_at, ' +
  's.agency AS agency, s.data_as_of AS source_data_as_of FROM recalls r JOIN sources s ON s.id = r.source_id';

/** Filters in a fixed order, with their column and comparison. */
const FILTER_SQL: [keyof RecallFilters, string][] = [
  ['jurisdiction', 'r.jurisdiction = ?'],
  ['source', 'r.source_id = ?'],
  ['hazard_category', 'r.hazard_category = ?'],
  ['severity', 'r.severity = ?'],
  ['remedy', 'r.remedy = ?'],
  ['from', 'r.recall_date >= ?'],
  ['to', 'r.recall_date <= ?'],
];

/** The conditions and parameters of the filters given, in FILTER_SQL's order. */
function filterConditions(filters: RecallFilters): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  for (const [name, condition] of FILTER_SQL) {
    const value = filters[name];
    if (value === undefined) continue;
    where.push(condition);
    params.push(value);
  }
  return { where, params };
}

/**
 * After a keyset position in the newest-first order. Written so that both engines see the range
 * `sort_date <= ?` on the order index: a later page starts where the last one ended, however deep.
 */
const AFTER_SQL = 'r.sort_date <= ? AND (r.sort_date < ? OR r.id > ?)';
/**
 * The list order and page size. The size is written into the statement (a validated whole
 * number, one prepared statement per size) so that a cached generic plan still knows it and
 * walks the order index rather than sorting every row.
 */
function orderAndLimit(rows: number): string {
  if (!Number.isSafeInteger(rows) || rows < 1) throw new Error(`bad page size ${rows}`);
  return ` ORDER BY r.sort_date DESC, r.id ASC LIMIT ${rows}`;
}

/** A lookup whose keys hit at most this many stored identifiers orders them in memory, not in SQL. */
const JOIN_LIMIT = 200;

/** RECALL_SELECT reached from the identifiers table, with the identifier that matched. */
const JOINED_SELECT =
  RECALL_SELECT.replace(
    'SELECT ',
    'SELECT i.kind AS match_kind, i.normalized AS match_normalized, i.confidence AS match_confidence, ',
  ).replace(' FROM recalls r JOIN', ' FROM identifiers i JOIN recalls r ON r.id = i.recall_id JOIN') +
  ' WHERE ';

type JoinedRow = RecallRow & { match_kind: string; match_normalized: string; match_confidence: string };

/** Newest publication first, then id: the list order. */
function compareListOrder(a: RecallRow, b: RecallRow): number {
  if (a.sort_date !== b.sort_date) return a.sort_date > b.sort_date ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Keeps, per recall, the strongest matching identifier (first seen among equals). */
function keepBest(
  best: Map<string, RecallMatch['match']>,
  recallId: string,
  hit: { kind: string; normalized: string; confidence: string },
): void {
  const current = best.get(recallId);
  if (current === undefined || isMoreCertain(hit.confidence as Confidence, current.confidence)) {
    best.set(recallId, {
      kind: hit.kind as IdentifierKind,
      normalized: hit.normalized,
      confidence: hit.confidence as Confidence,
    });
  }
}

export class RecallsStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
  ) {}

  /** One page of recalls, newest publication first, undated last; `more` when another page exists. */
  async list(
    filters: RecallFilters,
    limit: number,
    after?: RecallPosition,
  ): Promise<{ rows: RecallSummary[]; more: boolean }> {
    const { where, params } = filterConditions(filters);
    if (after !== undefined) {
      where.push(AFTER_SQL);
      params.push(after.sortDate, after.sortDate, after.id);
    }
    const sql = `${RECALL_SELECT}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}${orderAndLimit(limit + 1)}`;
    const rows = await this.engine.prepare<RecallRow>(sql).all(params);
    return { rows: rows.slice(0, limit).map(toSummary), more: rows.length > limit };
  }

  /** Exact count of recalls matching the filters. */
  async count(filters: RecallFilters): Promise<number> {
    const { where, params } = filterConditions(filters);
    const sql = `SELECT count(*) AS n FROM recalls r${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
    const [row] = await this.engine.prepare<{ n: number | string }>(sql).all(params);
    return Number(row?.n ?? 0);
  }

  /** Total number of recalls held. */
  async size(): Promise<number> {
    return this.count({});
  }

  /** One recall with every extracted identifier, or undefined. */
  async get(id: string): Promise<Recall | undefined> {
    const [row] = await this.engine.prepare<RecallRow>(`${RECALL_SELECT} WHERE r.id = ?`).all([id]);
    if (row === undefined) return undefined;
    const identifiers = await this.engine
      .prepare<Identifier>(
        'SELECT kind, value, normalized, confidence FROM identifiers WHERE recall_id = ? ORDER BY kind, normalized, value',
      )
      .all([id]);
    return { ...toSummary(row), identifiers };
  }

  /** Whether a recall exists and the source it belongs to. */
  async sourceOf(id: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('recalls')
      .select('source_id')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.source_id;
  }

  /** Amendments of a recall, oldest first, after a given revision number. */
  async revisions(
    id: string,
    limit: number,
    afterRevision = 0,
  ): Promise<{ rows: Revision[]; more: boolean }> {
    const rows = await this.db
      .selectFrom('revisions')
      .selectAll()
      .where('recall_id', '=', id)
      .where('revision', '>', afterRevision)
      .orderBy('revision', 'asc')
      .limit(limit + 1)
      .execute();
    return {
      rows: rows.slice(0, limit).map((r) => ({
        revision: r.revision,
        observed_at: r.observed_at,
        changed_fields: JSON.parse(r.changed_fields) as Revision['changed_fields'],
        ...(r.data_as_of === null ? {} : { data_as_of: r.data_as_of }),
      })),
      more: rows.length > limit,
    };
  }

  /**
   * Recalls holding an identifier under any of the probe keys, in list order, one row per
   * recall naming its strongest matching identifier.
   */
  async lookup(
    probe: ProbeKeys,
    limit: number,
    after?: RecallPosition,
  ): Promise<{ rows: RecallMatch[]; more: boolean }> {
    // The usual case, a handful of recalls: one statement joins the identifier probe to the
    // recalls it names, and the order is made here. A key shared by many recalls falls back to
    // ordering and paging in SQL.
    const joined = await this.joinedRows(probe);
    if (joined !== undefined) return this.orderInMemory(joined, limit, after);
    const hits = await this.identifierRows(probe);
    const best = new Map<string, RecallMatch['match']>();
    for (const h of hits) keepBest(best, h.recall_id, h);
    if (best.size === 0) return { rows: [], more: false };
    const params: unknown[] = [this.engine.listParam([...best.keys()])];
    if (after !== undefined) params.push(after.sortDate, after.sortDate, after.id);
    const sql =
      `${RECALL_SELECT} WHERE ${this.engine.inList('r.id')}` +
      `${after === undefined ? '' : ` AND ${AFTER_SQL}`}${orderAndLimit(limit + 1)}`;
    const rows = await this.engine.prepare<RecallRow>(sql).all(params);
    return {
      rows: rows.slice(0, limit).map((r) => ({ ...toSummary(r), match: best.get(r.id)! })),
      more: rows.length > limit,
    };
  }

  /** Identifier hits joined to their recalls, or undefined when there are too many to order here. */
  private async joinedRows(probe: ProbeKeys): Promise<JoinedRow[] | undefined> {
    const out: JoinedRow[] = [];
    for (const [column, keys] of [
      ['i.match_key', probe.matchKeys],
      ['i.product_key', probe.productKeys],
    ] as const) {
      if (keys.length === 0) continue;
      // One key (the usual lookup) is a plain equality: PostgreSQL then settles on one cached
      // plan instead of planning a list condition again on every execution.
      const rows =
        keys.length === 1
          ? await this.engine
              .prepare<JoinedRow>(`${JOINED_SELECT}${column} = ? LIMIT ${JOIN_LIMIT + 1}`)
              .all([keys[0]])
          : await this.engine
              .prepare<JoinedRow>(`${JOINED_SELECT}${this.engine.inList(column)} LIMIT ${JOIN_LIMIT + 1}`)
              .all([this.engine.listParam(keys)]);
      out.push(...rows);
      if (out.length > JOIN_LIMIT) return undefined;
    }
    return out;
  }

  private orderInMemory(
    joined: JoinedRow[],
    limit: number,
    after: RecallPosition | undefined,
  ): { rows: RecallMatch[]; more: boolean } {
    const best = new Map<string, RecallMatch['match']>();
    const byId = new Map<string, JoinedRow>();
    for (const row of joined) {
      keepBest(best, row.id, {
        kind: row.match_kind,
        normalized: row.match_normalized,
        confidence: row.match_confidence,
      });
      byId.set(row.id, row);
    }
    // ids and sort dates are ASCII, so code-unit order is the engines' byte order
    const ordered = [...byId.values()]
      .filter(
        (r) =>
          after === undefined ||
          r.sort_date < after.sortDate ||
          (r.sort_date === after.sortDate && r.id > after.id),
      )
      .sort(compareListOrder);
    return {
      rows: ordered.slice(0, limit).map((r) => ({ ...toSummary(r), match: best.get(r.id)! })),
      more: ordered.length > limit,
    };
  }

  private async identifierRows(probe: ProbeKeys) {
    type Row = { recall_id: string; kind: string; normalized: string; confidence: string };
    const select = 'SELECT recall_id, kind, normalized, confidence FROM identifiers WHERE ';
    const out: Row[] = [];
    if (probe.matchKeys.length > 0)
      out.push(
        ...(await this.engine
          .prepare<Row>(select + this.engine.inList('match_key'))
          .all([this.engine.listParam(probe.matchKeys)])),
      );
    if (probe.productKeys.length > 0)
      out.push(
        ...(await this.engine
          .prepare<Row>(select + this.engine.inList('product_key'))
          .all([this.engine.listParam(probe.productKeys)])),
      );
    return out;
  }

  /**
   * Every stored identifier hit by any of the given keys, with its recall's receipt fields: the
   * set-based query behind a catalogue check, one prepared statement per key column whatever
   * the number of keys (the keys travel as one list parameter).
   */
  async hits(matchKeys: string[], productKeys: string[]): Promise<Hit[]> {
    type Row = {
      match_key: string;
      product_key: string | null;
      id: string;
      revision: number;
      title: string | null;
      jurisdiction: string;
      recall_date: string | null;
      severity: string | null;
      url: string | null;
    };
    const select =
      'SELECT i.match_key, i.product_key, r.id, r.revision, r.title, r.jurisdiction, r.recall_date, r.severity, r.url ' +
      'FROM identifiers i JOIN recalls r ON r.id = i.recall_id WHERE ';
    const out: Hit[] = [];
    const run = async (column: 'i.match_key' | 'i.product_key', keys: string[]) => {
      if (keys.length === 0) return;
      const rows = await this.engine
        .prepare<Row>(select + this.engine.inList(column))
        .all([this.engine.listParam([...new Set(keys)])]);
      for (const r of rows) {
        out.push({
          matchKey: r.match_key,
          productKey: r.product_key,
          recallId: r.id,
          revision: Number(r.revision),
          title: r.title,
          jurisdiction: r.jurisdiction,
          recallDate: r.recall_date,
          severity: r.severity,
          url: r.url,
        });
      }
    };
    await run('i.match_key', matchKeys);
    await run('i.product_key', productKeys);
    return out;
  }
}
