/**
 * Reading the Safety Gate weekly reports: the report list first, then each report it lists
 * that is new enough, oldest first (so where a case appears in two reports, the newer report's
 * version is the one kept). On a first run (`since` null) every listed report is read; later
 * runs read the reports published since the last success minus a margin, and always the
 * newest one, so a run between two Fridays still observes the current report.
 */
import type { FetchContext, RawPage } from '../../source.ts';
import { formatError } from '../../errors.ts';
import { parseSafetyGatePage, type WeeklyReportRef } from './schema.ts';

export const SAFETY_GATE_LIST_PATH = '/safety-gate-alerts/api/download/weeklyReport/list/xml/en';

/** Reports are weekly; two weeks of overlap covers a report published or corrected late. */
export const SINCE_MARGIN_DAYS = 14;

const DAY_MS = 86_400_000;

function trimBase(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

export function safetyGateListUrl(baseUrl: string): string {
  return `${trimBase(baseUrl)}${SAFETY_GATE_LIST_PATH}`;
}

/**
 * The address of one weekly report. Built from the report id on our base address rather than
 * taken from the list verbatim: the listed addresses are absolute (so they would bypass a
 * configured mirror) and are reported to carry a trailing comma; the `search` parameter is
 * reported to be required (without it the server answers with a JavaScript shell).
 */
export function safetyGateReportUrl(baseUrl: string, id: string): string {
  return (
    `${trimBase(baseUrl)}/safety-gate-alerts/api/download/weeklyReport/detail/xml/${id}` +
    `?language=en&search=WEB_REPORT%7C:%7C${id}`
  );
}

/**
 * The reports to read, oldest first: all of them when `since` is null, else those published on
 * or after `since` minus the margin, plus the newest report in any case. Duplicate ids are read once.
 */
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

/** Fetches the list (`list.xml`) and the selected reports (`report-<id>.xml`, id zero-padded to 10 digits), yielding each as served. */
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
    // Zero-padded, so a mirror read in name order replays the reports oldest first too.
    yield { name: `report-${report.id.padStart(10, '0')}.xml`, body, url };
  }
}
