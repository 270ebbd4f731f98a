/** Read queries over recalls, identifiers and revisions, compiled once; callers get domain shapes. */
import { sql, type AliasedSelectQueryBuilder, type Kysely } from 'kysely';
import type { Hit } from '../domain/check.ts';
import { isMoreCertain, type Confidence, type IdentifierKind } from '../domain/identifiers/kinds.ts';
import type { LookupKeys } from '../domain/identifiers/match-keys.ts';
import type { JsonText } from '../domain/json-text.ts';
import { assembleRecall, assembleRevision, renderMatchEnd, type RecallParts } from '../domain/recall-json.ts';
import { CacheRegistry } from '../domain/caches.ts';
import { compile, StatementCache, type RowOf, type Statement } from './compiled.ts';
import type { Engine } from './engine.ts';
import {
  compareListOrder,
  pageOfJoined,
  positionOfJoined,
  splitJoined,
  type JoinedRow,
  type RecallPage,
  type RecallPosition,
} from './joined-recalls.ts';
import type { Database } from './schema.ts';

export type { RecallPage, RecallPosition } from './joined-recalls.ts';

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
const recallSelection = (engine: Engine) =>
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

/**
 * A recall's JSON put together by the database: what `assembleRecall` makes without identifiers, byte for byte
 * (test/integration/rendered-answers.test.ts compares them). `end` closes it: `}` for a Recall, nothing for a
 * RecallMatch, whose match is added after (`renderMatchEnd`). Recalls read this way and joined (joined-recalls.ts)
 * hand the driver one value, not eleven a recall: making those values was most of a page's statement.
 */
const recallJson = (engine: Engine, end: '}' | '') => {
  const q = (column: string) => engine.jsonQuote(sql.ref(column));
  return sql<string>`concat('{"id":', ${q('r.id')}, ',"source":{"id":', ${q('r.source_id')}, ',"record_id":', ${q('r.record_id')}, ',"agency":', ${q('s.agency')}, ',"jurisdiction":', ${q('r.jurisdiction')}, '},', r.rendered_fields, ',"revision":', r.revision, ',"data_as_of":', ${engine.jsonQuote(sql`coalesce(s.data_as_of, r.last_seen_at)`)}, ',"first_seen_at":', ${q('r.first_seen_at')}, ',"last_seen_at":', ${q('r.last_seen_at')}, ${sql.lit(end)})`;
};

/** Recalls reached from the identifiers table. */
const fromMatches = (db: Kysely<Database>) =>
  db
    .selectFrom('identifiers as i')
    .innerJoin('recalls as r', 'r.id', 'i.recall_id')
    .innerJoin('sources as s', 's.id', 'r.source_id');

type MatchQuery = ReturnType<typeof fromMatches>;

/** What a joined statement's subquery selects, as `j`: each recall's list position, source and JSON. */
type JoinedSource = AliasedSelectQueryBuilder<
  { id: string; sort_date: string; source_id: string; json: string },
  'j'
>;

/**
 * The recalls `rows` selects, as one row: their JSON joined, and each one's `[sort_date, id, source_id, byte
 * length, ...extra]` in the joined value's order (joined-recalls.ts).
 */
const joinedOf = (db: Kysely<Database>, engine: Engine, rows: JoinedSource, extra: readonly string[] = []) =>
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
          ...extra.map((column) => sql.ref(`j.${column}`)),
        ])
        .as('rows'),
    ]);

/**
 * The recalls that `query` reaches, each with the identifier that matched, as one row: their JSON up to its
 * match, joined, and each one's position, source, length and match.
 */
const joinMatches = (db: Kysely<Database>, engine: Engine, query: MatchQuery) =>
  joinedOf(
    db,
    engine,
    query
      .select([
        'r.id',
        'r.sort_date',
        'r.source_id',
        'i.kind',
        'i.normalized',
        'i.confidence',
        recallJson(engine, '').as('json'),
      ])
      .as('j'),
    ['kind', 'normalized', 'confidence'],
  );

/** A joined row of matches: a JoinedRow and the identifier that matched. */
type JoinedMatchRow = [...JoinedRow, kind: IdentifierKind, normalized: string, confidence: Confidence];

/** One matched recall of a joined value: its JSON up to its match, and the match. */
interface JoinedMatch {
  row: JoinedMatchRow;
  json: Uint8Array;
}

type RecallRow = RowOf<ReturnType<typeof selectRecalls>>;
/** Recalls as the database joins them: see `joinedOf`. */
type JoinedRecalls = RowOf<ReturnType<typeof joinedOf>>;

/** A row's list position. */
const positionOf = (row: RecallRow): RecallPosition => ({ sortDate: row.sort_date, id: row.id });

/** A recall read for an answer: its JSON, assembled around the stored rendering, and its list position. */
export interface RenderedRecall {
  id: string;
  sourceId: string;
  /** Where it stands in the newest-first order (the next page's cursor). */
  position: RecallPosition;
  /** A Recall (with identifiers where one is read) or, from a lookup, a RecallMatch, as served. */
  json: JsonText;
}

/** One revision as served, with its number (the next page's cursor). */
export interface RenderedRevision {
  revision: number;
  json: string;
}

function rendered(row: RecallRow, extra: Pick<RecallParts, 'identifiers' | 'match'> = {}): RenderedRecall {
  return {
    id: row.id,
    sourceId: row.source_id,
    position: positionOf(row),
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

/** A lookup whose keys hit at most this many stored identifiers orders them in memory, not in SQL. */
const JOIN_LIMIT = 200;

/** Page statements kept compiled (filter combinations × page sizes); see StatementCache. */
const PAGE_SHAPES_KEPT = 256;

/** What varies between page statements: the filters given, an id list, a start position, the size. */
interface PageShape {
  filters: readonly Filter[];
  byIds: boolean;
  after: boolean;
  rows: number;
}

type PageParams = Required<RecallFilters> & RecallPosition & { ids: unknown };

type BestMatch = { kind: IdentifierKind; normalized: string; confidence: Confidence };

/** Keeps, per recall, the strongest matching identifier (first seen among equals). */
function keepBest(best: Map<string, BestMatch>, recallId: string, hit: BestMatch): void {
  const current = best.get(recallId);
  if (current === undefined || isMoreCertain(hit.confidence, current.confidence)) best.set(recallId, hit);
}

/** The statements of one key column: one key (a plain equality) or a list of keys. */
function byKeyColumn(db: Kysely<Database>, engine: Engine, column: 'i.match_key' | 'i.product_key') {
  return {
    // One key (the usual lookup) is a plain equality: PostgreSQL keeps one cached plan, not a list replanned.
    matchesOfKey: compile(engine, (p: { key: string }) =>
      joinMatches(
        db,
        engine,
        fromMatches(db)
          .where(column, '=', p.key)
          .limit(sql.lit(JOIN_LIMIT + 1)),
      ),
    ),
    matchesOfKeys: compile(engine, (p: { keys: unknown }) =>
      joinMatches(
        db,
        engine,
        fromMatches(db)
          .where((eb) => engine.inList(eb.ref(column), p.keys))
          .limit(sql.lit(JOIN_LIMIT + 1)),
      ),
    ),
    identifiers: compile(engine, (p: { keys: unknown }) =>
      db
        .selectFrom('identifiers as i')
        .select(['i.recall_id', 'i.kind', 'i.normalized', 'i.confidence'])
        .where((eb) => engine.inList(eb.ref(column), p.keys)),
    ),
    // A catalogue check: one statement per key column whatever the number of keys, each key one probe.
    hits: compile(engine, (p: { keys: unknown }) =>
      db
        .selectFrom(engine.listRows(p.keys))
        .innerJoin('identifiers as i', column, 'keys.value')
        .innerJoin('recalls as r', 'r.id', 'i.recall_id')
        .select([
          'i.match_key',
          'i.product_key',
          'r.id',
          'r.revision',
          'r.title',
          'r.jurisdiction',
          'r.recall_date',
          'r.severity',
          'r.url',
        ]),
    ),
  };
}

export class RecallsStore {
  private readonly byMatchKey;
  private readonly byProductKey;
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
    for (const statements of [this.pages, this.joinedPages, this.counts]) caches.add(statements);
    this.byMatchKey = byKeyColumn(db, engine, 'i.match_key');
    this.byProductKey = byKeyColumn(db, engine, 'i.product_key');
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
  private ordered(shape: PageShape, p: PageParams) {
    const { filters, byIds, after, rows } = shape;
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
    return this.pages.get(RecallsStore.shapeKey(shape), () =>
      compile(this.engine, (p: PageParams) => this.ordered(shape, p).select(recallSelection(this.engine))),
    );
  }

  /** The page statement of a shape as one row: its recalls' JSON joined, and each one's position and length. */
  private joinedPage(shape: PageShape): Statement<PageParams, JoinedRecalls> {
    const { engine } = this;
    return this.joinedPages.get(RecallsStore.shapeKey(shape), () =>
      compile(engine, (p: PageParams) =>
        joinedOf(
          this.db,
          engine,
          this.ordered(shape, p)
            .select(['r.id', 'r.sort_date', 'r.source_id', recallJson(engine, '}').as('json')])
            .as('j'),
        ),
      ),
    );
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
    return pageOfJoined(row?.joined ?? null, JSON.parse(row?.rows ?? '[]') as JoinedRow[], limit);
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

  /** Recalls holding an identifier under any lookup key, in list order, each with its strongest match. */
  async lookup(
    keys: LookupKeys,
    limit: number,
    after?: RecallPosition,
  ): Promise<{ rows: RenderedRecall[]; more: boolean }> {
    // Usually a handful of recalls: one statement joins the probe to its recalls and the order is made here;
    // a key shared by many recalls falls back to ordering and paging in SQL.
    const joined = await this.matchRows(keys);
    if (joined !== undefined) return this.orderInMemory(joined, limit, after);
    const best = new Map<string, BestMatch>();
    for (const [column, list] of this.keyColumns(keys)) {
      if (list.length === 0) continue;
      for (const h of await column.identifiers.all({ keys: this.engine.listParam(list) }))
        keepBest(best, h.recall_id, h);
    }
    if (best.size === 0) return { rows: [], more: false };
    const statement = this.page({ filters: [], byIds: true, after: after !== undefined, rows: limit + 1 });
    const rows = await statement.all({
      ids: this.engine.listParam([...best.keys()]),
      ...after,
    } as PageParams);
    return {
      rows: rows.slice(0, limit).map((r) => rendered(r, { match: best.get(r.id)! })),
      more: rows.length > limit,
    };
  }

  private keyColumns(keys: LookupKeys) {
    return [
      [this.byMatchKey, keys.matchKeys],
      [this.byProductKey, keys.productKeys],
    ] as const;
  }

  /** Identifier hits joined to their recalls, or undefined when there are too many to order here. */
  private async matchRows(keys: LookupKeys): Promise<JoinedMatch[] | undefined> {
    const out: JoinedMatch[] = [];
    for (const [column, list] of this.keyColumns(keys)) {
      if (list.length === 0) continue;
      const [joined] =
        list.length === 1
          ? await column.matchesOfKey.all({ key: list[0]! })
          : await column.matchesOfKeys.all({ keys: this.engine.listParam(list) });
      const rows = JSON.parse(joined?.rows ?? '[]') as JoinedMatchRow[];
      const pieces = splitJoined(joined?.joined ?? null, rows);
      for (let i = 0; i < rows.length; i++) out.push({ row: rows[i]!, json: pieces[i]! });
      if (out.length > JOIN_LIMIT) return undefined;
    }
    return out;
  }

  private orderInMemory(
    joined: JoinedMatch[],
    limit: number,
    after: RecallPosition | undefined,
  ): { rows: RenderedRecall[]; more: boolean } {
    const best = new Map<string, BestMatch>();
    const byId = new Map<string, JoinedMatch>();
    for (const hit of joined) {
      const [, id, , , kind, normalized, confidence] = hit.row;
      keepBest(best, id, { kind, normalized, confidence });
      byId.set(id, hit);
    }
    const ordered = [...byId.values()]
      .map((hit) => ({ hit, position: positionOfJoined(hit.row) }))
      .filter(({ position }) => after === undefined || compareListOrder(after, position) < 0)
      .sort((a, b) => compareListOrder(a.position, b.position));
    return {
      rows: ordered.slice(0, limit).map(({ hit, position }) => ({
        id: position.id,
        sourceId: hit.row[2],
        position,
        json: [hit.json, renderMatchEnd(best.get(position.id)!)],
      })),
      more: ordered.length > limit,
    };
  }

  /** Stored identifiers hit by any key, with receipt fields: the catalogue check's set query (one list). */
  async hits(matchKeys: string[], productKeys: string[]): Promise<Hit[]> {
    const out: Hit[] = [];
    for (const [column, keys] of this.keyColumns({ matchKeys, productKeys })) {
      if (keys.length === 0) continue;
      const rows = await column.hits.all({ keys: this.engine.listParam(keys) });
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
    }
    return out;
  }
}
