/**
 * Fetching the CPSC Recall Retrieval web service. There is no paging: one GET returns every
 * match as one bare JSON array. The first run (no `since`) asks with no filter, which returns
 * the whole corpus (about 9,900 records, 27 MB). Later runs ask for the records whose
 * `LastPublishDate` falls between `since` minus a safety margin and today.
 */
import type { FetchContext, RawPage } from '../../source.ts';
import { parseCpscPage } from './schema.ts';

/** How far before the last success an incremental window starts. */
export const CPSC_LOOKBACK_DAYS = 30;

const DAY_MS = 86_400_000;

/** A UTC calendar day as CPSC's filters take it: `YYYY-MM-DD`. */
function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * The address of one query: everything when `since` is null, else the `LastPublishDate`
 * window from `since` − 30 days to `now` (both bounds inclusive, UTC days).
 */
export function cpscRecallUrl(baseUrl: string, since: Date | null, now: Date): string {
  const base = `${baseUrl.replace(/\/+$/, '')}/RestWebServices/Recall?format=json`;
  if (since === null) return base;
  const start = new Date(since.getTime() - CPSC_LOOKBACK_DAYS * DAY_MS);
  return `${base}&LastPublishDateStart=${day(start)}&LastPublishDateEnd=${day(now)}`;
}

/**
 * Fetches the one answer and yields it as served, named `recalls.json`. It is validated before
 * it is yielded, so CPSC's in-band error record (HTTP 200, `RecallID: 0`) fails the run here,
 * with its address, before anything is archived as a good page. An empty array is yielded too:
 * see readme.md for why an empty window then fails the run as `empty`.
 */
export async function* fetchCpscRecalls(ctx: FetchContext): AsyncGenerator<RawPage> {
  const url = cpscRecallUrl(ctx.baseUrl, ctx.since, ctx.now);
  const { body } = await ctx.fetcher.get(url, { headers: { accept: 'application/json' } });
  parseCpscPage(body, url);
  yield { name: 'recalls.json', body, url };
}
