/**
 * Writes one source's observation of the corpus in a single transaction: new records are
 * inserted, unchanged ones only have `last_seen_at` moved, changed ones get the next revision
 * and a Revision with their field diff. The source's freshness moves in the same transaction,
 * so a run that fails midway leaves everything as it was. The corpus version moves with it only
 * when something served changed (a record, a revision, a last_seen_at, the source's freshness).
 */
import type { Kysely, Transaction } from 'kysely';
import { diffContent } from '../domain/diff.ts';
import type { RecallContent, RecallDraft } from '../domain/recall.ts';
import type { Engine } from './engine.ts';
import {
  IDENTIFIER_COLUMNS,
  RECALL_COLUMNS,
  prepareRecall,
  preparedColumns,
  preparedContent,
  underId,
  type PreparedRecall,
} from './recall-rows.ts';
import type { Database } from './schema.ts';
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

/** What identifies a run's observation of one source, before its records. */
export type ObservationHead = Pick<SourceObservation, 'sourceId' | 'jurisdiction' | 'observedAt'>;

/** What a run knows of the source once it has read every record: checked before anything is committed. */
export type ObservationTail = Pick<SourceObservation, 'dataAsOf' | 'setAside'>;

export class IngestStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
    private readonly state: StoreStateWatch,
  ) {}

  /**
   * Applies one source's complete observation atomically; the last draft of a record id wins. A draft
   * whose record id is not stored but one of its former ids is, is written under that former id.
   */
  async apply(obs: SourceObservation): Promise<ApplyResult> {
    return this.applyStream(obs, single(obs.drafts.map((d) => prepareRecall(obs, d))), () => obs);
  }

  /**
   * Applies one source's observation atomically while its records are still being prepared: each batch
   * is written as it arrives, in one transaction. `conclude` runs after the last batch, before the
   * commit; what it throws rolls everything back. The last draft of a record id wins, as the agency's
   * latest word on it: amendments and unchanged records are settled after the last batch, and a new
   * record listed again with other content is rewritten then.
   */
  async applyStream(
    head: ObservationHead,
    batches: AsyncIterable<readonly PreparedRecall[]>,
    conclude: () => ObservationTail,
  ): Promise<ApplyResult> {
    const result = await this.db.transaction().execute(async (trx) => {
      // A write first, so that the transaction holds the write lock before it reads anything. On SQLite a
      // transaction that has read cannot write once another connection has committed (SQLITE_BUSY_SNAPSHOT,
      // which no busy timeout waits out), and batches arrive over time. The stamp is written again below.
      await trx
        .updateTable('sources')
        .set({ last_attempt_at: head.observedAt })
        .where('id', '=', head.sourceId)
        .execute();
      const existing = new Map<string, { hash: string; revision: number }>();
      const rows = await trx
        .selectFrom('recalls')
        .select(['id', 'content_hash', 'revision'])
        .where('source_id', '=', head.sourceId)
        .execute();
      for (const r of rows) existing.set(r.id, { hash: r.content_hash, revision: r.revision });

      // New records, with the hash written; those listed again, their last draft.
      const inserted = new Map<string, string>();
      const relisted = new Map<string, PreparedRecall>();
      // Known records, settled once each one's last draft and the run's freshness stamp (which each
      // revision carries) are known.
      const unchanged = new Set<string>();
      const amended = new Map<string, PreparedRecall>();
      for await (const batch of batches) {
        const inserts: unknown[][] = [];
        const newIdentifiers: unknown[][] = [];
        for (const listed of batch) {
          // A record stored under a former id keeps it.
          const kept = existing.has(listed.id) ? undefined : listed.former?.find(([id]) => existing.has(id));
          const record = kept === undefined ? listed : underId(listed, kept);
          const prior = existing.get(record.id);
          if (prior === undefined) {
            if (inserted.has(record.id)) {
              relisted.set(record.id, record);
              continue;
            }
            inserted.set(record.id, record.hash);
            inserts.push([...record.values, 1, head.observedAt, head.observedAt]);
            for (const row of record.identifiers) newIdentifiers.push(row);
          } else if (prior.hash === record.hash) {
            amended.delete(record.id);
            unchanged.add(record.id);
          } else {
            unchanged.delete(record.id);
            amended.set(record.id, record);
          }
        }
        await this.engine.insertRows(trx, 'recalls', RECALL_COLUMNS, inserts, ['revision']);
        await this.engine.insertRows(trx, 'identifiers', IDENTIFIER_COLUMNS, newIdentifiers);
      }
      const { dataAsOf, setAside = [] } = conclude();
      for (const record of relisted.values())
        if (record.hash !== inserted.get(record.id)) await this.rewrite(trx, record);
      for (const record of amended.values())
        await this.amend(trx, { ...head, dataAsOf }, record, existing.get(record.id)!.revision + 1);

      // Unchanged records: only last_seen_at moves (where it differs), in statements of many ids each.
      let seen = 0;
      for (const ids of chunks([...unchanged], KEY_CHUNK)) {
        const [moved] = await trx
          .updateTable('recalls')
          .set({ last_seen_at: head.observedAt })
          .where((eb) => this.engine.inList(eb.ref('id'), this.engine.listParam(ids)))
          .where('last_seen_at', '<>', head.observedAt)
          .execute();
        seen += Number(moved?.numUpdatedRows ?? 0);
      }

      // What /v1/sources and meta.data_as_of serve of the source (its attempts and errors only health shows).
      const served = await trx
        .selectFrom('sources')
        .select(['data_as_of', 'last_success_at'])
        .where('id', '=', head.sourceId)
        .executeTakeFirst();
      await trx
        .updateTable('sources')
        .set({
          data_as_of: dataAsOf,
          last_success_at: head.observedAt,
          last_attempt_at: head.observedAt,
          last_error: null,
          consecutive_failures: 0,
          set_aside: setAside.length,
        })
        .where('id', '=', head.sourceId)
        .execute();
      await trx.deleteFrom('set_aside_records').where('source_id', '=', head.sourceId).execute();
      const kept = setAside.slice(0, SET_ASIDE_KEPT).map((s, position) => ({
        source_id: head.sourceId,
        position,
        record: s.record,
        reason: s.reason,
      }));
      for (const chunk of chunks(kept, ROW_CHUNK))
        await trx.insertInto('set_aside_records').values(chunk).execute();
      const moved =
        inserted.size + amended.size + seen > 0 ||
        served === undefined ||
        served.data_as_of !== dataAsOf ||
        served.last_success_at !== head.observedAt;
      if (moved) await moveCorpusVersion(trx, head.observedAt);
      return { inserted: inserted.size, amended: amended.size, unchanged: unchanged.size, moved };
    });
    if (result.moved) this.state.invalidate();
    return result;
  }

  /** A record new in this run and listed again with other content: its row and identifiers as last listed. */
  private async rewrite(trx: Transaction<Database>, record: PreparedRecall) {
    await trx.updateTable('recalls').set(preparedColumns(record)).where('id', '=', record.id).execute();
    await this.replaceIdentifiers(trx, record);
  }

  /** A stored record's identifier rows replaced by the record's. */
  private async replaceIdentifiers(trx: Transaction<Database>, record: PreparedRecall) {
    await trx.deleteFrom('identifiers').where('recall_id', '=', record.id).execute();
    await this.engine.insertRows(trx, 'identifiers', IDENTIFIER_COLUMNS, record.identifiers);
  }

  private async amend(
    trx: Transaction<Database>,
    head: ObservationHead & Pick<SourceObservation, 'dataAsOf'>,
    record: PreparedRecall,
    revision: number,
  ) {
    const before = await trx
      .selectFrom('recalls')
      .select('content')
      .where('id', '=', record.id)
      .executeTakeFirstOrThrow();
    const changed = diffContent(JSON.parse(before.content) as RecallContent, preparedContent(record));
    await trx
      .updateTable('recalls')
      .set({ ...preparedColumns(record), revision, last_seen_at: head.observedAt })
      .where('id', '=', record.id)
      .execute();
    if ('identifiers' in changed) await this.replaceIdentifiers(trx, record);
    await trx
      .insertInto('revisions')
      .values({
        recall_id: record.id,
        revision,
        observed_at: head.observedAt,
        changed_fields: JSON.stringify(changed),
        data_as_of: head.dataAsOf,
      })
      .execute();
  }
}

/** One batch, as a stream. */
async function* single(records: readonly PreparedRecall[]): AsyncIterable<readonly PreparedRecall[]> {
  yield records;
}
