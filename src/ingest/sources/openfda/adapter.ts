/** The openFDA enforcement adapter; food, drug and device differ only in path and SourceMeta. */
import type { ParsedPage, RawPage, SourceAdapter, SourceMeta } from '../../source.ts';
import { fetchOpenFdaEnforcement } from './fetch.ts';
import { normaliseOpenFdaRecord, type OpenFdaProductPath } from './normalise.ts';
import { parseOpenFdaPage } from './schema.ts';

/** `meta.last_updated` as an ISO date, or null when absent or not a date. */
function dataAsOf(lastUpdated: string | undefined): string | null {
  return lastUpdated !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(lastUpdated) ? lastUpdated : null;
}

/** What the three openFDA enforcement feeds share: agency, licence, cadence, address. */
function openFdaMeta(id: string, productPath: OpenFdaProductPath): SourceMeta {
  return {
    id,
    agency: 'U.S. Food and Drug Administration',
    jurisdiction: 'US',
    licence: {
      id: 'CC0-1.0',
      url: 'https://open.fda.gov/license/',
      attribution:
        'Data from openFDA, U.S. Food and Drug Administration (public domain); not endorsed by FDA.',
    },
    homepage: `https://open.fda.gov/apis/${productPath}/enforcement/`,
    cadence: 'Weekly, following the FDA Enforcement Report (Wednesdays)',
    cadenceHours: 168,
    defaultBaseUrl: 'https://api.fda.gov',
  };
}

/** The adapter of one openFDA enforcement feed (`/<productPath>/enforcement.json`). */
export function createOpenFdaAdapter(id: string, productPath: OpenFdaProductPath): SourceAdapter {
  return {
    meta: openFdaMeta(id, productPath),
    fetch: (ctx) => fetchOpenFdaEnforcement(ctx, productPath),
    acceptsFile: (name) => name.toLowerCase().endsWith('.json'),
    parse(page: RawPage): ParsedPage {
      const parsed = parseOpenFdaPage(page.body, page.url);
      return {
        dataAsOf: dataAsOf(parsed.meta.last_updated),
        drafts: parsed.results.map((record) => normaliseOpenFdaRecord(record, productPath)),
        setAside: parsed.setAside,
      };
    },
  };
}
