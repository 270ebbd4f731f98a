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

/**
 * `usageMonth` for a request path: the month's bounds are kept, so that the month string is made again only
 * when a time falls outside the month last made (no date formatting per request).
 */
export function usageMonthKeeper(): (now: Date) => string {
  let start = 0;
  let end = -1;
  let month = '';
  return (now) => {
    const t = now.getTime();
    if (t < start || t >= end) {
      month = usageMonth(now);
      start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
      end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    }
    return month;
  };
}
