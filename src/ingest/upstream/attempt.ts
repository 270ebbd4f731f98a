/** One GET (or query POST) attempt: whole and idle timers, counted redirects, status judged, capped body; fails as AttemptError. */
import { UpstreamError } from '../errors.ts';
import { discard, readBody } from './body.ts';
import { AttemptError, fatal, networkError } from './failures.ts';
import { RedirectTrail, isRedirect } from './redirects.ts';
import { parseRetryAfter } from './retry.ts';
import type { UpstreamGetInit, UpstreamResponse } from './types.ts';

/** The part of a client's policy that bounds one attempt. */
export interface AttemptPolicy {
  timeoutMs: number;
  idleTimeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
}

/** One attempt, following redirects; throws AttemptError only. */
export async function attemptOnce(
  startUrl: string,
  init: UpstreamGetInit,
  policy: AttemptPolicy,
): Promise<UpstreamResponse> {
  const { timeoutMs, idleTimeoutMs } = policy;
  const maxBytes = Math.min(policy.maxBytes, init.maxBytes ?? Infinity);
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
  const headers = requestHeaders(init, policy.userAgent);
  let post = init.post;
  try {
    let url = startUrl;
    const trail = new RedirectTrail(startUrl, policy.maxRedirects);
    for (;;) {
      touch();
      let res: Response;
      try {
        res = await fetch(url, {
          method: post === undefined ? 'GET' : 'POST',
          ...(post === undefined ? {} : { body: post.body }),
          headers,
          redirect: 'manual',
          signal: controller.signal,
        });
      } catch (err) {
        if (abortReason !== undefined) throw timedOut(url, err);
        throw networkError(url, err);
      }
      touch();

      if (isRedirect(res.status)) {
        await discard(res);
        const next = trail.next(url, res.status, res.headers.get('location'));
        if (next.origin !== new URL(url).origin) delete headers.authorization;
        // As browsers do: only a 307 or 308 repeats a POST; the others are followed with a GET.
        if (post !== undefined && res.status !== 307 && res.status !== 308) {
          post = undefined;
          delete headers['content-type'];
        }
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
        throw new AttemptError(
          new UpstreamError('http_status', `${url} answered HTTP ${res.status}`, { url, status: res.status }),
          retryable,
          retryable ? parseRetryAfter(res.headers.get('retry-after')) : undefined,
        );
      }

      const declared = Number(res.headers.get('content-length') ?? NaN);
      if (Number.isFinite(declared) && declared > maxBytes) {
        await discard(res);
        throw fatal('too_large', `${url} declares ${declared} bytes, over the ${maxBytes}-byte cap`, { url });
      }

      const body = await readBody(res, url, {
        maxBytes,
        onChunk: touch,
        onTooLarge: () => controller.abort(),
        timedOut: () => abortReason !== undefined,
        timeoutError: (cause) => timedOut(url, cause),
      });
      // Without content-encoding the declared length is the body's: a backstop to undici's own check.
      if (Number.isFinite(declared) && !res.headers.has('content-encoding') && body.length !== declared) {
        throw new AttemptError(
          new UpstreamError('truncated', `${url}: got ${body.length} of ${declared} declared bytes`, { url }),
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

/** Our headers, the caller's (names in lower case) over them, and the validators of a conditional GET. */
function requestHeaders(init: UpstreamGetInit, userAgent: string): Record<string, string> {
  const headers: Record<string, string> = {
    'user-agent': userAgent,
    accept: '*/*',
    'accept-encoding': 'gzip, deflate, br',
  };
  for (const [k, v] of Object.entries(init.headers ?? {})) headers[k.toLowerCase()] = v;
  if (init.post !== undefined) headers['content-type'] = init.post.contentType;
  if (init.etag !== undefined) headers['if-none-match'] = init.etag;
  if (init.lastModified !== undefined) headers['if-modified-since'] = init.lastModified;
  return headers;
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
