/** What a plan meters per key and calendar month (UTC); each meter is a column of the usage table. */
export const METERS = ['requests', 'identifiers'] as const;
export type Meter = (typeof METERS)[number];

/** An amount of each meter. */
export type Metered = Record<Meter, number>;

/** Whether an amount is nothing on every meter. */
export function isNothing(amount: Metered): boolean {
  return METERS.every((m) => amount[m] === 0);
}

/** The calendar month in UTC, `YYYY-MM`, that usage is counted in. */
export function usageMonth(now: Date): string {
  return now.toISOString().slice(0, 7);
}
