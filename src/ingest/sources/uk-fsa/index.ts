/** UK Food Standards Agency food alerts (allergy alerts, recall notices, alerts for action). */
import type { ParsedPage, RawPage, SourceAdapter, SourceMeta } from '../../source.ts';
import { fetchFoodAlerts } from './fetch.ts';
import { normaliseFoodAlert } from './normalise.ts';
import { parseFoodAlertPage, type FoodAlert } from './schema.ts';

const meta: SourceMeta = {
  id: 'uk-fsa',
  agency: 'Food Standards Agency',
  jurisdiction: 'GB',
  licence: {
    id: 'OGL-UK-3.0',
    url: 'https://www.nationalarchives.gov.uk/doc/open-government-licence/version/3/',
    attribution: 'Contains public sector information licensed under the Open Government Licence v3.0.',
  },
  homepage: 'https://data.food.gov.uk/food-alerts/ui/reference',
  cadence: 'Several alerts a week, published as issued',
  cadenceHours: 24,
  defaultBaseUrl: 'https://data.food.gov.uk',
};

/** The newest change among a page's alerts (ISO date-time or date), or null. */
function newestChange(items: readonly FoodAlert[]): string | null {
  let best: { at: number; stamp: string } | null = null;
  for (const item of items) {
    for (const stamp of [item.modified, item.created]) {
      const at = stamp ? Date.parse(stamp) : NaN;
      if (!Number.isNaN(at) && (best === null || at > best.at)) best = { at, stamp: stamp! };
    }
  }
  return best?.stamp ?? null;
}

/** The FSA adapter. */
export const ukFsa: SourceAdapter = {
  meta,
  fetch: (ctx) => fetchFoodAlerts(ctx),
  acceptsFile: (name) => /\.json$/i.test(name),
  parse(page: RawPage): ParsedPage {
    const { items, setAside } = parseFoodAlertPage(page.body, page.url);
    // Only the first page (newest first) dates the feed; older pages give no stamp.
    const first = /^page-0*1\.json$/i.test(page.name);
    return { dataAsOf: first ? newestChange(items) : null, drafts: items.map(normaliseFoodAlert), setAside };
  },
};
