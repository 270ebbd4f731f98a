/** The dates the ACCC prints. Pure. */
import { calendarDate } from '../../../domain/dates.ts';

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

/**
 * `YYYY-MM-DD` from an ISO date(-time), an RSS date (`Tue, 10 Mar 2026 09:00:00 +1100`, the day as
 * written, i.e. Australian) or a long date (`12 March 2026`); null when none.
 */
export function acccDate(value: string | null | undefined): string | null {
  const v = (value ?? '').trim();
  let m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]|$)/.exec(v);
  if (m) return calendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /(?:^|\s|,)(\d{1,2})\s+([A-Za-z]{3,9})\.?\s+(\d{4})\b/.exec(v);
  if (m) {
    const month = MONTHS[m[2]!.slice(0, 3).toLowerCase()];
    return month === undefined ? null : calendarDate(Number(m[3]), month, Number(m[1]));
  }
  return null;
}
