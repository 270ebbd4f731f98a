/** CPSC Recall Retrieval: one GET, one JSON array (first run: all ~9,900 records; then a date window). */
import type { FetchContext, RawPage } from '../../source.ts';
import { parseCpscPage } from './schema.ts';

/** How far before the last success an incremental window starts. */
export const CPSC_LOOKBACK_DAYS = 30;

const DAY_MS = 86_400_000;

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Everything when `since` is null, else `LastPublishDate` from `since` − 30 days to `now` (UTC days). */
export function cpscRecallUrl(baseUrl: string, since: Date | null, now: Date): string {
  const base = `${baseUrl.replace(/\/+$/, '')}/RestWebServices/Recall?format=json`;
  if (since === null) return base;
  const start = new Date(since.getTime() - CPSC_LOOKBACK_DAYS * DAY_MS);
  return `${base}&LastPublishDateStart=${day(start)}&LastPublishDateEnd=${day(now)}`;
}

/**
 * Yields `recalls.json`, validated first so an in-band error record is not archived; `[]` is
 * yielded too (readme.md, "An empty window").
 */
export async function* fetchCpscRecalls(ctx: FetchContext): AsyncGenerator<RawPage> {
  const url = cpscRecallUrl(ctx.baseUrl, ctx.since, ctx.now);
  const { body } = await ctx.fetcher.get(url, { headers: { accept: 'application/json' } });
  parseCpscPage(body, url);
  yield { name: 'recalls.json', body, url };
}
