/** Per-source state: which sources exist, their freshness and failures. */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';
import { moveCorpusVersion, type StoreStateWatch } from './store-state.ts';

export interface SourceState {
  id: string;
  enabled: boolean;
  data_as_of: string | null;
  last_success_at: string | null;
  last_attempt_at: string | null;
  last_error: string | null;
  consecutive_failures: number;
  /** How long the last run took, fetch to commit or to its failure, in milliseconds (null before any run). */
  last_run_ms: number | null;
  /** Records the last successful run read (null before any). */
  last_run_records: number | null;
}

export class SourcesStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly state: StoreStateWatch,
  ) {}

  /**
   * Makes sure every known source has a row, keeping its state; updates agency and jurisdiction, which
   * recalls serve, so the corpus version moves when one of them changes. Writes nothing when every row is as
   * given, so that a command that only reads the corpus (`keys revoke`) never waits for an ingest's write.
   */
  async register(sources: { id: string; agency: string; jurisdiction: string }[]): Promise<void> {
    const known = new Map(
      (await this.db.selectFrom('sources').select(['id', 'agency', 'jurisdiction']).execute()).map((r) => [
        r.id,
        r,
      ]),
    );
    const renamed = sources.filter((s) => {
      const k = known.get(s.id);
      return k !== undefined && (k.agency !== s.agency || k.jurisdiction !== s.jurisdiction);
    });
    const changed = sources.filter((s) => !known.has(s.id) || renamed.includes(s));
    if (changed.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const s of changed) {
        await trx
          .insertInto('sources')
          .values({
            id: s.id,
            agency: s.agency,
            jurisdiction: s.jurisdiction,
            enabled: 1,
            consecutive_failures: 0,
          })
          .onConflict((oc) => oc.column('id').doUpdateSet({ agency: s.agency, jurisdiction: s.jurisdiction }))
          .execute();
      }
      if (renamed.length > 0) await moveCorpusVersion(trx, new Date().toISOString());
    });
    if (renamed.length > 0) this.state.invalidate();
  }

  async list(): Promise<SourceState[]> {
    const rows = await this.db.selectFrom('sources').selectAll().orderBy('id').execute();
    return rows.map((r) => ({
      id: r.id,
      enabled: r.enabled === 1,
      data_as_of: r.data_as_of,
      last_success_at: r.last_success_at,
      last_attempt_at: r.last_attempt_at,
      last_error: r.last_error,
      consecutive_failures: r.consecutive_failures,
      last_run_ms: r.last_run_ms,
      last_run_records: r.last_run_records,
    }));
  }

  /**
   * Records how long a successful run took and how many records it read, after its commit. Not served by the
   * API (the corpus version stays): the admin listener's metrics read it.
   */
  async recordRun(id: string, figures: { ms: number; records: number }): Promise<void> {
    await this.db
      .updateTable('sources')
      .set({ last_run_ms: Math.round(figures.ms), last_run_records: figures.records })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Records a failed attempt; the source's records and freshness are left as they were, and so is the corpus
   * version: what changes (last attempt, error, failures) only /v1/health serves, which reads it afresh.
   */
  async recordFailure(id: string, message: string, at: string, ms?: number): Promise<void> {
    await this.db
      .updateTable('sources')
      .set((eb) => ({
        last_attempt_at: at,
        last_error: message.slice(0, 2000),
        consecutive_failures: eb('consecutive_failures', '+', 1),
        ...(ms === undefined ? {} : { last_run_ms: Math.round(ms) }),
      }))
      .where('id', '=', id)
      .execute();
  }
}
