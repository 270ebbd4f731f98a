/** How an attempt fails: an UpstreamError, with whether a retry helps and any wait the agency asked for. */
import { UpstreamError, type UpstreamFailure } from '../errors.ts';

/** Failures worth another attempt. */
const RETRYABLE: ReadonlySet<UpstreamFailure> = new Set(['timeout', 'network', 'truncated']);

/** An UpstreamError plus whether and when to retry it; only the retry loop sees it. */
export class AttemptError extends Error {
  constructor(
    readonly upstream: UpstreamError,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(upstream.message);
  }
}

/** A failure retried only when its kind is worth another attempt. */
export function fatal(
  failure: UpstreamFailure,
  message: string,
  details: { url?: string; status?: number },
): AttemptError {
  return new AttemptError(new UpstreamError(failure, message, details), RETRYABLE.has(failure));
}

/** A fetch that threw before any answer: a timeout when undici's code says so, else 'network'. */
export function networkError(url: string, err: unknown): AttemptError {
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

/** A fetch error as one line: its message, its cause's message and the error code. */
export function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  const code = causeCode(err);
  return `${err.message}${cause}${code === undefined ? '' : ` [${code}]`}`;
}
