/**
 * openFDA caps `limit` at 1000 and `skip` at 25000, so the feed is read in yearly `report_date`
 * slices from 2004, paged by `skip`, halved recursively when over the cap. 404 NOT_FOUND is an empty slice.
 */
import type { FetchContext, RawPage } from '../../source.ts';
import { UpstreamError } from '../../errors.ts';
import type { OpenFdaProductPath } from './normalise.ts';
import { parseOpenFdaPage } from './schema.ts';

export const OPENFDA_PAGE_LIMIT = 1000;
/**
 * Largest page: 16 MiB. Real pages are ~1.3 MB (1000 records × ~1.3 KB, ../shared/upstream-samples);
 * a larger one is 'too_large' rather than gigabytes while parsed (a 195 MB page took 5 GB).
 */
export const OPENFDA_MAX_PAGE_BYTES = 16 * 1024 * 1024;
export const OPENFDA_MAX_SKIP = 25000;
/** The first year of the FDA Enforcement Report. */
export const OPENFDA_FIRST_YEAR = 2004;

const DAY_MS = 86_400_000;

/** A closed range of report dates, as UTC midnights. */
interface Slice {
  from: Date;
  to: Date;
}

function yyyymmdd(date: Date): string {
  return date.toISOString().slice(0, 10).replace(/-/g, '');
}

/** The search address of one page of one slice. */
export function openFdaSliceUrl(
  baseUrl: string,
  productPath: OpenFdaProductPath,
  from: Date,
  to: Date,
  skip: number,
): string {
  const base = baseUrl.replace(/\/+$/, '');
  return (
    `${base}/${productPath}/enforcement.json?search=report_date:[${yyyymmdd(from)}+TO+${yyyymmdd(to)}]` +
    `&limit=${OPENFDA_PAGE_LIMIT}&skip=${skip}`
  );
}

function isNotFound(error: unknown): boolean {
  return error instanceof UpstreamError && error.failure === 'http_status' && error.details.status === 404;
}

/** Fetches every page of an enforcement endpoint as served, named `page-0001.json` … in request order. */
export async function* fetchOpenFdaEnforcement(
  ctx: FetchContext,
  productPath: OpenFdaProductPath,
): AsyncGenerator<RawPage> {
  let pageNo = 0;
  const name = (): string => `page-${String(++pageNo).padStart(4, '0')}.json`;

  async function* readSlice(slice: Slice): AsyncGenerator<RawPage> {
    let skip = 0;
    let total = Infinity;
    while (skip < total) {
      const url = openFdaSliceUrl(ctx.baseUrl, productPath, slice.from, slice.to, skip);
      let body: Buffer;
      try {
        body = (await ctx.fetcher.get(url, { maxBytes: OPENFDA_MAX_PAGE_BYTES })).body;
      } catch (error) {
        if (isNotFound(error)) return; // no record in this slice (or none left past this skip)
        throw error;
      }
      const page = parseOpenFdaPage(body, url);
      total = page.meta.results?.total ?? skip + page.results.length;
      if (skip === 0 && total > OPENFDA_MAX_SKIP + OPENFDA_PAGE_LIMIT) {
        const days = Math.round((slice.to.getTime() - slice.from.getTime()) / DAY_MS);
        if (days < 1) {
          throw new UpstreamError(
            'too_large',
            `openFDA ${productPath}: ${total} records reported on ${yyyymmdd(slice.from)}, more than skip paging reaches`,
            { url },
          );
        }
        const mid = new Date(slice.from.getTime() + Math.floor(days / 2) * DAY_MS);
        yield* readSlice({ from: slice.from, to: mid });
        yield* readSlice({ from: new Date(mid.getTime() + DAY_MS), to: slice.to });
        return;
      }
      if (page.results.length === 0) return;
      yield { name: name(), body, url };
      skip += OPENFDA_PAGE_LIMIT;
    }
  }

  const lastYear = ctx.now.getUTCFullYear();
  for (let year = OPENFDA_FIRST_YEAR; year <= lastYear; year++) {
    yield* readSlice({ from: new Date(Date.UTC(year, 0, 1)), to: new Date(Date.UTC(year, 11, 31)) });
  }
}
