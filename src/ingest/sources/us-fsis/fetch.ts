/**
 * Fetching the FSIS recall API: one GET of the whole dataset, a bare JSON array with no paging
 * (query filters on `field_last_modified_date` are ignored by FSIS, so there is no incremental
 * request). Conditional GET (ETag / Last-Modified) is applied by the pipeline's fetcher.
 */
import type { FetchContext, RawPage } from '../../source.ts';

/** The archive name of the one page of a run. */
export const FSIS_PAGE_NAME = 'recall-v1.json';

/**
 * Headers a browser would send: FSIS sits behind Akamai's bot manager, which stalls clients
 * without a browser-like request shape (the User-Agent itself is set by the upstream client).
 */
export const FSIS_REQUEST_HEADERS: Readonly<Record<string, string>> = {
  accept: 'application/json, text/plain, */*',
  'accept-language': 'en-US,en;q=0.9',
};

/** The address of the whole dataset under a base address (`https://www.fsis.usda.gov`). */
export function fsisRecallsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/fsis/api/recall/v/1`;
}

/** Fetches the dataset and yields it as served, as one page. */
export async function* fetchFsisRecalls(ctx: FetchContext): AsyncGenerator<RawPage> {
  const url = fsisRecallsUrl(ctx.baseUrl);
  const { body } = await ctx.fetcher.get(url, { headers: { ...FSIS_REQUEST_HEADERS } });
  yield { name: FSIS_PAGE_NAME, body, url };
}
