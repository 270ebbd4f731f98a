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

/** A parsed page whose drafts are prepared a part of PREPARED_PART at a time, as `parts` is read. */
export interface PageInParts {
  dataAsOf: string | null;
  setAside: SetAside[];
  /** How many parts `parts` yields: at least one, an empty one for a page of no record. */
  count: number;
  parts: Generator<PreparedRecall[]>;
}

/** Parses a page; its drafts are prepared part by part as they are read (calling thread and worker alike). */
export function parseInParts(adapter: SourceAdapter, page: RawPage): PageInParts {
  const { drafts, dataAsOf, setAside } = adapter.parse(page);
  const origin = { sourceId: adapter.meta.id, jurisdiction: adapter.meta.jurisdiction };
  const count = Math.max(1, Math.ceil(drafts.length / PREPARED_PART));
  function* parts(): Generator<PreparedRecall[]> {
    for (let from = 0; from === 0 || from < drafts.length; from += PREPARED_PART)
      yield drafts.slice(from, from + PREPARED_PART).map((d) => prepareRecall(origin, d));
  }
  return { dataAsOf, setAside, count, parts: parts() };
}

/**
 * Parses a page and prepares its first PREPARED_PART drafts; the rest, if any, are prepared a part at a time
 * as `more` is read, so that a large page's rows are never all held.
 */
export function preparePageInParts(adapter: SourceAdapter, page: RawPage): PreparedPage {
  const { dataAsOf, setAside, count, parts } = parseInParts(adapter, page);
  const prepared: PreparedPage = { dataAsOf, records: parts.next().value!, setAside };
  if (count > 1) {
    prepared.more = (async function* () {
      yield* parts;
    })();
  }
  return prepared;
}
