/** Calendar dates as the contract writes them: `YYYY-MM-DD`, real days only. */
export function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** The `YYYY-MM-DD` of a day given by its numbers, or null when it is no real day. */
export function calendarDate(year: number, month: number, day: number): string | null {
  const iso = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  return isCalendarDate(iso) ? iso : null;
}

/** `YYYYMMDD` (as openFDA and NHTSA write dates) → `YYYY-MM-DD`, or null when it is no real day. */
export function compactToIsoDate(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(value.trim());
  if (m === null) return null;
  const iso = `${m[1]}-${m[2]}-${m[3]}`;
  return isCalendarDate(iso) ? iso : null;
}

/** The latest of ISO dates or instants in one form (they order as strings); null when there is none. */
export function latestIso(values: Iterable<string | null | undefined>): string | null {
  let latest: string | null = null;
  for (const v of values) if (v != null && (latest === null || v > latest)) latest = v;
  return latest;
}
