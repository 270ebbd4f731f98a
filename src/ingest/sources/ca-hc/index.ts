/** Health Canada Recalls and Safety Alerts: the daily open-data dump (English). */
import type { ParsedPage, RawPage, SourceAdapter, SourceMeta } from '../../source.ts';
import { fetchHcDump } from './fetch.ts';
import { hcDataAsOf, normaliseHcRow, selectHcRows } from './normalise.ts';
import { parseHcDump } from './schema.ts';

const meta: SourceMeta = {
  id: 'ca-hc',
  agency: 'Health Canada',
  jurisdiction: 'CA',
  licence: {
    id: 'OGL-Canada-2.0',
    url: 'https://open.canada.ca/en/open-government-licence-canada',
    attribution: 'Contains information licensed under the Open Government Licence – Canada.',
  },
  homepage: 'https://recalls-rappels.canada.ca',
  cadence: 'daily',
  cadenceHours: 24,
  defaultBaseUrl: 'https://recalls-rappels.canada.ca',
};

/** The Health Canada adapter. */
export const caHc: SourceAdapter = {
  meta,
  fetch: (ctx) => fetchHcDump(ctx),
  acceptsFile: (name) => name.toLowerCase().endsWith('.json'),
  parse(page: RawPage): ParsedPage {
    const { records, setAside } = parseHcDump(page.body, page.url);
    return { dataAsOf: hcDataAsOf(records), drafts: selectHcRows(records).map(normaliseHcRow), setAside };
  },
};
