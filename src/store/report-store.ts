/**
 * The data-quality report: per source, how many records, how many carry an identifier, the
 * identifiers by kind and confidence, the severity, remedy and hazard distributions, and the
 * records its last successful run set aside.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export interface SourceQuality {
  sourceId: string;
  records: number;
  withIdentifier: number;
  identifiers: { kind: string; confidence: string; count: number }[];
  severity: Record<string, number>;
  remedy: Record<string, number>;
  hazard: Record<string, number>;
  /** Records the source's last successful run could not read, and the first of them with the reason. */
  setAside: { count: number; first: { record: string; reason: string }[] };
}

/** How many records set aside the report lists per source, with their reasons. */
export const REPORT_SET_ASIDE_LISTED = 10;

type Counted = { source_id: string; value: string | null; n: string | number };

function tally(rows: Counted[], sourceId: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rows) if (r.source_id === sourceId) out[r.value ?? 'null'] = Number(r.n);
  return out;
}

export class ReportStore {
  constructor(private readonly db: Kysely<Database>) {}

  async quality(): Promise<SourceQuality[]> {
    const db = this.db;
    const counts = await db
      .selectFrom('recalls')
      .select(['source_id', (eb) => eb.fn.countAll<string | number>().as('n')])
      .groupBy('source_id')
      .execute();
    const withIds = await db
      .selectFrom('recalls')
      .select(['source_id', (eb) => eb.fn.countAll<string | number>().as('n')])
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('identifiers')
            .select('recall_id')
            .whereRef('identifiers.recall_id', '=', 'recalls.id'),
        ),
      )
      .groupBy('source_id')
      .execute();
    const ids = await db
      .selectFrom('identifiers')
      .innerJoin('recalls', 'recalls.id', 'identifiers.recall_id')
      .select([
        'recalls.source_id',
        'identifiers.kind',
        'identifiers.confidence',
        (eb) => eb.fn.countAll<string | number>().as('n'),
      ])
      .groupBy(['recalls.source_id', 'identifiers.kind', 'identifiers.confidence'])
      .orderBy('identifiers.kind')
      .orderBy('identifiers.confidence')
      .execute();
    const by = (column: 'severity' | 'remedy' | 'hazard_category') =>
      db
        .selectFrom('recalls')
        .select(['source_id', `${column} as value`, (eb) => eb.fn.countAll<string | number>().as('n')])
        .groupBy(['source_id', column])
        .execute() as Promise<Counted[]>;
    const [severity, remedy, hazard] = await Promise.all([
      by('severity'),
      by('remedy'),
      by('hazard_category'),
    ]);
    const setAsideCounts = await db.selectFrom('sources').select(['id', 'set_aside']).execute();
    const setAsideRows = await db
      .selectFrom('set_aside_records')
      .select(['source_id', 'record', 'reason'])
      .where('position', '<', REPORT_SET_ASIDE_LISTED)
      .orderBy('source_id')
      .orderBy('position')
      .execute();
    return counts
      .map((c) => ({
        sourceId: c.source_id,
        records: Number(c.n),
        withIdentifier: Number(withIds.find((w) => w.source_id === c.source_id)?.n ?? 0),
        identifiers: ids
          .filter((i) => i.source_id === c.source_id)
          .map((i) => ({ kind: i.kind, confidence: i.confidence, count: Number(i.n) })),
        severity: tally(severity, c.source_id),
        remedy: tally(remedy, c.source_id),
        hazard: tally(hazard, c.source_id),
        setAside: {
          count: Number(setAsideCounts.find((s) => s.id === c.source_id)?.set_aside ?? 0),
          first: setAsideRows
            .filter((r) => r.source_id === c.source_id)
            .map((r) => ({ record: r.record, reason: r.reason })),
        },
      }))
      .sort((a, b) => (a.sourceId < b.sourceId ? -1 : 1));
  }
}
