/**
 * FSA Food Alerts API pages, newest first, `_view=full` (details in the list, no request per alert).
 * Later runs ask `since=` the last success less a margin; when nothing changed they read the newest
 * page instead, so a quiet day observes the feed rather than failing as an empty run.
 */
import type { FetchContext, RawPage } from '../../source.ts';
import { windowStart } from '../../since-window.ts';
import { UpstreamError, formatError } from '../../errors.ts';
import { parseFoodAlertPage } from './schema.ts';

/** Alerts per page. */
export const FSA_PAGE_LIMIT = 100;
/** Far above all alerts since 2018; guards against a server that ignores `_offset`. */
export const FSA_MAX_PAGES = 500;

/** The address of one list page. */
export function fsaListUrl(baseUrl: string, offset: number, since: string | null): string {
  const base = baseUrl.replace(/\/+$/, '');
  const filter = since === null ? '' : `&since=${since}`;
  return `${base}/food-alerts/id?_limit=${FSA_PAGE_LIMIT}&_offset=${offset}&_sort=-created&_view=full${filter}`;
}

/** Yields each page as served, named `page-0001.json`, … in request order. */
export async function* fetchFoodAlerts(ctx: FetchContext): AsyncGenerator<RawPage> {
  let pageNo = 0;
  const name = (): string => `page-${String(++pageNo).padStart(4, '0')}.json`;

  async function* walk(since: string | null): AsyncGenerator<RawPage> {
    let previous: string | null = null;
    for (let page = 0; ; page++) {
      if (page >= FSA_MAX_PAGES) {
        throw new UpstreamError('too_large', `FSA food alerts: more than ${FSA_MAX_PAGES} pages`, {
          url: fsaListUrl(ctx.baseUrl, page * FSA_PAGE_LIMIT, since),
        });
      }
      const url = fsaListUrl(ctx.baseUrl, page * FSA_PAGE_LIMIT, since);
      const body = (await ctx.fetcher.get(url)).body;
      const { items, setAside } = parseFoodAlertPage(body, url);
      // Set-aside alerts still count as served, for paging.
      const served = items.length + setAside.length;
      if (served === 0) return;
      const notations = [...items.map((i) => i.notation), ...setAside.map((s) => s.record)].join('\n');
      if (notations === previous)
        throw formatError('FSA food alerts: paging does not advance (_offset ignored?)', url);
      previous = notations;
      yield { name: name(), body, url };
      if (served < FSA_PAGE_LIMIT) return;
    }
  }

  if (ctx.since === null) {
    yield* walk(null);
    return;
  }
  let changed = 0;
  for await (const page of walk(windowStart(ctx.since))) {
    changed++;
    yield page;
  }
  if (changed > 0) return;
  const url = fsaListUrl(ctx.baseUrl, 0, null);
  const body = (await ctx.fetcher.get(url)).body;
  const newest = parseFoodAlertPage(body, url);
  if (newest.items.length + newest.setAside.length > 0) yield { name: name(), body, url };
}
