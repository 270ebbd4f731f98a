/**
 * Paging through the FSA Food Alerts API: `_limit`/`_offset`, newest first (`_sort=-created`),
 * with `_view=full` so each listed alert carries its problem, product and batch details (the
 * default view holds summary properties only; the documentation offers `_view=full` on every
 * list endpoint, which saves one request per alert). Paging stops at the first short page.
 *
 * A first run reads every alert. Later runs ask for the alerts changed since the last success
 * minus a margin (`since=`, documented as "alerts changed since some point in time"); when
 * nothing changed, they read the newest page instead, so a quiet day is an observation of the
 * newest alerts rather than an empty run (which the pipeline would count as a failure).
 */
import type { FetchContext, RawPage } from '../../source.ts';
import { UpstreamError, formatError } from '../../errors.ts';
import { parseFoodAlertPage } from './schema.ts';

export const FSA_PAGE_LIMIT = 100;
/** Far above the alerts published since 2018 at this page size; a guard against a server that ignores `_offset`. */
export const FSA_MAX_PAGES = 500;
export const SINCE_MARGIN_MS = 2 * 86_400_000;

/** The `since` value: an ISO date-time in UTC, without fractions of a second. */
export function fsaSince(since: Date): string {
  return `${new Date(since.getTime() - SINCE_MARGIN_MS).toISOString().slice(0, 19)}Z`;
}

/** The address of one list page. */
export function fsaListUrl(baseUrl: string, offset: number, since: string | null): string {
  const base = baseUrl.replace(/\/+$/, '');
  const filter = since === null ? '' : `&since=${since}`;
  return `${base}/food-alerts/id?_limit=${FSA_PAGE_LIMIT}&_offset=${offset}&_sort=-created&_view=full${filter}`;
}

/** Fetches the pages, yielding each body as served, named `page-0001.json`, … in request order. */
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
      // Alerts set aside still count as served, for paging.
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
  for await (const page of walk(fsaSince(ctx.since))) {
    changed++;
    yield page;
  }
  if (changed > 0) return;
  // Nothing changed: observe the newest alerts (one page) instead.
  const url = fsaListUrl(ctx.baseUrl, 0, null);
  const body = (await ctx.fetcher.get(url)).body;
  const newest = parseFoodAlertPage(body, url);
  if (newest.items.length + newest.setAside.length > 0) yield { name: name(), body, url };
}
