/**
 * The upstream HTTP client: one GET against an agency with the whole fetch policy applied —
 * timeouts, retries with exponential backoff and full jitter, conditional GET, a response size
 * cap enforced while streaming, and manually followed (counted) redirects.
 *
 * Every agency-side problem surfaces as an UpstreamError (see errors.ts); anything else thrown
 * is a defect in our code. Built on Node's global fetch (undici), which also decompresses
 * gzip/deflate/br bodies.
 */
import { UpstreamError, type UpstreamFailure } from './errors.ts';

/** Policy for an upstream client. Every field is optional; the defaults are listed per field. */
export interface UpstreamClientOptions {
  /**
   * Budget for one attempt, from sending the request to the last body byte, in ms. Default 60000.
   * Each retry gets a fresh budget. Raise it for bulk downloads.
   */
  timeoutMs?: number;
  /**
   * Longest silence tolerated within an attempt, in ms: waiting for the response headers
   * (which covers connecting) and between two body chunks. Default 30000.
   */
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
  /** The User-Agent header. Default: a browser-like string naming this service ({@link DEFAULT_USER_AGENT}). */
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
  /** 1 for the first retry. */
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
}

/** A successful answer. */
export interface UpstreamResponse {
  /** 200 for a body (any 2xx is reported as 200); 304 when a conditional GET found no change. */
  status: 200 | 304;
  /** The final address, after redirects. */
  url: string;
  /** The decoded body; empty on 304. */
  body: Buffer;
  /** ETag of the answer (on 304, the agency's or else the one sent). */
  etag?: string;
  /** Last-Modified of the answer (on 304, the agency's or else the one sent). */
  lastModified?: string;
}

export interface UpstreamClient {
  /**
   * GETs `url` with the client's policy. Resolves with a 200 or (only when validators were sent)
   * a 304; rejects with UpstreamError for every agency-side failure, after retries where a retry
   * can help (5xx, 429, timeouts, network errors, truncated bodies). Other 4xx, 'too_large' and
   * 'redirect_loop' fail at once.
   */
  get(url: string, init?: UpstreamGetInit): Promise<UpstreamResponse>;
}

/** The service's name as it appears in the User-Agent. */
export const SERVICE_AGENT = 'recall-alert-service/0.1';

/** Some agencies' bot filters refuse non-browser agents, so we look like a browser and say who we are. */
export const DEFAULT_USER_AGENT = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36 ${SERVICE_AGENT}`;

export const DEFAULT_MAX_BYTES = 200 * 1024 * 1024;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Failures worth another attempt. */
const RETRYABLE: ReadonlySet<UpstreamFailure> = new Set(['timeout', 'network', 'truncated']);

/** Internal: an UpstreamError plus whether and when to retry it. */
class AttemptError extends Error {
  constructor(
    readonly upstream: UpstreamError,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(upstream.message);
  }
}

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates an upstream client with the given policy (see {@link UpstreamClientOptions} for defaults). */
export function createUpstreamClient(options: UpstreamClientOptions = {}): UpstreamClient {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
  const retries = options.retries ?? 3;
  const backoffBaseMs = options.backoffBaseMs ?? 1_000;
  const backoffMaxMs = options.backoffMaxMs ?? 30_000;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = options.maxRedirects ?? 5;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;

  async function get(url: string, init: UpstreamGetInit = {}): Promise<UpstreamResponse> {
    // The address is ours (configuration or adapter code), so a bad one is a defect, not an agency failure.
    const protocol = URL.canParse(url) ? new URL(url).protocol : undefined;
    if (protocol !== 'http:' && protocol !== 'https:') throw new TypeError(`not an http(s) URL: ${url}`);
    for (let attempt = 0; ; attempt++) {
      try {
        return await attemptOnce(url, init);
      } catch (err) {
        if (!(err instanceof AttemptError)) throw err;
        if (!err.retryable || attempt >= retries) throw err.upstream;
        const ceiling = Math.min(backoffMaxMs, backoffBaseMs * 2 ** attempt);
        const delayMs =
          err.retryAfterMs !== undefined
            ? Math.min(backoffMaxMs, err.retryAfterMs)
            : Math.floor(random() * ceiling);
        options.onRetry?.({ url, retry: attempt + 1, delayMs, error: err.upstream });
        await sleep(delayMs);
      }
    }
  }

  /** One attempt, following redirects; throws AttemptError only. */
  async function attemptOnce(startUrl: string, init: UpstreamGetInit): Promise<UpstreamResponse> {
    const controller = new AbortController();
    let abortReason: 'timeout' | 'idle' | undefined;
    const abort = (reason: 'timeout' | 'idle'): void => {
      abortReason ??= reason;
      controller.abort();
    };
    const wholeTimer = setTimeout(() => abort('timeout'), timeoutMs);
    let idleTimer: NodeJS.Timeout | undefined;
    const touch = (): void => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => abort('idle'), idleTimeoutMs);
    };
    const timedOut = (url: string, cause: unknown): AttemptError =>
      new AttemptError(
        new UpstreamError(
          'timeout',
          abortReason === 'idle'
            ? `no data from ${url} for ${idleTimeoutMs} ms`
            : `${url} did not answer completely within ${timeoutMs} ms`,
          { url },
          { cause },
        ),
        true,
      );

    const conditional = init.etag !== undefined || init.lastModified !== undefined;
    const headers: Record<string, string> = {
      'user-agent': userAgent,
      accept: '*/*',
      'accept-encoding': 'gzip, deflate, br',
      ...lowerKeys(init.headers ?? {}),
    };
    if (init.etag !== undefined) headers['if-none-match'] = init.etag;
    if (init.lastModified !== undefined) headers['if-modified-since'] = init.lastModified;

    try {
      let url = startUrl;
      const visited = new Set<string>([normaliseForLoop(url)]);
      for (let redirects = 0; ; redirects++) {
        touch();
        let res: Response;
        try {
          res = await fetch(url, { headers, redirect: 'manual', signal: controller.signal });
        } catch (err) {
          if (abortReason !== undefined) throw timedOut(url, err);
          throw networkError(url, err);
        }
        touch();

        if (REDIRECT_STATUSES.has(res.status)) {
          await discard(res);
          const location = res.headers.get('location');
          let next: URL | undefined;
          try {
            next = location === null ? undefined : new URL(location, url);
          } catch {
            next = undefined;
          }
          if (next === undefined || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
            throw fatal('http_status', `${url} answered ${res.status} without a usable Location`, {
              url,
              status: res.status,
            });
          }
          if (redirects >= maxRedirects) {
            throw fatal('redirect_loop', `${startUrl}: more than ${maxRedirects} redirects`, {
              url: startUrl,
            });
          }
          const key = normaliseForLoop(next.href);
          if (visited.has(key)) {
            throw fatal('redirect_loop', `${startUrl}: redirect loop at ${next.href}`, { url: startUrl });
          }
          visited.add(key);
          if (next.origin !== new URL(url).origin) delete headers.authorization;
          url = next.href;
          continue;
        }

        if (res.status === 304) {
          await discard(res);
          if (!conditional) {
            throw fatal('http_status', `${url} answered 304 to an unconditional GET`, { url, status: 304 });
          }
          return withValidators(
            { status: 304, url, body: Buffer.alloc(0) },
            res.headers.get('etag') ?? init.etag,
            res.headers.get('last-modified') ?? init.lastModified,
          );
        }

        if (res.status < 200 || res.status > 299) {
          await discard(res);
          const retryable = res.status >= 500 || res.status === 429;
          const message = `${url} answered HTTP ${res.status}`;
          throw new AttemptError(
            new UpstreamError('http_status', message, { url, status: res.status }),
            retryable,
            retryable ? parseRetryAfter(res.headers.get('retry-after')) : undefined,
          );
        }

        const declared = Number(res.headers.get('content-length') ?? NaN);
        if (Number.isFinite(declared) && declared > maxBytes) {
          await discard(res);
          throw fatal('too_large', `${url} declares ${declared} bytes, over the ${maxBytes}-byte cap`, {
            url,
          });
        }

        const body = await readBody(res, url, {
          maxBytes,
          onChunk: touch,
          onTooLarge: () => controller.abort(),
          timedOut: () => abortReason !== undefined,
          timeoutError: (cause) => timedOut(url, cause),
        });
        // Without content-encoding the declared length is the body's; undici normally catches a
        // short body itself (premature close), this is the belt to those braces.
        if (Number.isFinite(declared) && !res.headers.has('content-encoding') && body.length !== declared) {
          throw new AttemptError(
            new UpstreamError('truncated', `${url}: got ${body.length} of ${declared} declared bytes`, {
              url,
            }),
            true,
          );
        }
        return withValidators(
          { status: 200, url, body },
          res.headers.get('etag') ?? undefined,
          res.headers.get('last-modified') ?? undefined,
        );
      }
    } finally {
      clearTimeout(wholeTimer);
      clearTimeout(idleTimer);
    }
  }

  return { get };
}

/** Reads the body as a stream, aborting as soon as it passes the cap. Throws AttemptError only. */
async function readBody(
  res: Response,
  url: string,
  hooks: {
    maxBytes: number;
    onChunk: () => void;
    onTooLarge: () => void;
    timedOut: () => boolean;
    timeoutError: (cause: unknown) => AttemptError;
  },
): Promise<Buffer> {
  if (res.body === null) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch (err) {
      if (hooks.timedOut()) throw hooks.timeoutError(err);
      throw new AttemptError(
        new UpstreamError(
          'truncated',
          `${url}: body interrupted after ${total} bytes (${describe(err)})`,
          { url },
          {
            cause: err,
          },
        ),
        true,
      );
    }
    if (chunk.done) break;
    total += chunk.value.byteLength;
    if (total > hooks.maxBytes) {
      hooks.onTooLarge();
      reader.cancel().catch(() => undefined);
      throw fatal('too_large', `${url}: body passed the ${hooks.maxBytes}-byte cap`, { url });
    }
    chunks.push(Buffer.from(chunk.value.buffer, chunk.value.byteOffset, chunk.value.byteLength));
    hooks.onChunk();
  }
  return Buffer.concat(chunks, total);
}

function fatal(
  failure: UpstreamFailure,
  message: string,
  details: { url?: string; status?: number },
): AttemptError {
  return new AttemptError(new UpstreamError(failure, message, details), RETRYABLE.has(failure));
}

function networkError(url: string, err: unknown): AttemptError {
  const code = causeCode(err);
  const isTimeout =
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'ETIMEDOUT';
  return new AttemptError(
    new UpstreamError(isTimeout ? 'timeout' : 'network', `${url}: ${describe(err)}`, { url }, { cause: err }),
    true,
  );
}

/** The most specific error code in a fetch error's cause chain. */
function causeCode(err: unknown): string | undefined {
  let code: string | undefined;
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; depth++) {
    const c = (e as { code?: unknown }).code;
    if (typeof c === 'string') code = c;
    e = e.cause;
  }
  return code;
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  const code = causeCode(err);
  return `${err.message}${cause}${code === undefined ? '' : ` [${code}]`}`;
}

/** Frees the connection of a response whose body we do not want. */
async function discard(res: Response): Promise<void> {
  try {
    await res.body?.cancel();
  } catch {
    // the connection is going away anyway
  }
}

/**
 * Parses Retry-After (delay-seconds or an HTTP-date) into ms from now; undefined when absent or
 * unparseable. A date in the past gives 0.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

function withValidators(
  res: UpstreamResponse,
  etag: string | null | undefined,
  lastModified: string | null | undefined,
): UpstreamResponse {
  if (etag !== null && etag !== undefined) res.etag = etag;
  if (lastModified !== null && lastModified !== undefined) res.lastModified = lastModified;
  return res;
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  return out;
}

/** Redirect-loop key: the address without its fragment. */
function normaliseForLoop(url: string): string {
  try {
    const u = new URL(url);
    u.hash = '';
    return u.href;
  } catch {
    return url;
  }
}
