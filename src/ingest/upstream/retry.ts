/** When to try again: exponential backoff with full jitter, or the agency's Retry-After. */
import type { AttemptError } from './failures.ts';

/** The backoff part of a client's policy. */
export interface BackoffPolicy {
  backoffBaseMs: number;
  backoffMaxMs: number;
  random: () => number;
}

/**
 * The wait before retry `attempt + 1`: the agency's Retry-After when it sent one, else a
 * uniform draw below `base * 2^attempt`; both capped at `backoffMaxMs`.
 */
export function backoffDelay(err: AttemptError, attempt: number, policy: BackoffPolicy): number {
  if (err.retryAfterMs !== undefined) return Math.min(policy.backoffMaxMs, err.retryAfterMs);
  const ceiling = Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** attempt);
  return Math.floor(policy.random() * ceiling);
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
