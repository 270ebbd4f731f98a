/** What a plan meters per key and calendar month (UTC); each meter is a column of the usage table. */
export const METERS = ['requests', 'identifiers'] as const;
export type Meter = (typeof METERS)[number];

/** An amount of each meter. */
export type Metered = Record<Meter, number>;

/** The calendar month in UTC, `YYYY-MM`, that usage is counted in. */
export function usageMonth(now: Date): string {
  return now.toISOString().slice(0, 7);
}
