/**
 * Reads of recalls and their revisions, compiled once: list pages, counts, one recall, its amendments. A list
 * page's recalls are written and joined by the database (recall-pages.ts); every other recall's JSON is
 * assembled here around its stored rendering (recall-json.ts). identifiers-store.ts reads its pages here too.
 */
import { sql, type Kysely } from 'kysely';
import {
  assembleRecall,
  assembleRevision,
  type RecallMatchPart,
  type RecallParts,
} from '../domain/recall-json.ts';
import { CacheRegistry } from '../node/caches.ts';
import { compile, StatementCache, type RowOf, type Statement } from './compiled.ts';
import type { Engine } from './engine.ts';
import {
  joinedOf,
  pageOfJoined,
  recallJsonSql,
  type RecallPage,
  type RecallPosition,
  type RenderedRecall,
} from './recall-pages.ts';
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

/** The filters in a fixed order, with their column and comparison. */
const FILTERS = [
  ['jurisdiction', 'r.jurisdiction', '='],
  ['source', 'r.source_id', '='],
  ['hazard_category', 'r.hazard_category', '='],
  ['severity', 'r.severity', '='],
  ['remedy', 'r.remedy', '='],
  ['from', 'r.recall_date', '>='],
  ['to', 'r.recall_date', '<='],
] as const satisfies readonly (readonly [keyof RecallFilters, `r.${string}`, string])[];

type Filter = (typeof FILTERS)[number];

/**
 * The columns a recall's JSON is assembled from and its list position: the fields around its rendering, and
 * the rendering itself as bytes (`Engine.utf8`).
 */
export const recallSelection = (engine: Engine) =>
  [
    'r.id',
    'r.source_id',
    'r.record_id',
    'r.jurisdiction',
    'r.revision',
    'r.sort_date',
    'r.first_seen_at',
    'r.last_seen_at',
    's.agency',
    's.data_as_of as source_data_as_of',
    engine.utf8('r.rendered_fields').as('rendered_fields'),
  ] as const;

const fromRecalls = (db: Kysely<Database>) =>
  db.selectFrom('recalls as r').innerJoin('sources as s', 's.id', 'r.source_id');

const selectRecalls = (db: Kysely<Database>, engine: Engine) =>
  fromRecalls(db).select(recallSelection(engine));

/** A recall as `recallSelection` reads it. */
export type RecallRow = RowOf<ReturnType<typeof selectRecalls>>;

/** One revision as served, with its number (the next page's cursor). */
export interface RenderedRevision {
  revision: number;
  json: string;
}

/** A recall's JSON and list position from its row; `identifiers` or `match` end a Recall or a RecallMatch. */
export function rendered(
  row: RecallRow,
  extra: Pick<RecallParts, 'identifiers' | 'match'> = {},
): RenderedRecall {
  return {
    id: row.id,
    sourceId: row.source_id,
    position: { sortDate: row.sort_date, id: row.id },
    json: assembleRecall({
      id: row.id,
      sourceId: row.source_id,
      recordId: row.record_id,
      agency: row.agency,
      jurisdiction: row.jurisdiction,
      contentFields: row.rendered_fields,
      revision: row.revision,
      dataAsOf: row.source_data_as_of ?? row.last_seen_at,
      firstSeenAt: row.first_seen_at,
      lastSeenAt: row.last_seen_at,
      ...extra,
    }),
  };
}

/** Page statements kept compiled (filter combinations × page sizes); see StatementCache. */
const PAGE_SHAPES_KEPT = 256;

/** What varies between page statements: the filters given, an id list, a start position, the size. */
interface PageShape {
  filters: readonly Filter[];
  byIds: boolean;
  after: boolean;
  rows: number;
}

/** A list page as the database joins it (recall-pages.ts). */
type JoinedRecalls = RowOf<ReturnType<typeof joinedOf>>;

type PageParams = Required<RecallFilters> & RecallPosition & { ids: unknown };

export class RecallsStore {
  private readonly recallById;
  private readonly sourceById;
  private readonly revisionsOf;
  private readonly pages = new StatementCache<PageParams, RecallRow>(PAGE_SHAPES_KEPT, 'page-statements');
  private readonly joinedPages = new StatementCache<PageParams, JoinedRecalls>(
    PAGE_SHAPES_KEPT,
    'joined-page-statements',
  );
  private readonly counts = new StatementCache<Required<RecallFilters>, { n: string | number | bigint }>(
    2 ** FILTERS.length,
    'count-statements',
  );

  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
    caches = new CacheRegistry(),
  ) {
    caches.add(this.pages);
    caches.add(this.joinedPages);
    caches.add(this.counts);
    this.recallById = compile(engine, (p: { id: string }) =>
      selectRecalls(db, engine)
        .select(engine.utf8('r.rendered_identifiers').as('rendered_identifiers'))
        .where('r.id', '=', p.id),
    );
    this.sourceById = compile(engine, (p: { id: string }) =>
      db.selectFrom('recalls').select('source_id').where('id', '=', p.id),
    );
    this.revisionsOf = compile(engine, (p: { id: string; after: number; rows: number }) =>
      db
        .selectFrom('revisions')
        .select(['revision', 'observed_at', 'changed_fields', 'data_as_of'])
        .where('recall_id', '=', p.id)
        .where('revision', '>', p.after)
        .orderBy('revision', 'asc')
        .limit(p.rows),
    );
  }

  /**
   * The recalls of a page shape, in list order, as many as it holds. The page size is written in (a validated
   * whole number) so a cached generic plan walks the order index rather than sorting every row; a start is a
   * range `sort_date <= ?` on that index, so a page starts where the last ended, however deep.
   */
  private ordered({ filters, byIds, after, rows }: PageShape, p: PageParams) {
    if (!Number.isSafeInteger(rows) || rows < 1) throw new Error(`bad page size ${rows}`);
    let q = fromRecalls(this.db);
    if (filters.length > 0 || byIds || after)
      q = q.where((eb) =>
        eb.and([
          ...filters.map(([name, column, op]) => eb(column, op, p[name])),
          ...(byIds ? [this.engine.inList(eb.ref('r.id'), p.ids)] : []),
          ...(after
            ? [
                eb('r.sort_date', '<=', p.sortDate),
                eb.or([eb('r.sort_date', '<', p.sortDate), eb('r.id', '>', p.id)]),
              ]
            : []),
        ]),
      );
    return q.orderBy('r.sort_date', 'desc').orderBy('r.id', 'asc').limit(sql.lit(rows));
  }

  private static shapeKey({ filters, byIds, after, rows }: PageShape): string {
    return `${filters.map((f) => f[0]).join()}|${byIds}|${after}|${rows}`;
  }

  /** The page statement of a shape: its recalls as rows. */
  private page(shape: PageShape): Statement<PageParams, RecallRow> {
    const { engine } = this;
    return this.pages.get(RecallsStore.shapeKey(shape), () =>
      compile(engine, (p: PageParams) => this.ordered(shape, p).select(recallSelection(engine))),
    );
  }

  /** The page statement of a shape as one row: its recalls' JSON joined, each one's position and length. */
  private joinedPage(shape: PageShape): Statement<PageParams, JoinedRecalls> {
    const { engine } = this;
    return this.joinedPages.get(RecallsStore.shapeKey(shape), () =>
      compile(engine, (p: PageParams) =>
        joinedOf(
          this.db,
          engine,
          this.ordered(shape, p)
            .select(['r.id', 'r.sort_date', 'r.source_id', recallJsonSql(engine).as('json')])
            .as('j'),
        ),
      ),
    );
  }

  /** A page of a shape's recalls after `after`, read one row long to know whether another follows. */
  private async pageOf(
    shape: Pick<PageShape, 'filters' | 'byIds'>,
    params: Partial<PageParams>,
    limit: number,
    after: RecallPosition | undefined,
    matchOf?: (id: string) => RecallMatchPart | undefined,
  ): Promise<RecallPage> {
    const statement = this.page({ ...shape, after: after !== undefined, rows: limit + 1 });
    const rows = await statement.all({ ...params, ...after } as PageParams);
    return {
      rows: rows.slice(0, limit).map((r) => rendered(r, { match: matchOf?.(r.id) })),
      more: rows.length > limit,
    };
  }

  /** One page of recalls, newest publication first, undated last; `more` when another page exists. */
  async list(filters: RecallFilters, limit: number, after?: RecallPosition): Promise<RecallPage> {
    const given = FILTERS.filter(([name]) => filters[name] !== undefined);
    const statement = this.joinedPage({
      filters: given,
      byIds: false,
      after: after !== undefined,
      rows: limit + 1,
    });
    const [row] = await statement.all({ ...filters, ...after } as PageParams);
    return pageOfJoined(row?.joined ?? null, row?.rows ?? '[]', limit);
  }

  /** A page of the recalls `matches` names, in list order, each as a RecallMatch with its match. */
  async matchedPage(
    matches: ReadonlyMap<string, RecallMatchPart>,
    limit: number,
    after?: RecallPosition,
  ): Promise<RecallPage> {
    const ids = this.engine.listParam([...matches.keys()]);
    return this.pageOf({ filters: [], byIds: true }, { ids }, limit, after, (id) => matches.get(id));
  }

  /** Exact count of recalls matching the filters. */
  async count(filters: RecallFilters): Promise<number> {
    const given = FILTERS.filter(([name]) => filters[name] !== undefined);
    const statement = this.counts.get(given.map((f) => f[0]).join(), () =>
      compile(this.engine, (p: Required<RecallFilters>) => {
        let q = this.db.selectFrom('recalls as r').select((eb) => eb.fn.countAll().as('n'));
        if (given.length > 0)
          q = q.where((eb) => eb.and(given.map(([name, column, op]) => eb(column, op, p[name]))));
        return q;
      }),
    );
    const [row] = await statement.all(filters as Required<RecallFilters>);
    return Number(row?.n ?? 0);
  }

  /** Total number of recalls held. */
  async size(): Promise<number> {
    return this.count({});
  }

  /** One recall with every extracted identifier, or undefined. */
  async get(id: string): Promise<RenderedRecall | undefined> {
    const [row] = await this.recallById.all({ id });
    return row === undefined ? undefined : rendered(row, { identifiers: row.rendered_identifiers });
  }

  /** Whether a recall exists and the source it belongs to. */
  async sourceOf(id: string): Promise<string | undefined> {
    const [row] = await this.sourceById.all({ id });
    return row?.source_id;
  }

  /** Amendments of a recall, oldest first, after a given revision number. */
  async revisions(
    id: string,
    limit: number,
    afterRevision = 0,
  ): Promise<{ rows: RenderedRevision[]; more: boolean }> {
    const rows = await this.revisionsOf.all({ id, after: afterRevision, rows: limit + 1 });
    return {
      rows: rows.slice(0, limit).map((r) => ({
        revision: r.revision,
        json: assembleRevision({
          revision: r.revision,
          observedAt: r.observed_at,
          changedFields: r.changed_fields,
          dataAsOf: r.data_as_of,
        }),
      })),
      more: rows.length > limit,
    };
  }
}
