/**
 * Product Safety Australia (ACCC): consumer product recalls, from the site's recalls RSS feed and each
 * item's notice page.
 */
import { latestIso } from '../../../domain/dates.ts';
import { sha256 } from '../../../domain/sha256.ts';
import { UpstreamError } from '../../errors.ts';
import type { FetchContext, ParsedPage, RawPage, SourceAdapter, SourceMeta } from '../../source.ts';
import { acccDate } from './dates.ts';
import { itemId, normaliseItem } from './normalise.ts';
import { NOTICE_MAX_BYTES, readNoticePage, type NoticePage } from './notice-page.ts';
import { parseRecallFeed, type FeedItem } from './schema.ts';

/** The recalls feed (RSS 2.0, newest recalls only). */
export const ACCC_FEED_PATH = '/rss/feed.xml/psa_recall';

/** Largest feed read: the real one, about 100 items, is near 400 KB. */
export const FEED_MAX_BYTES = 16 * 2 ** 20;

/** Notice pages requested in one run at most (the feed holds about 100 items); the rest wait for the next run. */
export const MAX_NOTICE_REQUESTS = 150;

/**
 * Notice pages failing in a row after which the run asks for no more (the site is down, and each failure
 * can cost the client's retries and timeouts); the rest wait for the next run.
 */
export const MAX_FAILURES_IN_A_ROW = 5;

const meta: SourceMeta = {
  id: 'au-accc',
  agency: 'Australian Competition and Consumer Commission (Product Safety Australia)',
  jurisdiction: 'AU',
  licence: {
    id: 'CC-BY-4.0',
    url: 'https://www.productsafety.gov.au/about-us/using-our-website/disclaimer-and-copyright',
    attribution:
      'Source: Based on ACCC data (Product Safety Australia). ACCC © Commonwealth of Australia, CC BY 4.0.',
  },
  homepage: 'https://www.productsafety.gov.au/recalls',
  cadence: 'Recalls published most working days; the feed holds the newest ones only',
  cadenceHours: 24,
  defaultBaseUrl: 'https://www.productsafety.gov.au',
};

/** The recalls feed's address. */
export function acccFeedUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${ACCC_FEED_PATH}`;
}

/** Where an item's notice page is fetched: its link's path on the source's base address; null if no link. */
export function noticeUrl(baseUrl: string, link: string): string | null {
  if (!URL.canParse(link)) return null;
  const { protocol, pathname, search } = new URL(link);
  if (protocol !== 'http:' && protocol !== 'https:') return null;
  return `${baseUrl.replace(/\/+$/, '')}${pathname}${search}`;
}

/** A notice page's archive name: the item's own id, made file-safe. */
export function noticeName(item: FeedItem): string {
  return `notice-${itemId(item)
    .replace(/[^A-Za-z0-9-]+/g, '_')
    .slice(0, 100)}.html`;
}

/** What a feed entry says, as a digest: its notice page is fetched again only when this changes. */
function entryDigest(item: FeedItem): string {
  return sha256(JSON.stringify(item));
}

/** The feed, an empty channel refused: the answer of an unknown feed name is a valid channel with no items. */
function readFeed(body: Buffer, url?: string): ReturnType<typeof parseRecallFeed> {
  const feed = parseRecallFeed(body, url);
  if (feed.items.length === 0 && feed.setAside.length === 0) {
    throw new UpstreamError(
      'empty',
      'ACCC recalls feed has no items: the channel is empty (the site answers an unknown or withdrawn feed address so); nothing was changed',
      url === undefined ? {} : { url },
    );
  }
  return feed;
}

/**
 * The feed, then each item's notice page as its companion: requested when the feed entry is new or
 * changed since the last successful run, else the page archived then. A page that fails is reported;
 * its item keeps the page read before if there is one, else the feed's version.
 */
async function* fetchFeed(ctx: FetchContext): AsyncGenerator<RawPage> {
  const url = acccFeedUrl(ctx.baseUrl);
  const body = (await ctx.fetcher.get(url, { maxBytes: FEED_MAX_BYTES })).body;
  const feed = readFeed(body, url); // not the feed, or empty: fails here, before it is archived
  const companions: RawPage[] = [];
  const names = new Set<string>();
  const run = { requests: 0, failuresInARow: 0, stop: undefined as string | undefined };
  for (const item of feed.items) {
    const pageUrl = noticeUrl(ctx.baseUrl, item.link.trim());
    const name = noticeName(item);
    if (pageUrl === null) ctx.skipped?.(item.link, 'the link is not an http(s) address');
    if (pageUrl === null || names.has(name)) continue;
    const page = await noticePage(ctx, pageUrl, entryDigest(item), run);
    if (page !== undefined) {
      companions.push({ name, body: page, url: pageUrl });
      names.add(name);
    }
    if (run.requests >= MAX_NOTICE_REQUESTS)
      run.stop ??= `not asked: over the run's ${MAX_NOTICE_REQUESTS} notice page requests`;
    if (run.failuresInARow >= MAX_FAILURES_IN_A_ROW)
      run.stop ??= `not asked: ${MAX_FAILURES_IN_A_ROW} notice pages failed in a row`;
  }
  yield { name: 'feed.xml', body, url, companions };
}

/**
 * An item's notice page, read: requested, or the archived one when its entry is unchanged. When the
 * request fails or the page does not read, or requests have stopped (`run.stop`), the page read before
 * if there is one; every failure reported.
 */
async function noticePage(
  ctx: FetchContext,
  url: string,
  digest: string,
  run: { requests: number; failuresInARow: number; stop: string | undefined },
): Promise<Buffer | undefined> {
  const init = { maxBytes: NOTICE_MAX_BYTES, unchangedIf: digest, orArchived: true };
  try {
    let got = await ctx.fetcher.get(url, run.stop === undefined ? init : { ...init, offline: run.stop });
    if (run.stop === undefined && (got.status === 200 || got.failed !== undefined)) run.requests++;
    try {
      readNoticePage(got.body, url);
    } catch (error) {
      if (!(error instanceof UpstreamError) || got.failed !== undefined) throw error;
      got = await ctx.fetcher.get(url, { ...init, offline: error.message });
      readNoticePage(got.body, url);
    }
    // A failure answered from the archive: the page read before is kept, the failure reported.
    if (got.failed !== undefined) ctx.skipped?.(url, `${got.failed}; the page read before is kept`);
    run.failuresInARow = got.failed === undefined || run.stop !== undefined ? 0 : run.failuresInARow + 1;
    return got.body;
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    ctx.skipped?.(url, error.message);
    if (run.stop === undefined) run.failuresInARow++;
    return undefined;
  }
}

/** Each companion notice page read, by its name; one that does not read is left out (checked when fetched). */
function notices(page: RawPage): Map<string, NoticePage> {
  const out = new Map<string, NoticePage>();
  for (const c of page.companions ?? []) {
    try {
      out.set(c.name, readNoticePage(c.body, c.url));
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
    }
  }
  return out;
}

/** The ACCC adapter. */
export const auAccc: SourceAdapter = {
  meta,
  fetch: fetchFeed,
  acceptsFile: (name) => /\.xml$/i.test(name),
  parse(page: RawPage): ParsedPage {
    const feed = readFeed(page.body, page.url);
    const read = notices(page);
    const drafts = feed.items.map((item) => normaliseItem(item, read.get(noticeName(item))));
    // Its build date dates the feed, else its newest recall.
    const newest = latestIso(drafts.map((d) => d.published_date));
    return { dataAsOf: acccDate(feed.lastBuildDate) ?? newest, drafts, setAside: feed.setAside };
  },
};
