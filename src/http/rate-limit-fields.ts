/**
 * The monthly quotas' RateLimit fields, written by the quota stage (requests) and by the check route
 * (identifiers) beside the burst limit's, which the access stage writes first.
 */
import type { FastifyReply } from 'fastify';

/** Whole seconds from `now` to the start of the next calendar month (UTC), when monthly quotas start again. */
function secondsToNextMonth(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

/**
 * Adds a monthly quota to the RateLimit fields (IETF RateLimit header fields, a policy beside the burst limit):
 * `"<policy>";q=<limit>` and `"<policy>";r=<left>;t=<seconds until next month>`. The policies are `"month"`,
 * the key's requests, on every keyed answer, and `"identifiers"`, the identifiers its checks may check, on
 * the answers of `POST /v1/checks`.
 */
export function monthlyFields(
  reply: FastifyReply,
  policy: 'month' | 'identifiers',
  limit: number,
  left: number,
  now: Date,
): void {
  const join = (name: string, item: string) => {
    const present = reply.getHeader(name);
    reply.header(name, present === undefined ? item : `${String(present)}, ${item}`);
  };
  join('RateLimit-Policy', `"${policy}";q=${limit}`);
  join('RateLimit', `"${policy}";r=${left};t=${secondsToNextMonth(now)}`);
}
