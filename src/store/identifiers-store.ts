/**
 * Reads through the identifiers table, compiled once: the recalls holding an identifier under any lookup
 * key, each with its surest match (GET /v1/identifiers), and the identifiers a catalogue check hits. The
 * recalls are read and assembled as recalls-store.ts reads them.
 */
import { sql, type Kysely } from 'kysely';
import type { Hit } from '../domain/check.ts';
import { isMoreCertain } from '../domain/identifiers/kinds.ts';
import type { LookupKeys } from '../domain/identifiers/match-keys.ts';
import { isRule, ruleMatches } from '../domain/identifiers/match-rules.ts';
import type { RecallMatchPart } from '../domain/recall-json.ts';
import { compile, type RowOf } from './compiled.ts';
import type { Engine } from './engine.ts';
import { RULE_BUCKET_CONDITION } from './migrations/0010-rule-buckets.ts';
import { compareListOrder, type RecallPage, type RecallPosition } from './recall-pages.ts';
import { recallSelection, rendered, type RecallsStore } from './recalls-store.ts';
import type { Database } from './schema.ts';

/** A lookup whose keys hit at most this many stored identifiers orders them in memory, not in SQL. */
const JOIN_LIMIT = 200;

/** Recalls reached from the identifiers table, with the identifier that matched. */
const selectMatches = (db: Kysely<Database>, engine: Engine) =>
  db
    .selectFrom('identifiers as i')
    .innerJoin('recalls as r', 'r.id', 'i.recall_id')
    .innerJoin('sources as s', 's.id', 'r.source_id')
    .select(recallSelection(engine))
    .select(['i.kind as match_kind', 'i.normalized as match_normalized', 'i.confidence as match_confidence']);

type MatchRow = RowOf<ReturnType<typeof selectMatches>>;

/** Whether `hit` is a better match than `current`: surer, or as sure and an exact value where that is a rule. */
function isBetter(hit: RecallMatchPart, current: RecallMatchPart): boolean {
  if (isMoreCertain(hit.confidence, current.confidence)) return true;
  return hit.confidence === current.confidence && isRule(current.normalized) && !isRule(hit.normalized);
}

/** The identifier a joined row matched on. */
const matchPart = (row: MatchRow): RecallMatchPart => ({
  kind: row.match_kind,
  normalized: row.match_normalized,
  confidence: row.match_confidence,
});

/** Keeps, per recall, the best matching identifier (first seen among equals). */
function keepBest(best: Map<string, RecallMatchPart>, recallId: string, hit: RecallMatchPart): void {
  const current = best.get(recallId);
  if (current === undefined || isBetter(hit, current)) best.set(recallId, hit);
}

/** The statements of one key column: one key (a plain equality) or a list of keys. */
function byKeyColumn(db: Kysely<Database>, engine: Engine, column: 'i.match_key' | 'i.product_key') {
  return {
    // One key (the usual lookup) is a plain equality: PostgreSQL keeps one cached plan, not a list replanned.
    matchesOfKey: compile(engine, (p: { key: string }) =>
      selectMatches(db, engine)
        .where(column, '=', p.key)
        .limit(sql.lit(JOIN_LIMIT + 1)),
    ),
    matchesOfKeys: compile(engine, (p: { keys: unknown }) =>
      selectMatches(db, engine)
        .where((eb) => engine.inList(eb.ref(column), p.keys))
        .limit(sql.lit(JOIN_LIMIT + 1)),
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
          'i.normalized',
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

export class IdentifiersStore {
  private readonly byMatchKey;
  private readonly byProductKey;

  constructor(
    db: Kysely<Database>,
    private readonly engine: Engine,
    private readonly recalls: RecallsStore,
  ) {
    this.byMatchKey = byKeyColumn(db, engine, 'i.match_key');
    this.byProductKey = byKeyColumn(db, engine, 'i.product_key');
  }

  private keyColumns(keys: Pick<LookupKeys, 'matchKeys' | 'productKeys'>) {
    return [
      [this.byMatchKey, keys.matchKeys],
      [this.byProductKey, keys.productKeys],
    ] as const;
  }

  /**
   * Recalls holding an identifier under any lookup key, or under a match rule that holds the value, in list
   * order, each with its surest match (an exact value before a rule).
   */
  async lookup(keys: LookupKeys, limit: number, after?: RecallPosition): Promise<RecallPage> {
    // Usually a handful of recalls and no rule: one statement joins the probe to its recalls and the order is
    // made here. A key shared by many recalls, or a rule holding the value, falls back to paging in SQL.
    const rules = await this.rulesHolding(keys);
    const joined = await this.matchRows(keys);
    if (joined !== undefined && rules.size === 0) return orderInMemory(joined, limit, after);
    const best = new Map<string, RecallMatchPart>();
    if (joined !== undefined) for (const row of joined) keepBest(best, row.id, matchPart(row));
    else {
      for (const [column, list] of this.keyColumns(keys)) {
        if (list.length === 0) continue;
        for (const h of await column.identifiers.all({ keys: this.engine.listParam(list) }))
          keepBest(best, h.recall_id, { kind: h.kind, normalized: h.normalized, confidence: h.confidence });
      }
    }
    for (const [recallId, match] of rules) keepBest(best, recallId, match);
    if (best.size === 0) return { rows: [], more: false };
    return this.recalls.matchedPage(best, limit, after);
  }

  /**
   * The rules that hold the value, by recall: the identifiers stored under its rule buckets (by index, with
   * no recall read), each confirmed here.
   */
  private async rulesHolding(keys: LookupKeys): Promise<Map<string, RecallMatchPart>> {
    const found = new Map<string, RecallMatchPart>();
    if (keys.ruleKeys.length === 0) return found;
    for (const h of await this.byMatchKey.identifiers.all({ keys: this.engine.listParam(keys.ruleKeys) }))
      if (ruleMatches(h.normalized, keys.normalized))
        keepBest(found, h.recall_id, { kind: h.kind, normalized: h.normalized, confidence: h.confidence });
    return found;
  }

  /** Identifier hits joined to their recalls, or undefined when there are too many to order here. */
  private async matchRows(keys: LookupKeys): Promise<MatchRow[] | undefined> {
    const out: MatchRow[] = [];
    for (const [column, list] of this.keyColumns(keys)) {
      if (list.length === 0) continue;
      const rows =
        list.length === 1
          ? await column.matchesOfKey.all({ key: list[0]! })
          : await column.matchesOfKeys.all({ keys: this.engine.listParam(list) });
      out.push(...rows);
      if (out.length > JOIN_LIMIT) return undefined;
    }
    return out;
  }

  /** The buckets that hold a match rule (match-rules.ts `ruleKey`), read from their partial index. */
  async ruleBuckets(): Promise<Set<string>> {
    const rows = await this.engine
      .prepare<{ match_key: string }>(
        `SELECT DISTINCT match_key FROM identifiers WHERE ${RULE_BUCKET_CONDITION}`,
      )
      .all([]);
    return new Set(rows.map((r) => r.match_key));
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
          normalized: r.normalized,
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

/** A page of the matched recalls, ordered here: each once, with its surest match. */
function orderInMemory(joined: MatchRow[], limit: number, after: RecallPosition | undefined): RecallPage {
  const best = new Map<string, RecallMatchPart>();
  const byId = new Map<string, MatchRow>();
  for (const row of joined) {
    keepBest(best, row.id, matchPart(row));
    byId.set(row.id, row);
  }
  const ordered = [...byId.values()]
    .map((row) => ({ row, position: { sortDate: row.sort_date, id: row.id } }))
    .filter(({ position }) => after === undefined || compareListOrder(after, position) < 0)
    .sort((a, b) => compareListOrder(a.position, b.position));
  return {
    rows: ordered.slice(0, limit).map(({ row }) => rendered(row, { match: best.get(row.id)! })),
    more: ordered.length > limit,
  };
}
