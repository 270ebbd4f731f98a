/** When to try again: exponential backoff with full jitter, or the agency's Retry-After. */
import type { AttemptError } from './failures.ts';

/** The backoff part of a client's policy. */
export interface BackoffPolicy {
  backoffBaseMs: number;
  backoffMaxMs: number;
  random: () => number;
}

/** Wait before retry `attempt + 1`: Retry-After, else uniform below `base * 2^attempt`; ≤ `backoffMaxMs`. */
export function backoffDelay(err: AttemptError, attempt: number, policy: BackoffPolicy): number {
  if (err.retryAfterMs !== undefined) return Math.min(policy.backoffMaxMs, err.retryAfterMs);
  const ceiling = Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** attempt);
  return Math.floor(policy.random() * ceiling);
}

/** Retry-After (seconds or HTTP-date) as ms from now, 0 if past; undefined if absent or unparseable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
