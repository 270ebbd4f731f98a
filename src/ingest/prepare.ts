/** A page made ready for the store: parsed by its source's adapter, each draft prepared as rows. */
import { prepareRecall, type PreparedRecall } from '../store/recall-rows.ts';
import type { RawPage, SetAside, SourceAdapter } from './source.ts';

/** One page's records as the store writes them, with what the parse said of the page. */
export interface PreparedPage {
  /** The agency's freshness stamp on the page, if it carries one. */
  dataAsOf: string | null;
  /** Each draft of the page, in the page's order (a record the page repeats, repeated). */
  records: PreparedRecall[];
  setAside: SetAside[];
}

/** Parses a page and prepares its drafts. Pure: the same page gives the same rows on any thread. */
export function preparePage(adapter: SourceAdapter, page: RawPage): PreparedPage {
  const parsed = adapter.parse(page);
  const origin = { sourceId: adapter.meta.id, jurisdiction: adapter.meta.jurisdiction };
  return {
    dataAsOf: parsed.dataAsOf,
    records: parsed.drafts.map((d) => prepareRecall(origin, d)),
    setAside: parsed.setAside,
  };
}
