/**
 * The burst limiter shared by every API node: the same fixed one-minute windows as the in-memory limiter,
 * counted in Redis by one atomic script, so a client meets its limit across nodes rather than once per node.
 *
 * A breaker keeps a Redis outage off the request path: once a command fails or the connection drops, the node
 * counts bursts in its own memory (each node then holds each client to the limit on its own) until Redis answers
 * again: at once when the client's own reconnection succeeds (a node whose first connection was slow comes back
 * without waiting), and after a failed command on a live connection, by one ping in the background at most every
 * `retryMs` (REDIS_RETRY_MS), never on a request. One warning is logged when an outage begins and one line when
 * Redis answers again; quotas (in the database) hold throughout.
 */
import { Redis } from 'ioredis';
import { createMemoryBurstLimiter, type BurstDecision, type BurstLimiter } from './burst-limiter.ts';

/** After a failure, how long a node counts bursts in memory before it tries Redis again. */
export const REDIS_RETRY_MS = 10_000;

const HIT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

export interface RedisBurstOptions {
  /** Key prefix of the counters (default `recalls:burst:`; serve gives `RECALLS_REDIS_PREFIX` + `burst:`). */
  prefix?: string;
  /** Default REDIS_RETRY_MS. */
  retryMs?: number;
  /** Once, when an outage begins. */
  onOutage?: (error: unknown) => void;
  /** Once, when Redis answers again after an outage. */
  onRecovery?: () => void;
}

export function createRedisBurstLimiter(url: string, options: RedisBurstOptions = {}): BurstLimiter {
  // Each command is bounded, so the one request that meets a new outage waits at most this long.
  const redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 500, connectTimeout: 1000 });
  const prefix = options.prefix ?? 'recalls:burst:';
  const retryMs = options.retryMs ?? REDIS_RETRY_MS;
  const memory = createMemoryBurstLimiter();
  let outage = false;
  let retryAt = 0;
  let probing = false;

  const trip = (error: unknown): void => {
    retryAt = Date.now() + retryMs;
    if (outage) return;
    outage = true;
    options.onOutage?.(error);
  };
  // Connection errors (and each failed reconnection) arrive here, not on a request.
  redis.on('error', trip);
  redis.on('close', () => trip(new Error('the connection to Redis closed')));
  const recover = (): void => {
    if (!outage) return;
    outage = false;
    options.onRecovery?.();
  };
  // A connection that is (again) ready has just answered the client's ready check.
  redis.on('ready', recover);

  const probe = (): void => {
    if (probing || Date.now() < retryAt || redis.status !== 'ready') return;
    probing = true;
    redis.ping().then(
      () => {
        probing = false;
        recover();
      },
      (error: unknown) => {
        probing = false;
        trip(error);
      },
    );
  };

  return {
    async hit(client, limit, windowSeconds, nowMs): Promise<BurstDecision> {
      if (outage) {
        probe();
        return memory.hit(client, limit, windowSeconds, nowMs);
      }
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
        trip(error);
        return memory.hit(client, limit, windowSeconds, nowMs);
      }
    },
    async close() {
      redis.removeAllListeners('close');
      redis.disconnect();
      await memory.close();
    },
  };
}
