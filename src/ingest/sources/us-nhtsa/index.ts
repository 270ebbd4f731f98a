/** NHTSA vehicle, equipment, tire and child-seat recall campaigns, from the FLAT_RCL flat file. */
import type { ParsedPage, RawPage, SetAside, SourceAdapter, SourceMeta } from '../../source.ts';
import { fetchFlatRcl } from './fetch.ts';
import { CampaignMerger } from './normalise.ts';
import { flatRclText, forEachFlatRclRow } from './parse.ts';

const meta: SourceMeta = {
  id: 'us-nhtsa',
  agency: 'National Highway Traffic Safety Administration',
  jurisdiction: 'US',
  licence: {
    id: 'US-PD',
    url: 'https://www.usa.gov/government-works',
    attribution: 'Data from the National Highway Traffic Safety Administration (public domain).',
  },
  homepage: 'https://www.nhtsa.gov/nhtsa-datasets-and-apis',
  cadence: 'Daily: the flat file is rebuilt every morning (about 07:00 UTC); new campaigns on working days',
  cadenceHours: 24,
  defaultBaseUrl: 'https://static.nhtsa.gov',
};

/** Parses one page: the FLAT_RCL zip or its text file, every readable row merged into its campaign. */
export function parseFlatRclPage(page: RawPage): ParsedPage {
  const merger = new CampaignMerger();
  const setAside: SetAside[] = [];
  forEachFlatRclRow(
    flatRclText(page.body, page.url),
    (row) => merger.add(row),
    page.url,
    (row) => setAside.push(row),
  );
  return { dataAsOf: merger.dataAsOf(), drafts: merger.drafts(), setAside };
}

export const usNhtsa: SourceAdapter = {
  meta,
  fetch: fetchFlatRcl,
  acceptsFile: (name) => /\.(?:zip|txt)$/i.test(name),
  parse: parseFlatRclPage,
};
