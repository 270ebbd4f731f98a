/** The upstream client's public shapes: policy, GET in and out, retry report. */
import type { UpstreamError } from '../errors.ts';

/** Policy for an upstream client. Every field is optional; the defaults are listed per field. */
export interface UpstreamClientOptions {
  /** Budget per attempt (request to last body byte), ms, fresh per retry. Default 60000. */
  timeoutMs?: number;
  /** Longest silence before headers (incl. connecting) or between body chunks, ms. Default 30000. */
  idleTimeoutMs?: number;
  /** Retries after the first attempt (so `retries + 1` attempts at most). Default 3. */
  retries?: number;
  /** Base of the exponential backoff, in ms: retry n waits up to `base * 2^n`. Default 1000. */
  backoffBaseMs?: number;
  /** Ceiling of one backoff wait, in ms, also capping a Retry-After header. Default 30000. */
  backoffMaxMs?: number;
  /** Largest accepted (decoded) body, in bytes. Default 200 MiB. */
  maxBytes?: number;
  /** Redirects followed per attempt; one more, or a loop, is 'redirect_loop'. Default 5. */
  maxRedirects?: number;
  /** The User-Agent header. Default: a browser-like string naming this service (`DEFAULT_USER_AGENT`). */
  userAgent?: string;
  /** Waits between retries; injected by tests. Default: a real timer. */
  sleep?: (ms: number) => Promise<void>;
  /** Uniform random number in [0, 1) for the jitter; injected by tests. Default Math.random. */
  random?: () => number;
  /** Called before each backoff wait, e.g. to log; must not throw. */
  onRetry?: (info: RetryInfo) => void;
}

/** What is about to be retried and after how long. */
export interface RetryInfo {
  url: string;
  /** 1-based. */
  retry: number;
  delayMs: number;
  error: UpstreamError;
}

/** Per-call options of {@link UpstreamClient.get}. */
export interface UpstreamGetInit {
  /** Extra request headers (e.g. `accept`, an API key header). */
  headers?: Record<string, string>;
  /** Validator from a previous 200: sent as If-None-Match. */
  etag?: string;
  /** Validator from a previous 200: sent as If-Modified-Since. */
  lastModified?: string;
  /** A cap for this call's body below the client's `maxBytes` (the lower of the two applies). */
  maxBytes?: number;
  /** A query in the request body: the page is asked for with POST (see {@link UpstreamPost}). */
  post?: UpstreamPost;
}

/**
 * A query sent as a POST body, for a search API that takes its paging in the body. It is retried
 * like a GET (the query changes nothing at the agency), never sent with validators, and a 301, 302
 * or 303 turns it into a GET without the body, as browsers do.
 */
export interface UpstreamPost {
  body: string;
  /** The Content-Type header, e.g. `application/json`. */
  contentType: string;
}

/** A successful answer. */
export interface UpstreamResponse {
  /** 200 for a body (any 2xx is reported as 200); 304 when a conditional GET found no change. */
  status: 200 | 304;
  url: string;
  /** The decoded body; empty on 304. */
  body: Buffer;
  /** ETag of the answer (on 304, the agency's or else the one sent). */
  etag?: string;
  /** Last-Modified of the answer (on 304, the agency's or else the one sent). */
  lastModified?: string;
}

/** A GET against agencies with the whole fetch policy applied. */
export interface UpstreamClient {
  /**
   * Resolves with 200, or 304 only when validators were sent; rejects with UpstreamError, retrying
   * 5xx, 429, timeouts, network errors and truncated bodies (other 4xx, too_large, redirect_loop: at once).
   */
  get(url: string, init?: UpstreamGetInit): Promise<UpstreamResponse>;
}
