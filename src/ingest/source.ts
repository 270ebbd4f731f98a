/**
 * What every agency adapter provides. Fetching yields raw pages exactly as served; parsing is
 * pure (no I/O, no clock), so archived pages can be replayed and real records tested offline.
 */
import type { RecallDraft } from '../domain/recall.ts';

/** Static facts about a source feed, served by /v1/sources and /v1/health. */
export interface SourceMeta {
  /** Source feed id, e.g. `us-fda-food`. */
  id: string;
  agency: string;
  /** Jurisdiction code as published (ISO 3166-1 alpha-2 or `EU`). */
  jurisdiction: string;
  licence: { id: string; url: string; attribution: string };
  homepage: string;
  /** Free-text observed update cadence, for people. */
  cadence: string;
  /** How often the source is expected to change, in hours; twice this is "stale". */
  cadenceHours: number;
  /** The agency's base address; `RECALLS_SOURCE_<ID>_URL` overrides it. */
  defaultBaseUrl: string;
}

/** One response body as the agency served it (or one file of an offline mirror). */
export interface RawPage {
  /** A stable name for the page within its run, used as its archive file name (`page-0001.json`). */
  name: string;
  body: Buffer;
  /** The address it was fetched from, when fetched. */
  url?: string;
}

/** A record of a page that could not be read: left out of the run, with the reason. */
export interface SetAside {
  /** Where it was: its place on the page and, when it could be read, the agency's record id. */
  record: string;
  reason: string;
}

/** The result of parsing one page. */
export interface ParsedPage {
  /** The agency's own freshness stamp for this page (ISO date or date-time), if it carries one. */
  dataAsOf: string | null;
  drafts: RecallDraft[];
  /** Records of the page that could not be read; the rest of the page is read without them. */
  setAside: SetAside[];
}

/** Per-call options of {@link PageFetcher.get}. */
export interface PageGetInit {
  headers?: Record<string, string>;
  /** A cap on this page's body below the client's global one, for feeds with small pages. */
  maxBytes?: number;
}

/** A GET against an agency, with the policy (timeouts, retries, caps) applied by the caller. */
export interface PageFetcher {
  /**
   * Fetches one address and returns its body. Conditional GET is applied behind this call: when
   * the agency answers 304, the body archived from the previous run is returned.
   * Throws UpstreamError on any agency-side failure (after retries).
   */
  get(url: string, init?: PageGetInit): Promise<{ status: number; body: Buffer }>;
}

/** Everything an adapter's fetch may use. */
export interface FetchContext {
  /** Base address of the feed (the default or its override). */
  baseUrl: string;
  fetcher: PageFetcher;
  /** The run's clock reading, for date-sliced paging. */
  now: Date;
  /**
   * When this source last succeeded (null on its first run, or when forced to rebuild from
   * scratch): incremental feeds fetch what changed since then, with a safety margin.
   */
  since: Date | null;
}

export interface SourceAdapter {
  meta: SourceMeta;
  /** Fetches the whole feed, yielding each page as served. Throws UpstreamError on failures. */
  fetch(ctx: FetchContext): AsyncIterable<RawPage>;
  /** Whether a file of an offline mirror folder (`DIR/<source-id>/<name>`) is a page of this feed. */
  acceptsFile(name: string): boolean;
  /**
   * Parses one page into drafts. Pure. A record that cannot be read is set aside with its
   * reason; throws UpstreamError('format') when the page itself does not have a known shape.
   */
  parse(page: RawPage): ParsedPage;
}
