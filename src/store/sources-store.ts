/** Per-source state: which sources exist, their freshness and failures. */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export interface SourceState {
  id: string;
  enabled: boolean;
  data_as_of: string | null;
  last_success_at: string | null;
  last_attempt_at: string | null;
  last_error: string | null;
  consecutive_failures: number;
}

export class SourcesStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Makes sure every known source has a row, keeping its state; updates agency and jurisdiction. */
  async register(sources: { id: string; agency: string; jurisdiction: string }[]): Promise<void> {
    for (const s of sources) {
      await this.db
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
    }));
  }

  /** Records a failed attempt; the source's records and freshness are left as they were. */
  async recordFailure(id: string, message: string, at: string): Promise<void> {
    await this.db
      .updateTable('sources')
      .set((eb) => ({
        last_attempt_at: at,
        last_error: message.slice(0, 2000),
        consecutive_failures: eb('consecutive_failures', '+', 1),
      }))
      .where('id', '=', id)
      .execute();
    await this.db
      .updateTable('corpus_state')
      .set((eb) => ({ version: eb('version', '+', 1), updated_at: at }))
      .where('id', '=', 1)
      .execute();
  }
}
