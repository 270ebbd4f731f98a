/** Health Canada's open-data dump: one GET of the whole English file (~34,000 rows, ~16 MB), daily. */
import type { FetchContext, RawPage } from '../../source.ts';

/** The dump's file name, also the run's one archived page. */
export const HC_DUMP_NAME = 'HCRSAMOpenData.json';

/** The English dump's address under `baseUrl` (`https://recalls-rappels.canada.ca`). */
export function hcDumpUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/sites/default/files/opendata-donneesouvertes/${HC_DUMP_NAME}`;
}

/** Fetches the dump and yields it as one page. */
export async function* fetchHcDump(ctx: FetchContext): AsyncGenerator<RawPage> {
  const url = hcDumpUrl(ctx.baseUrl);
  const { body } = await ctx.fetcher.get(url, { headers: { accept: 'application/json' } });
  yield { name: HC_DUMP_NAME, body, url };
}
