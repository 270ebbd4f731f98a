/** EU Safety Gate (ex-RAPEX): the weekly report XML of alerts on dangerous non-food products. */
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
  cadence: 'Weekly report, published on Fridays',
  cadenceHours: 168,
  defaultBaseUrl: 'https://ec.europa.eu',
};

/** The Safety Gate adapter. */
export const euSafetyGate: SourceAdapter = {
  meta,
  fetch: (ctx) => fetchSafetyGate(ctx),
  acceptsFile: (name) => /\.xml$/i.test(name),
  parse(page: RawPage): ParsedPage {
    const doc = parseSafetyGatePage(page.body, page.url);
    if (doc.kind === 'list') {
      // The list's newest report dates the feed; reports carry no stamp of their own.
      const newest = doc.reports.reduce<string | null>(
        (max, r) => (max === null || r.publicationDate > max ? r.publicationDate : max),
        null,
      );
      return { dataAsOf: newest, drafts: [], setAside: [] };
    }
    const { reportDate, notifications, setAside } = doc.report;
    return {
      dataAsOf: null,
      drafts: notifications.map((n) => normaliseNotification(n, reportDate)),
      setAside,
    };
  },
};
