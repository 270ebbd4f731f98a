/**
 * The burst limiter shared by every API node: the same fixed one-minute windows as the
 * in-memory limiter, counted in Redis by one atomic script, so a client meets its limit across
 * nodes rather than once per node. If Redis cannot be reached the request is let through and the
 * failure logged: burst limits are deliberately permissive, and quotas (in the database) still hold.
 */
import { Redis } from 'ioredis';
import type { BurstDecision, BurstLimiter } from './burst-limiter.ts';

const HIT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

export function createRedisBurstLimiter(
  url: string,
  options: { prefix?: string; onError?: (error: unknown) => void } = {},
): BurstLimiter {
  // Commands queue while connecting; each is bounded so that a Redis outage costs a request
  // at most this long before it is admitted.
  const redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 500, connectTimeout: 1000 });
  redis.on('error', (error: unknown) => options.onError?.(error));
  const prefix = options.prefix ?? 'recalls:burst:';
  return {
    async hit(client, limit, windowSeconds): Promise<BurstDecision> {
      try {
        const [count, ttl] = (await redis.eval(
          HIT,
          1,
          `${prefix}${client}`,
          String(windowSeconds * 1000),
        )) as [number, number];
        return {
          allowed: count <= limit,
          count,
          remaining: Math.max(0, limit - count),
          resetSeconds: Math.max(1, Math.ceil(ttl / 1000)),
        };
      } catch (error) {
        options.onError?.(error);
        return { allowed: true, count: 0, remaining: limit, resetSeconds: windowSeconds };
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}
