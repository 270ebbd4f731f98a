/**
 * RappelConso through the Opendatasoft Explore API v2.1 records endpoint, oldest first by
 * `date_publication`, in date windows: the API serves at most 100 records a request and none past
 * `offset + limit` = 10,000, so a full page moves the window's start to its last record's date
 * instead of paging on. Later runs start at the last success less a margin.
 */
import type { FetchContext, RawPage } from '../../source.ts';
import { windowStart } from '../../since-window.ts';
import { UpstreamError, formatError } from '../../errors.ts';
import { parseRappelConsoPage } from './schema.ts';

/** The dataset read, on data.economie.gouv.fr. */
export const RAPPELCONSO_DATASET = 'rappelconso-v2-gtin-espaces';
/** Records a request (the API's maximum). */
export const RAPPELCONSO_PAGE_LIMIT = 100;
/** The API serves no record past `offset + limit` = 10,000. */
export const RAPPELCONSO_OFFSET_CAP = 10_000;
/** Far above a first run (about 16,000 notices, 170 pages); guards against a server that ignores the window. */
export const RAPPELCONSO_MAX_PAGES = 1_000;

/** One request: the window's start (`date_publication >=`, or none), the offset in it, and the order. */
export interface RecordsQuery {
  from: string | null;
  offset: number;
  /** `newest`: the single newest notice, for a run whose window is empty. */
  newest?: boolean;
}

/** The address of one records request. */
export function rappelConsoUrl(baseUrl: string, query: RecordsQuery): string {
  const params = new URLSearchParams();
  if (query.newest) {
    params.set('order_by', 'date_publication desc,id desc');
    params.set('limit', '1');
  } else {
    if (query.from !== null) params.set('where', `date_publication >= date'${query.from}'`);
    params.set('order_by', 'date_publication asc,id asc');
    params.set('limit', String(RAPPELCONSO_PAGE_LIMIT));
    params.set('offset', String(query.offset));
  }
  const base = baseUrl.replace(/\/+$/, '');
  return `${base}/api/explore/v2.1/catalog/datasets/${RAPPELCONSO_DATASET}/records?${params.toString()}`;
}

/** `date_publication` of a served record, if it is a readable date-time. */
function publication(record: unknown): string | null {
  const v = (record as { date_publication?: unknown } | null)?.date_publication;
  return typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? v : null;
}

/**
 * The window after a full page: it starts at the page's last date and skips the records of that
 * date already read but one, so the next page repeats one record and is never empty while the
 * walk goes on; a walk ends on a page short of the limit, which holds the newest notices.
 */
export function nextWindow(query: RecordsQuery, page: readonly unknown[], url: string): RecordsQuery {
  const last = publication(page[page.length - 1]);
  if (last === null)
    throw formatError('RappelConso: the last record of a full page has no date_publication', url);
  const at = Date.parse(last);
  const sameDate = page.filter((r) => publication(r) !== null && Date.parse(publication(r)!) === at).length;
  const seen = query.from !== null && Date.parse(query.from) === at ? query.offset + sameDate : sameDate;
  const next = { from: last, offset: seen - 1 };
  if (next.offset + RAPPELCONSO_PAGE_LIMIT > RAPPELCONSO_OFFSET_CAP) {
    throw new UpstreamError(
      'too_large',
      `RappelConso: more than ${RAPPELCONSO_OFFSET_CAP - RAPPELCONSO_PAGE_LIMIT} notices share date_publication ${last}, past the API's paging cap`,
      { url },
    );
  }
  return next;
}

/** Yields each page as served, named `records-0001.json`, … in request order; at most `maxPages`. */
export async function* fetchRappelConso(
  ctx: FetchContext,
  maxPages = RAPPELCONSO_MAX_PAGES,
): AsyncGenerator<RawPage> {
  let pageNo = 0;
  const name = (): string => `records-${String(++pageNo).padStart(4, '0')}.json`;
  const get = async (query: RecordsQuery) => {
    const url = rappelConsoUrl(ctx.baseUrl, query);
    const { body } = await ctx.fetcher.get(url, { headers: { accept: 'application/json' } });
    return { url, body, served: parseRappelConsoPage(body, url).served };
  };

  let query: RecordsQuery = { from: ctx.since === null ? null : windowStart(ctx.since), offset: 0 };
  let previous: string | null = null;
  for (;;) {
    if (pageNo >= maxPages) {
      throw new UpstreamError('too_large', `RappelConso: more than ${maxPages} pages`, {
        url: rappelConsoUrl(ctx.baseUrl, query),
      });
    }
    const { url, body, served } = await get(query);
    if (served.length === 0 && pageNo === 0 && query.from !== null) {
      // A quiet window: the newest notice shows the feed as it is, rather than an empty run.
      const newest = await get({ from: null, offset: 0, newest: true });
      yield { name: name(), body: newest.body, url: newest.url };
      return;
    }
    const seen = JSON.stringify(served);
    if (seen === previous)
      throw formatError('RappelConso: paging does not advance (where or offset ignored?)', url);
    previous = seen;
    yield { name: name(), body, url };
    if (served.length < RAPPELCONSO_PAGE_LIMIT) return;
    query = nextWindow(query, served, url);
  }
}
