/** The FSIS recall API: one GET of the whole dataset (FSIS ignores date filters); conditional GET applies. */
import type { FetchContext, RawPage } from '../../source.ts';

/** The archive name of the one page of a run. */
export const FSIS_PAGE_NAME = 'recall-v1.json';

/** Browser-like headers: Akamai's bot manager stalls other request shapes (User-Agent set upstream). */
export const FSIS_REQUEST_HEADERS: Readonly<Record<string, string>> = {
  accept: 'application/json, text/plain, */*',
  'accept-language': 'en-US,en;q=0.9',
};

/** The whole dataset's address under `baseUrl` (`https://www.fsis.usda.gov`). */
export function fsisRecallsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/fsis/api/recall/v/1`;
}

/** Fetches the dataset and yields it as one page. */
export async function* fetchFsisRecalls(ctx: FetchContext): AsyncGenerator<RawPage> {
  const url = fsisRecallsUrl(ctx.baseUrl);
  const { body } = await ctx.fetcher.get(url, { headers: { ...FSIS_REQUEST_HEADERS } });
  yield { name: FSIS_PAGE_NAME, body, url };
}
