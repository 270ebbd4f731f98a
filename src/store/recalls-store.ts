/**
 * Read queries over recalls, their identifiers and revisions. Everything a route needs comes
 * back as domain shapes; no caller sees a column name.
 */
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Hit } from '../domain/check.ts';
import type { Confidence, IdentifierKind } from '../domain/identifiers/kinds.ts';
import type { Identifier, Recall, Revision } from '../domain/recall.ts';
import type { HazardCategory, Remedy, Severity } from '../domain/taxonomy.ts';
import type { Database } from './schema.ts';

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

const NO_DATE = '0000-00-00';

type RecallRow = Database['recalls'] & { agency: string; source_data_as_of: string | null };

const CONFIDENCE_RANK: Record<string, number> = { exact: 3, extracted: 2, inferred: 1 };

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
  return { sortDate: recall.published_date ?? NO_DATE, id: recall.id };
}

export class RecallsStore {
  constructor(private readonly db: Kysely<Database>) {}

  private base() {
    return this.db
      .selectFrom('recalls')
      .innerJoin('sources', 'sources.id', 'recalls.source_id')
      .selectAll('recalls')
      .select(['sources.agency as agency', 'sources.data_as_of as source_data_as_of']);
  }

  private filtered(filters: RecallFilters) {
    let q = this.base();
    if (filters.jurisdiction !== undefined) q = q.where('recalls.jurisdiction', '=', filters.jurisdiction);
    if (filters.source !== undefined) q = q.where('recalls.source_id', '=', filters.source);
    if (filters.hazard_category !== undefined)
      q = q.where('recalls.hazard_category', '=', filters.hazard_category);
    if (filters.severity !== undefined) q = q.where('recalls.severity', '=', filters.severity);
    if (filters.remedy !== undefined) q = q.where('recalls.remedy', '=', filters.remedy);
    if (filters.from !== undefined) q = q.where('recalls.recall_date', '>=', filters.from);
    if (filters.to !== undefined) q = q.where('recalls.recall_date', '<=', filters.to);
    return q;
  }

  private static page<Q extends SelectQueryBuilder<Database, 'recalls' | 'sources', RecallRow>>(
    q: Q,
    after: RecallPosition | undefined,
    limit: number,
  ) {
    let out = q;
    if (after !== undefined) {
      out = out.where((eb) =>
        eb.or([
          eb('recalls.sort_date', '<', after.sortDate),
          eb.and([eb('recalls.sort_date', '=', after.sortDate), eb('recalls.id', '>', after.id)]),
        ]),
      ) as Q;
    }
    return out
      .orderBy('recalls.sort_date', 'desc')
      .orderBy('recalls.id', 'asc')
      .limit(limit + 1);
  }

  /** One page of recalls, newest publication first, undated last; `more` when another page exists. */
  async list(
    filters: RecallFilters,
    limit: number,
    after?: RecallPosition,
  ): Promise<{ rows: RecallSummary[]; more: boolean }> {
    const rows = (await RecallsStore.page(this.filtered(filters), after, limit).execute()) as RecallRow[];
    return { rows: rows.slice(0, limit).map(toSummary), more: rows.length > limit };
  }

  /** Exact count of recalls matching the filters. */
  async count(filters: RecallFilters): Promise<number> {
    let q = this.db.selectFrom('recalls').select((eb) => eb.fn.countAll<string | number>().as('n'));
    if (filters.jurisdiction !== undefined) q = q.where('jurisdiction', '=', filters.jurisdiction);
    if (filters.source !== undefined) q = q.where('source_id', '=', filters.source);
    if (filters.hazard_category !== undefined) q = q.where('hazard_category', '=', filters.hazard_category);
    if (filters.severity !== undefined) q = q.where('severity', '=', filters.severity);
    if (filters.remedy !== undefined) q = q.where('remedy', '=', filters.remedy);
    if (filters.from !== undefined) q = q.where('recall_date', '>=', filters.from);
    if (filters.to !== undefined) q = q.where('recall_date', '<=', filters.to);
    const row = await q.executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Total number of recalls held. */
  async size(): Promise<number> {
    return this.count({});
  }

  /** One recall with every extracted identifier, or undefined. */
  async get(id: string): Promise<Recall | undefined> {
    const row = (await this.base().where('recalls.id', '=', id).executeTakeFirst()) as RecallRow | undefined;
    if (row === undefined) return undefined;
    const identifiers = await this.db
      .selectFrom('identifiers')
      .select(['kind', 'value', 'normalized', 'confidence'])
      .where('recall_id', '=', id)
      .orderBy('kind')
      .orderBy('normalized')
      .orderBy('value')
      .execute();
    return { ...toSummary(row), identifiers: identifiers as Identifier[] };
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
    const hits = await this.identifierRows(probe);
    const best = new Map<string, RecallMatch['match']>();
    for (const h of hits) {
      const current = best.get(h.recall_id);
      if (
        current === undefined ||
        (CONFIDENCE_RANK[h.confidence] ?? 0) > (CONFIDENCE_RANK[current.confidence] ?? 0)
      ) {
        best.set(h.recall_id, {
          kind: h.kind as IdentifierKind,
          normalized: h.normalized,
          confidence: h.confidence as Confidence,
        });
      }
    }
    if (best.size === 0) return { rows: [], more: false };
    const q = this.base().where('recalls.id', 'in', [...best.keys()]);
    const rows = (await RecallsStore.page(q, after, limit).execute()) as RecallRow[];
    return {
      rows: rows.slice(0, limit).map((r) => ({ ...toSummary(r), match: best.get(r.id)! })),
      more: rows.length > limit,
    };
  }

  private async identifierRows(probe: ProbeKeys) {
    if (probe.matchKeys.length === 0 && probe.productKeys.length === 0) return [];
    return this.db
      .selectFrom('identifiers')
      .select(['recall_id', 'kind', 'normalized', 'confidence'])
      .where((eb) => {
        const ors = [];
        if (probe.matchKeys.length > 0) ors.push(eb('match_key', 'in', probe.matchKeys));
        if (probe.productKeys.length > 0) ors.push(eb('product_key', 'in', probe.productKeys));
        return eb.or(ors);
      })
      .execute();
  }

  /**
   * Every stored identifier hit by any of the given keys, with its recall's receipt fields: the
   * set-based query behind a catalogue check (chunked only to stay under driver parameter limits).
   */
  async hits(matchKeys: string[], productKeys: string[]): Promise<Hit[]> {
    const CHUNK = 5000;
    const out: Hit[] = [];
    const run = async (column: 'match_key' | 'product_key', keys: string[]) => {
      for (let i = 0; i < keys.length; i += CHUNK) {
        const rows = await this.db
          .selectFrom('identifiers')
          .innerJoin('recalls', 'recalls.id', 'identifiers.recall_id')
          .select([
            'identifiers.match_key',
            'identifiers.product_key',
            'recalls.id',
            'recalls.revision',
            'recalls.title',
            'recalls.jurisdiction',
            'recalls.recall_date',
            'recalls.severity',
            'recalls.url',
          ])
          .where(`identifiers.${column}`, 'in', keys.slice(i, i + CHUNK))
          .execute();
        for (const r of rows) {
          out.push({
            matchKey: r.match_key,
            productKey: r.product_key,
            recallId: r.id,
            revision: r.revision,
            title: r.title,
            jurisdiction: r.jurisdiction,
            recallDate: r.recall_date,
            severity: r.severity,
            url: r.url,
          });
        }
      }
    };
    await run('match_key', [...new Set(matchKeys)]);
    await run('product_key', [...new Set(productKeys)]);
    return out;
  }
}
