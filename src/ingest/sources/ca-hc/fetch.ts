/**
 * Fetching Health Canada's open-data dump: one GET of the whole English file (about 34,000 rows,
 * about 16 MB), regenerated daily, no paging. Conditional GET is applied by the pipeline's fetcher.
 */
import type { FetchContext, RawPage } from '../../source.ts';

/** The dump's file name, also the archive name of the one page of a run. */
export const HC_DUMP_NAME = 'HCRSAMOpenData.json';

/** The address of the English dump under a base address (`https://recalls-rappels.canada.ca`). */
export function hcDumpUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/sites/default/files/opendata-donneesouvertes/${HC_DUMP_NAME}`;
}

/** Fetches the dump and yields it as served, as one page. */
export async function* fetchHcDump(ctx: FetchContext): AsyncGenerator<RawPage> {
  const url = hcDumpUrl(ctx.baseUrl);
  const { body } = await ctx.fetcher.get(url, { headers: { accept: 'application/json' } });
  yield { name: HC_DUMP_NAME, body, url };
}
