/** U.S. Consumer Product Safety Commission recalls (saferproducts.gov Recall Retrieval web service). */
import type { ParsedPage, RawPage, SourceAdapter, SourceMeta } from '../../source.ts';
import { fetchCpscRecalls } from './fetch.ts';
import { normaliseCpscRecord } from './normalise.ts';
import { parseCpscPage } from './schema.ts';

const meta: SourceMeta = {
  id: 'us-cpsc',
  agency: 'U.S. Consumer Product Safety Commission',
  jurisdiction: 'US',
  licence: {
    id: 'US-PD',
    url: 'http://www.usa.gov/publicdomain/label/1.0/',
    attribution: 'Recall data from the U.S. Consumer Product Safety Commission (public domain)',
  },
  homepage: 'https://www.cpsc.gov/Recalls',
  cadence: 'Working days, as recalls are announced (most on Thursdays); polled daily',
  cadenceHours: 24,
  defaultBaseUrl: 'https://www.saferproducts.gov',
};

/** The CPSC adapter. */
export const usCpsc: SourceAdapter = {
  meta,
  fetch: fetchCpscRecalls,
  acceptsFile: (name) => name.toLowerCase().endsWith('.json'),
  parse(page: RawPage): ParsedPage {
    const { records, setAside } = parseCpscPage(page.body, page.url);
    const drafts = records.map(normaliseCpscRecord);
    // The newest publication date: CPSC sends no freshness stamp of its own.
    let dataAsOf: string | null = null;
    for (const d of drafts) {
      if (d.published_date !== null && (dataAsOf === null || d.published_date > dataAsOf)) {
        dataAsOf = d.published_date;
      }
    }
    return { dataAsOf, drafts, setAside };
  },
};
