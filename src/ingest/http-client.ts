/**
 * The upstream client on Node's fetch: timeouts, jittered backoff, conditional GET, streamed size
 * cap, counted redirects (pieces in upstream/). Agency-side problems are UpstreamError (errors.ts).
 */
import { attemptOnce } from './upstream/attempt.ts';
import { AttemptError } from './upstream/failures.ts';
import { backoffDelay } from './upstream/retry.ts';
import type {
  UpstreamClient,
  UpstreamClientOptions,
  UpstreamGetInit,
  UpstreamResponse,
} from './upstream/types.ts';

export { parseRetryAfter } from './upstream/retry.ts';
export type {
  RetryInfo,
  UpstreamClient,
  UpstreamClientOptions,
  UpstreamGetInit,
  UpstreamPost,
  UpstreamResponse,
} from './upstream/types.ts';

/** The service's name as it appears in the User-Agent. */
export const SERVICE_AGENT = 'recall-alert-service/0.1';

/** Some agencies' bot filters refuse non-browser agents, so we look like a browser and say who we are. */
export const DEFAULT_USER_AGENT = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36 ${SERVICE_AGENT}`;

/** Default cap on a decoded body. */
export const DEFAULT_MAX_BYTES = 200 * 1024 * 1024;

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates an upstream client with the given policy (see {@link UpstreamClientOptions} for defaults). */
export function createUpstreamClient(options: UpstreamClientOptions = {}): UpstreamClient {
  const policy = {
    timeoutMs: options.timeoutMs ?? 60_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 30_000,
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    maxRedirects: options.maxRedirects ?? 5,
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
    backoffBaseMs: options.backoffBaseMs ?? 1_000,
    backoffMaxMs: options.backoffMaxMs ?? 30_000,
    random: options.random ?? Math.random,
  };
  const retries = options.retries ?? 3;
  const sleep = options.sleep ?? realSleep;

  async function get(url: string, init: UpstreamGetInit = {}): Promise<UpstreamResponse> {
    // The address is ours (configuration or adapter code), so a bad one is a defect, not an agency failure.
    const protocol = URL.canParse(url) ? new URL(url).protocol : undefined;
    if (protocol !== 'http:' && protocol !== 'https:') throw new TypeError(`not an http(s) URL: ${url}`);
    for (let attempt = 0; ; attempt++) {
      try {
        return await attemptOnce(url, init, policy);
      } catch (err) {
        if (!(err instanceof AttemptError)) throw err;
        if (!err.retryable || attempt >= retries) throw err.upstream;
        const delayMs = backoffDelay(err, attempt, policy);
        options.onRetry?.({ url, retry: attempt + 1, delayMs, error: err.upstream });
        await sleep(delayMs);
      }
    }
  }

  return { get };
}
