/** USDA FSIS meat, poultry and egg product recalls and public health alerts (`/fsis/api/recall/v/1`). */
import type { ParsedPage, RawPage, SourceAdapter, SourceMeta } from '../../source.ts';
import { fetchFsisRecalls } from './fetch.ts';
import { fsisDataAsOf, normaliseFsisRecord, selectFsisRecords } from './normalise.ts';
import { parseFsisPage } from './schema.ts';

const meta: SourceMeta = {
  id: 'us-fsis',
  agency: 'USDA Food Safety and Inspection Service',
  jurisdiction: 'US',
  licence: {
    id: 'US-PD',
    url: 'http://www.usa.gov/publicdomain/label/1.0/',
    attribution:
      'Recall data from the USDA Food Safety and Inspection Service (U.S. government work, public domain); not endorsed by USDA.',
  },
  homepage: 'https://www.fsis.usda.gov/recalls',
  cadence: 'As recalls and public health alerts are issued (a few a week); the full dataset is read daily',
  cadenceHours: 24,
  defaultBaseUrl: 'https://www.fsis.usda.gov',
};

/** The FSIS adapter. */
export const usFsis: SourceAdapter = {
  meta,
  fetch: (ctx) => fetchFsisRecalls(ctx),
  acceptsFile: (name) => name.toLowerCase().endsWith('.json'),
  parse(page: RawPage): ParsedPage {
    const { records, setAside } = parseFsisPage(page.body, page.url);
    return {
      dataAsOf: fsisDataAsOf(records),
      drafts: selectFsisRecords(records).map(normaliseFsisRecord),
      setAside,
    };
  },
};
