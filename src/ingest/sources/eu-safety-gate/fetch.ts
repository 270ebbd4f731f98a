/**
 * Safety Gate weekly reports: the list, then each new-enough report oldest first (a case in two
 * reports keeps the newer version); always the newest, so a mid-week run sees the current one.
 */
import type { FetchContext, RawPage } from '../../source.ts';
import { formatError } from '../../errors.ts';
import { parseSafetyGatePage, type WeeklyReportRef } from './schema.ts';

/** The report list's path on the base address. */
export const SAFETY_GATE_LIST_PATH = '/safety-gate-alerts/api/download/weeklyReport/list/xml/en';

/** Two weeks' overlap covers a weekly report published or corrected late. */
export const SINCE_MARGIN_DAYS = 14;

const DAY_MS = 86_400_000;

function trimBase(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

/** The report list's address. */
export function safetyGateListUrl(baseUrl: string): string {
  return `${trimBase(baseUrl)}${SAFETY_GATE_LIST_PATH}`;
}

/** A report's address on our base (listed ones bypass a mirror); without `search` it answers a JS shell. */
export function safetyGateReportUrl(baseUrl: string, id: string): string {
  return (
    `${trimBase(baseUrl)}/safety-gate-alerts/api/download/weeklyReport/detail/xml/${id}` +
    `?language=en&search=WEB_REPORT%7C:%7C${id}`
  );
}

/** Oldest first, ids once: all when `since` is null, else those since `since` − margin, plus the newest. */
export function selectReports(reports: readonly WeeklyReportRef[], since: Date | null): WeeklyReportRef[] {
  const byId = new Map<string, WeeklyReportRef>();
  for (const r of reports) if (!byId.has(r.id)) byId.set(r.id, r);
  const sorted = [...byId.values()].sort((a, b) =>
    a.publicationDate !== b.publicationDate
      ? a.publicationDate < b.publicationDate
        ? -1
        : 1
      : Number(a.id) - Number(b.id),
  );
  if (since === null) return sorted;
  const from = new Date(since.getTime() - SINCE_MARGIN_DAYS * DAY_MS).toISOString().slice(0, 10);
  const newest = sorted.at(-1);
  return sorted.filter((r) => r.publicationDate >= from || r === newest);
}

/** Yields the list (`list.xml`) and the selected reports (`report-<id>.xml`, id zero-padded to 10). */
export async function* fetchSafetyGate(ctx: FetchContext): AsyncGenerator<RawPage> {
  const listUrl = safetyGateListUrl(ctx.baseUrl);
  const listBody = (await ctx.fetcher.get(listUrl)).body;
  const list = parseSafetyGatePage(listBody, listUrl);
  if (list.kind !== 'list')
    throw formatError('the Safety Gate report list address served a weekly report', listUrl);
  yield { name: 'list.xml', body: listBody, url: listUrl };
  for (const report of selectReports(list.reports, ctx.since)) {
    const url = safetyGateReportUrl(ctx.baseUrl, report.id);
    const body = (await ctx.fetcher.get(url)).body;
    // Zero-padded, so a mirror read in name order replays oldest first too.
    yield { name: `report-${report.id.padStart(10, '0')}.xml`, body, url };
  }
}
