/**
 * The data-quality report: per source, how many records, how many carry an identifier, the
 * identifiers by kind and confidence, and the severity, remedy and hazard distributions.
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
}

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
      }))
      .sort((a, b) => (a.sourceId < b.sourceId ? -1 : 1));
  }
}
