/** EU Safety Gate (ex-RAPEX): alerts on dangerous non-food products, from the public site's JSON API. */
import type { ParsedPage, RawPage, SourceAdapter, SourceMeta } from '../../source.ts';
import { fetchSafetyGate } from './fetch.ts';
import { normaliseNotification } from './normalise.ts';
import { parseSafetyGatePage } from './schema.ts';

const meta: SourceMeta = {
  id: 'eu-safety-gate',
  agency: 'European Commission – Safety Gate',
  jurisdiction: 'EU',
  licence: {
    id: 'EU-Decision-2011/833',
    url: 'https://eur-lex.europa.eu/eli/dec/2011/833/oj',
    attribution: '© European Union, Safety Gate (https://ec.europa.eu/safety-gate)',
  },
  homepage: 'https://ec.europa.eu/safety-gate-alerts/screen/webReport',
  cadence: 'as published, most working days',
  cadenceHours: 24,
  defaultBaseUrl: 'https://ec.europa.eu',
};

/** The Safety Gate adapter. */
export const euSafetyGate: SourceAdapter = {
  meta,
  fetch: (ctx) => fetchSafetyGate(ctx),
  acceptsFile: (name) => /\.json$/i.test(name),
  parse(page: RawPage): ParsedPage {
    const doc = parseSafetyGatePage(page.body, page.name, page.url);
    if (doc.kind === 'list') {
      // The list dates the feed; a notification's own dates say when it changed, not how fresh the feed is.
      return { dataAsOf: doc.list.newest, drafts: [], setAside: doc.list.setAside };
    }
    if (doc.kind === 'set-aside') return { dataAsOf: null, drafts: [], setAside: [doc.setAside] };
    return { dataAsOf: null, drafts: [normaliseNotification(doc.notification)], setAside: [] };
  },
};
