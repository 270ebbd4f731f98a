/**
 * Safety Gate's public JSON API: the list of most recent notifications, page by page, then the
 * detail of each one listed as modified since the last success (less a margin). Everything this
 * adapter assumes about the API's addresses and requests is in {@link SAFETY_GATE_API}.
 */
import type { FetchContext, PageGetInit, RawPage } from '../../source.ts';
import { SINCE_MARGIN_MS } from '../../since-window.ts';
import { parseNotificationList, type ListedNotification } from './schema.ts';

/**
 * The API as the public site calls it (third-party scripts; the Commission documents none): the
 * list is a POST of `{"language":"en","page":"<n>"}` answering a Spring page (`content`,
 * `totalPages`, `last`); a detail is a GET of the notification's numeric id.
 */
export const SAFETY_GATE_API = {
  listPath: '/safety-gate-alerts/public/api/notification/mostRecent/',
  listQuery: (page: number): string => JSON.stringify({ language: 'en', page: String(page) }),
  detailPath: (id: string): string =>
    `/safety-gate-alerts/public/api/notification/${encodeURIComponent(id)}?language=en`,
} as const;

/** List pages read in one run at most (the list said 363 notifications in July 2026). */
export const MAX_LIST_PAGES = 100;

/** Largest list page or notification accepted: a notification is ~15 KB, a page of them far less than this. */
export const MAX_PAGE_BYTES = 8 * 2 ** 20;

const JSON_ACCEPT = { accept: 'application/json' };

/**
 * The notifications to read, in list order, each id once: all on a first run; later, those modified
 * since `since` − margin, any whose modification date the list does not give, and always the
 * first listed, so that a quiet day is not an empty run.
 */
export function selectNotifications(
  listed: readonly ListedNotification[],
  since: Date | null,
): ListedNotification[] {
  const byId = new Map<string, ListedNotification>();
  for (const n of listed) if (!byId.has(n.id)) byId.set(n.id, n);
  const all = [...byId.values()];
  if (since === null) return all;
  const from = new Date(since.getTime() - SINCE_MARGIN_MS).toISOString();
  return all.filter((n, i) => i === 0 || n.modificationDate === null || n.modificationDate >= from);
}

/** Yields the list pages (`list-page-0000.json` …) and then the selected notifications (`notification-<id>.json`). */
export async function* fetchSafetyGate(ctx: FetchContext): AsyncGenerator<RawPage> {
  const base = ctx.baseUrl.replace(/\/+$/, '');
  const listUrl = `${base}${SAFETY_GATE_API.listPath}`;
  const listed: ListedNotification[] = [];
  const seen = new Set<string>();
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const init: PageGetInit = {
      headers: JSON_ACCEPT,
      maxBytes: MAX_PAGE_BYTES,
      post: { body: SAFETY_GATE_API.listQuery(page), contentType: 'application/json' },
    };
    const { body } = await ctx.fetcher.get(listUrl, init);
    const list = parseNotificationList(body, listUrl);
    yield { name: `list-page-${String(page).padStart(4, '0')}.json`, body, url: listUrl };
    const fresh = list.notifications.filter((n) => !seen.has(n.id));
    for (const n of fresh) seen.add(n.id);
    listed.push(...fresh);
    // A page of ids already seen means the page number is ignored: reading on would loop.
    if (list.entries === 0 || fresh.length === 0 || list.last === true) break;
    if (list.totalPages !== null && page + 1 >= list.totalPages) break;
  }
  for (const n of selectNotifications(listed, ctx.since)) {
    const url = `${base}${SAFETY_GATE_API.detailPath(n.id)}`;
    const { body } = await ctx.fetcher.get(url, { headers: JSON_ACCEPT, maxBytes: MAX_PAGE_BYTES });
    yield { name: `notification-${n.id}.json`, body, url };
  }
}
