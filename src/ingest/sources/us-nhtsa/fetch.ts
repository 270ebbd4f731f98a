/**
 * NHTSA publishes its recall campaigns as one flat file, rebuilt daily: no API lists them all.
 * A run downloads the post-2010 zip (about 14 MB) once and yields it exactly as served.
 */
import type { FetchContext, RawPage } from '../../source.ts';

/** The file's name, also its archive page name. */
export const FLAT_RCL_FILE = 'FLAT_RCL_POST_2010.zip';

/** The address of the flat file under a base address (`https://static.nhtsa.gov` by default). */
export function flatRclUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/odi/ffdd/rcl/${FLAT_RCL_FILE}`;
}

/** Fetches the flat file. Throws UpstreamError on any agency-side failure. */
export async function* fetchFlatRcl(ctx: FetchContext): AsyncGenerator<RawPage> {
  const url = flatRclUrl(ctx.baseUrl);
  const { body } = await ctx.fetcher.get(url);
  yield { name: FLAT_RCL_FILE, body, url };
}
