/** What every agency adapter provides: fetch yields pages as served; parse is pure, so archives replay. */
import type { RecallDraft } from '../domain/recall.ts';

/** Static facts about a source feed, served by /v1/sources and /v1/health. */
export interface SourceMeta {
  id: string;
  agency: string;
  /** ISO 3166-1 alpha-2, or `EU`. */
  jurisdiction: string;
  licence: { id: string; url: string; attribution: string };
  homepage: string;
  /** Observed update cadence, in words. */
  cadence: string;
  /** How often the source is expected to change, in hours; twice this is "stale". */
  cadenceHours: number;
  /** The agency's base address; `RECALLS_SOURCE_<ID>_URL` overrides it. */
  defaultBaseUrl: string;
}

/** One response body as the agency served it (or one file of an offline mirror). */
export interface RawPage {
  /** Stable name within the run; the archive file name (`page-0001.json`). */
  name: string;
  body: Buffer;
  url?: string;
  /**
   * Further bodies the agency served for this page's records (an ACCC notice page per feed item), each
   * archived as served beside the page and given to `parse` with it. Offline mirrors have none.
   */
  companions?: RawPage[];
}

/** A record of a page that could not be read: left out of the run, with the reason. */
export interface SetAside {
  /** Its place on the page and, when readable, the agency's record id. */
  record: string;
  reason: string;
}

/** The result of parsing one page. */
export interface ParsedPage {
  /** The agency's own freshness stamp (ISO date or date-time), if the page carries one. */
  dataAsOf: string | null;
  drafts: RecallDraft[];
  setAside: SetAside[];
}

/** Per-call options of {@link PageFetcher.get}. */
export interface PageGetInit {
  headers?: Record<string, string>;
  /** A cap on this page's body below the client's global one, for feeds with small pages. */
  maxBytes?: number;
  /** A query sent as a POST body (a search API's paging); such a page is never fetched conditionally. */
  post?: { body: string; contentType: string };
  /**
   * What the caller knows of the page's content (for an ACCC notice page, a digest of the feed entry that
   * links it). When the last successful run archived this address under the same value, the archived body
   * is returned (status 304) without a request.
   */
  unchangedIf?: string;
  /**
   * When the request fails, the body the last successful run archived for this address (status 304,
   * `failed` giving the failure) rather than the failure; the next run asks again.
   */
  orArchived?: boolean;
  /**
   * Make no request (the reason why): only a body archived under the same `unchangedIf`, or with
   * `orArchived` the last one archived; else an UpstreamError giving the reason.
   */
  offline?: string;
}

/** A GET (or a query POST) against an agency; the caller applies timeouts, retries and caps. */
export interface PageFetcher {
  /** Returns the body; on 304 the previously archived body. Throws UpstreamError after retries. */
  get(url: string, init?: PageGetInit): Promise<{ status: number; body: Buffer; failed?: string }>;
}

/** Everything an adapter's fetch may use. */
export interface FetchContext {
  baseUrl: string;
  fetcher: PageFetcher;
  /** The run's clock reading, for date-sliced paging. */
  now: Date;
  /** Last success (null on first run or forced rebuild): incremental feeds fetch from here, less a margin. */
  since: Date | null;
  /**
   * Reports a page the run goes on without (a notice page that failed to fetch or read, its record kept
   * as the feed gives it): named in the run's outcome; the next run asks for it again.
   */
  skipped?(url: string, reason: string): void;
}

/** One agency feed: its facts, how to fetch it, and how to parse its pages. */
export interface SourceAdapter {
  meta: SourceMeta;
  /** Fetches the whole feed, yielding each page as served. Throws UpstreamError on failures. */
  fetch(ctx: FetchContext): AsyncIterable<RawPage>;
  /** Whether an offline-mirror file (`DIR/<source-id>/<name>`) is a page of this feed. */
  acceptsFile(name: string): boolean;
  /** Pure. Unreadable records are set aside; throws UpstreamError('format') for an unknown page shape. */
  parse(page: RawPage): ParsedPage;
}
