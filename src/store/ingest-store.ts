/**
 * Writes one source's observation of the corpus in a single transaction: new records are
 * inserted, unchanged ones only have `last_seen_at` moved, changed ones get the next revision
 * and a Revision with their field diff. The source's freshness moves in the same transaction,
 * so a run that fails midway leaves everything as it was. The corpus version moves with it only
 * when something served changed (a record, a revision, a last_seen_at, the source's freshness).
 */
import type { Kysely, Selectable, Transaction } from 'kysely';
import { canonicalContent, contentHashOfJson, diffContent } from '../domain/diff.ts';
import { storageKeys } from '../domain/identifiers/match-keys.ts';
import { recallId, type RecallContent, type RecallDraft } from '../domain/recall.ts';
import { renderContentFields, renderIdentifiers } from '../domain/recall-json.ts';
import { allColumns } from './compiled.ts';
import type { Engine } from './engine.ts';
import { NO_SORT_DATE, type Database, type IdentifiersTable, type RecallsTable } from './schema.ts';
import { moveCorpusVersion, type StoreStateWatch } from './store-state.ts';

export interface SourceObservation {
  sourceId: string;
  jurisdiction: string;
  drafts: RecallDraft[];
  /** The agency's freshness stamp for this observation. */
  dataAsOf: string | null;
  /** When the service made the observation (ISO date-time). */
  observedAt: string;
  /** Records of the run that could not be read, with the reason (the first of them are kept); none when absent. */
  setAside?: readonly { record: string; reason: string }[];
}

/** How many of a run's records set aside are kept, with their reasons, for the report. */
export const SET_ASIDE_KEPT = 1000;

export interface ApplyResult {
  inserted: number;
  amended: number;
  unchanged: number;
  /** Whether a served body changed, and so the corpus version moved. */
  moved: boolean;
}

const ROW_CHUNK = 400;
const KEY_CHUNK = 20_000;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The recalls columns of a draft (everything but revision and the seen stamps), its served JSON rendered. */
export function recallColumns(
  id: string,
  obs: Pick<SourceObservation, 'sourceId' | 'jurisdiction'>,
  draft: RecallDraft,
  content: RecallContent,
  hash: string,
  json: string = JSON.stringify(content),
): Omit<RecallsTable, 'revision' | 'first_seen_at' | 'last_seen_at'> {
  return {
    id,
    source_id: obs.sourceId,
    record_id: draft.recordId,
    jurisdiction: obs.jurisdiction,
    title: content.title,
    summary: content.summary,
    hazard_category: content.hazard.category,
    hazard_text: content.hazard.text,
    product_category: content.product.category,
    brands: JSON.stringify(content.product.brands),
    models: JSON.stringify(content.product.models),
    severity: content.severity,
    source_classification: content.source_classification,
    remedy: content.remedy,
    recall_date: content.recall_date,
    published_date: content.published_date,
    sort_date: content.published_date ?? NO_SORT_DATE,
    countries: JSON.stringify(content.countries),
    url: content.url,
    content_hash: hash,
    content: json,
    rendered_fields: renderContentFields(content),
    rendered_identifiers: renderIdentifiers(content.identifiers),
  };
}

/** The recalls columns in insert order (the benchmark corpus writes the same). */
export const RECALL_COLUMNS = allColumns<RecallsTable>()([
  'id',
  'source_id',
  'record_id',
  'jurisdiction',
  'title',
  'summary',
  'hazard_category',
  'hazard_text',
  'product_category',
  'brands',
  'models',
  'severity',
  'source_classification',
  'remedy',
  'recall_date',
  'published_date',
  'sort_date',
  'countries',
  'url',
  'content_hash',
  'content',
  'rendered_fields',
  'rendered_identifiers',
  'revision',
  'first_seen_at',
  'last_seen_at',
]);
/** The identifiers columns in insert order. */
export const IDENTIFIER_COLUMNS = allColumns<IdentifiersTable>()([
  'recall_id',
  'kind',
  'value',
  'normalized',
  'confidence',
  'match_key',
  'product_key',
]);

/** The identifiers rows of a recall's canonical content. */
export function identifierRows(id: string, content: RecallContent): Selectable<IdentifiersTable>[] {
  return content.identifiers.map((i) => {
    const keys = storageKeys(i.kind, i.normalized);
    return {
      recall_id: id,
      kind: i.kind,
      value: i.value,
      normalized: i.normalized,
      confidence: i.confidence,
      match_key: keys.matchKey,
      product_key: keys.productKey,
    };
  });
}

export class IngestStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
    private readonly state: StoreStateWatch,
  ) {}

  /** Applies one source's complete observation atomically. */
  async apply(obs: SourceObservation): Promise<ApplyResult> {
    // The last draft of a record id wins, as the agency's latest word on it.
    const setAside = obs.setAside ?? [];
    const byId = new Map<string, RecallDraft>();
    for (const d of obs.drafts) byId.set(recallId(obs.sourceId, d.recordId), d);

    const result = await this.db.transaction().execute(async (trx) => {
      const existing = new Map<string, { hash: string; revision: number }>();
      const rows = await trx
        .selectFrom('recalls')
        .select(['id', 'content_hash', 'revision'])
        .where('source_id', '=', obs.sourceId)
        .execute();
      for (const r of rows) existing.set(r.id, { hash: r.content_hash, revision: r.revision });

      const inserts: unknown[][] = [];
      const newIdentifiers: unknown[][] = [];
      const unchanged: string[] = [];
      const amended: {
        id: string;
        draft: RecallDraft;
        content: RecallContent;
        hash: string;
        revision: number;
      }[] = [];

      for (const [id, draft] of byId) {
        const content = canonicalContent(draft);
        const json = JSON.stringify(content);
        const hash = contentHashOfJson(json);
        const prior = existing.get(id);
        if (prior === undefined) {
          const row: RecallsTable = {
            ...recallColumns(id, obs, draft, content, hash, json),
            revision: 1,
            first_seen_at: obs.observedAt,
            last_seen_at: obs.observedAt,
          };
          inserts.push(RECALL_COLUMNS.map((c) => row[c]));
          for (const i of identifierRows(id, content))
            newIdentifiers.push(IDENTIFIER_COLUMNS.map((c) => i[c]));
        } else if (prior.hash === hash) {
          unchanged.push(id);
        } else {
          amended.push({ id, draft, content, hash, revision: prior.revision + 1 });
        }
      }

      await this.engine.insertRows(trx, 'recalls', RECALL_COLUMNS, inserts, ['revision']);
      await this.engine.insertRows(trx, 'identifiers', IDENTIFIER_COLUMNS, newIdentifiers);

      for (const a of amended) await this.amend(trx, obs, a);

      // Unchanged records: only last_seen_at moves (where it differs), in statements of many ids each.
      let seen = 0;
      for (const ids of chunks(unchanged, KEY_CHUNK)) {
        const [moved] = await trx
          .updateTable('recalls')
          .set({ last_seen_at: obs.observedAt })
          .where((eb) => this.engine.inList(eb.ref('id'), this.engine.listParam(ids)))
          .where('last_seen_at', '<>', obs.observedAt)
          .execute();
        seen += Number(moved?.numUpdatedRows ?? 0);
      }

      // What /v1/sources and meta.data_as_of serve of the source (its attempts and errors only health shows).
      const served = await trx
        .selectFrom('sources')
        .select(['data_as_of', 'last_success_at'])
        .where('id', '=', obs.sourceId)
        .executeTakeFirst();
      await trx
        .updateTable('sources')
        .set({
          data_as_of: obs.dataAsOf,
          last_success_at: obs.observedAt,
          last_attempt_at: obs.observedAt,
          last_error: null,
          consecutive_failures: 0,
          set_aside: setAside.length,
        })
        .where('id', '=', obs.sourceId)
        .execute();
      await trx.deleteFrom('set_aside_records').where('source_id', '=', obs.sourceId).execute();
      const kept = setAside.slice(0, SET_ASIDE_KEPT).map((s, position) => ({
        source_id: obs.sourceId,
        position,
        record: s.record,
        reason: s.reason,
      }));
      for (const chunk of chunks(kept, ROW_CHUNK))
        await trx.insertInto('set_aside_records').values(chunk).execute();
      const moved =
        inserts.length + amended.length + seen > 0 ||
        served === undefined ||
        served.data_as_of !== obs.dataAsOf ||
        served.last_success_at !== obs.observedAt;
      if (moved) await moveCorpusVersion(trx, obs.observedAt);
      return { inserted: inserts.length, amended: amended.length, unchanged: unchanged.length, moved };
    });
    if (result.moved) this.state.invalidate();
    return result;
  }

  private async insertIdentifiers(trx: Transaction<Database>, rows: ReturnType<typeof identifierRows>) {
    for (const chunk of chunks(rows, ROW_CHUNK)) await trx.insertInto('identifiers').values(chunk).execute();
  }

  private async amend(
    trx: Transaction<Database>,
    obs: SourceObservation,
    a: { id: string; draft: RecallDraft; content: RecallContent; hash: string; revision: number },
  ) {
    const before = await trx
      .selectFrom('recalls')
      .select('content')
      .where('id', '=', a.id)
      .executeTakeFirstOrThrow();
    const changed = diffContent(JSON.parse(before.content) as RecallContent, a.content);
    await trx
      .updateTable('recalls')
      .set({
        ...recallColumns(a.id, obs, a.draft, a.content, a.hash),
        revision: a.revision,
        last_seen_at: obs.observedAt,
      })
      .where('id', '=', a.id)
      .execute();
    if ('identifiers' in changed) {
      await trx.deleteFrom('identifiers').where('recall_id', '=', a.id).execute();
      await this.insertIdentifiers(trx, identifierRows(a.id, a.content));
    }
    await trx
      .insertInto('revisions')
      .values({
        recall_id: a.id,
        revision: a.revision,
        observed_at: obs.observedAt,
        changed_fields: JSON.stringify(changed),
        data_as_of: obs.dataAsOf,
      })
      .execute();
  }
}
