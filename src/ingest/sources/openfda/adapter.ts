/**
 * The openFDA enforcement adapter, shared by the food, drug and device feeds: they differ only
 * in their endpoint path and their SourceMeta.
 */
import type { ParsedPage, RawPage, SourceAdapter, SourceMeta } from '../../source.ts';
import { fetchOpenFdaEnforcement } from './fetch.ts';
import { normaliseOpenFdaRecord, type OpenFdaProductPath } from './normalise.ts';
import { parseOpenFdaPage } from './schema.ts';

/** `meta.last_updated` as an ISO date, or null when absent or not a date. */
function dataAsOf(lastUpdated: string | undefined): string | null {
  return lastUpdated !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(lastUpdated) ? lastUpdated : null;
}

export function createOpenFdaAdapter(meta: SourceMeta, productPath: OpenFdaProductPath): SourceAdapter {
  return {
    meta,
    fetch: (ctx) => fetchOpenFdaEnforcement(ctx, productPath),
    acceptsFile: (name) => name.toLowerCase().endsWith('.json'),
    parse(page: RawPage): ParsedPage {
      const parsed = parseOpenFdaPage(page.body, page.url);
      return {
        dataAsOf: dataAsOf(parsed.meta.last_updated),
        drafts: parsed.results.map((record) => normaliseOpenFdaRecord(record, productPath)),
      };
    },
  };
}
