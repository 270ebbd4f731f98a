/** Product Safety Australia (ACCC): consumer product recalls, from the site's recalls RSS feed. */
import type { FetchContext, ParsedPage, RawPage, SourceAdapter, SourceMeta } from '../../source.ts';
import { acccDate, normaliseFeedItem } from './normalise.ts';
import { parseRecallFeed } from './schema.ts';

/** The recalls feed (RSS 2.0, newest recalls only). */
export const ACCC_FEED_PATH = '/rss/feed.xml/psa_recall';

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

async function* fetchFeed(ctx: FetchContext): AsyncGenerator<RawPage> {
  const url = acccFeedUrl(ctx.baseUrl);
  const body = (await ctx.fetcher.get(url)).body;
  parseRecallFeed(body, url); // not the feed: fails here, before it is archived
  yield { name: 'feed.xml', body, url };
}

/** The ACCC adapter. */
export const auAccc: SourceAdapter = {
  meta,
  fetch: fetchFeed,
  acceptsFile: (name) => /\.xml$/i.test(name),
  parse(page: RawPage): ParsedPage {
    const feed = parseRecallFeed(page.body, page.url);
    const drafts = feed.items.map(normaliseFeedItem);
    // Its build date dates the feed, else its newest recall.
    const newest = drafts.reduce<string | null>(
      (max, d) =>
        d.published_date !== null && (max === null || d.published_date > max) ? d.published_date : max,
      null,
    );
    return { dataAsOf: acccDate(feed.lastBuildDate) ?? newest, drafts, setAside: feed.setAside };
  },
};
