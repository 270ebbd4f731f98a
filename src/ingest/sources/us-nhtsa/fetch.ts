/** NHTSA has no listing API: one flat file, rebuilt daily; a run yields the post-2010 zip (~14 MB). */
import type { FetchContext, RawPage } from '../../source.ts';

/** The file's name, also its archive page name. */
export const FLAT_RCL_FILE = 'FLAT_RCL_POST_2010.zip';

/** The address of the flat file under a base address (`https://static.nhtsa.gov` by default). */
export function flatRclUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/odi/ffdd/rcl/${FLAT_RCL_FILE}`;
}

/** Fetches the flat file; throws UpstreamError on agency-side failure. */
export async function* fetchFlatRcl(ctx: FetchContext): AsyncGenerator<RawPage> {
  const url = flatRclUrl(ctx.baseUrl);
  const { body } = await ctx.fetcher.get(url);
  yield { name: FLAT_RCL_FILE, body, url };
}
