/**
 * The fetch the typed client runs on: retries what is safe to retry, and keeps each final answer's body text
 * (openapi-fetch parses the body; a receipt must also be saved exactly as served).
 */
import { retryAfterSeconds } from './errors.ts';

/** What the client reports before each retry: the status retried (null: a network error) and the wait. */
export interface RetryInfo {
  status: number | null;
  waitSeconds: number;
  /** 1 for the first retry. */
  attempt: number;
}

/** When to retry and how long to wait at most. */
export interface RetryPolicy {
  /** Retries after the first attempt (0: none). */
  maxRetries: number;
  /** The longest single wait; a 429 asking for longer is not waited for but thrown. */
  maxRetryWaitSeconds: number;
  onRetry?: (info: RetryInfo) => void;
}

/** Statuses whose answer has no body (Response refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** Methods that change nothing, so a request lost on the network can be sent again. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The wait before retry `attempt` when the answer names none: 1, 2, 4 … seconds. */
function backoffSeconds(attempt: number): number {
  return 2 ** (attempt - 1);
}

function sleep(seconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/** A fetch with the retry policy, and the body text of every answer it returned. */
export interface Transport {
  fetch: (input: Request) => Promise<Response>;
  /** The body text of an answer this transport returned. */
  textOf(response: Response): string;
}

/**
 * Retries a 429 on any request (the service refuses it before doing anything) after its `Retry-After`, and a
 * network error only on a safe method or a request carrying `Idempotency-Key`. A 402 or any other status is
 * returned at once.
 */
export function createTransport(baseFetch: typeof fetch, policy: RetryPolicy): Transport {
  const texts = new WeakMap<Response, string>();

  async function settle(response: Response): Promise<Response> {
    const text = await response.text();
    const copy = new Response(NULL_BODY_STATUSES.has(response.status) ? null : text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    texts.set(copy, text);
    return copy;
  }

  async function retryingFetch(request: Request): Promise<Response> {
    const retryOnNetworkError = SAFE_METHODS.has(request.method) || request.headers.has('idempotency-key');
    for (let attempt = 1; ; attempt++) {
      const canRetry = attempt <= policy.maxRetries;
      let response: Response;
      try {
        response = await baseFetch(canRetry ? request.clone() : request);
      } catch (error) {
        if (!canRetry || !retryOnNetworkError || isAbort(error)) throw error;
        const waitSeconds = Math.min(backoffSeconds(attempt), policy.maxRetryWaitSeconds);
        policy.onRetry?.({ status: null, waitSeconds, attempt });
        await sleep(waitSeconds);
        continue;
      }
      if (response.status !== 429 || !canRetry) return settle(response);
      const asked = retryAfterSeconds(response.headers.get('retry-after'), Date.now());
      const waitSeconds = asked ?? Math.min(backoffSeconds(attempt), policy.maxRetryWaitSeconds);
      if (waitSeconds > policy.maxRetryWaitSeconds) return settle(response);
      await response.body?.cancel();
      policy.onRetry?.({ status: 429, waitSeconds, attempt });
      await sleep(waitSeconds);
    }
  }

  return {
    fetch: retryingFetch,
    textOf(response) {
      const text = texts.get(response);
      if (text === undefined) throw new Error('this answer did not come through the client transport');
      return text;
    },
  };
}
