/** A page made ready for the store: parsed by its source's adapter, each draft prepared as rows. */
import { prepareRecall, type PreparedRecall } from '../store/recall-rows.ts';
import type { RawPage, SetAside, SourceAdapter } from './source.ts';

/** Records of a page prepared and sent on at once, at most: a larger page's rows follow in parts this size. */
export const PREPARED_PART = 1000;

/** One page's records as the store writes them, with what the parse said of the page. */
export interface PreparedPage {
  /** The agency's freshness stamp on the page, if it carries one. */
  dataAsOf: string | null;
  /** Each draft of the page, in the page's order (a record the page repeats, repeated). */
  records: PreparedRecall[];
  setAside: SetAside[];
  /**
   * The rest of a page of more than PREPARED_PART records, in parts, each prepared as the consumer takes the
   * one before (worker.ts): the page's rows are never all held at once. Absent when `records` is the page.
   */
  more?: AsyncIterable<PreparedRecall[]>;
}

/**
 * Parses a page and prepares its first PREPARED_PART drafts; the rest, if any, are prepared a part at a time
 * as `more` is read, so that a large page's rows are never all held.
 */
export function preparePageInParts(adapter: SourceAdapter, page: RawPage): PreparedPage {
  const parsed = adapter.parse(page);
  const origin = { sourceId: adapter.meta.id, jurisdiction: adapter.meta.jurisdiction };
  const part = (from: number) =>
    parsed.drafts.slice(from, from + PREPARED_PART).map((d) => prepareRecall(origin, d));
  const prepared: PreparedPage = { dataAsOf: parsed.dataAsOf, records: part(0), setAside: parsed.setAside };
  if (parsed.drafts.length > PREPARED_PART) {
    prepared.more = (async function* () {
      for (let from = PREPARED_PART; from < parsed.drafts.length; from += PREPARED_PART) yield part(from);
    })();
  }
  return prepared;
}
