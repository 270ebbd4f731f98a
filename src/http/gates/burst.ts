/**
 * Gate 1, the burst limit (429): one counter per client address in fixed one-minute windows,
 * measured against the plan of the key on the request (the free plan's without a valid one).
 * The limiter is an interface so that several nodes can share one (Redis) while one node keeps
 * it in memory.
 */
import fp from 'fastify-plugin';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config.ts';
import { ProblemError } from '../problems.ts';

/** One counted request's outcome. */
export interface BurstDecision {
  allowed: boolean;
  /** Requests left in the current window. */
  remaining: number;
  /** Seconds until the window resets (whole seconds, at least 1). */
  resetSeconds: number;
}

/** Counts requests per client in fixed windows. */
export interface BurstLimiter {
  /** Counts one request from `client` against `limit` per `windowSeconds`. */
  hit(client: string, limit: number, windowSeconds: number, nowMs: number): Promise<BurstDecision>;
  close(): Promise<void>;
}

/**
 * The in-process limiter for a single node. It holds one window per client seen within the last
 * window: expired windows are swept once a window. (Not an LRU: dropping a live window would
 * let its client start over.)
 */
export function createMemoryBurstLimiter(): BurstLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = 0;
  return {
    async hit(client, limit, windowSeconds, nowMs) {
      const windowMs = windowSeconds * 1000;
      if (nowMs - lastSweep > windowMs) {
        for (const [k, w] of windows) if (nowMs - w.start >= windowMs) windows.delete(k);
        lastSweep = nowMs;
      }
      let w = windows.get(client);
      if (w === undefined || nowMs - w.start >= windowMs) {
        w = { start: nowMs, count: 0 };
        windows.set(client, w);
      }
      w.count += 1;
      const resetSeconds = Math.max(1, Math.ceil((w.start + windowMs - nowMs) / 1000));
      return { allowed: w.count <= limit, remaining: Math.max(0, limit - w.count), resetSeconds };
    },
    async close() {
      windows.clear();
    },
  };
}

/** Whether a client address is burst-exempt, remembered for the last 10,000 addresses (a BlockList check allocates). */
function exemptions(config: Config): (ip: string) => boolean {
  const known = new LRUCache<string, boolean>({ max: 10_000 });
  return (ip) => {
    let exempt = known.get(ip);
    if (exempt === undefined) {
      exempt = config.burstExempt.check(ip, ip.includes(':') ? 'ipv6' : 'ipv4');
      known.set(ip, exempt);
    }
    return exempt;
  };
}

/** Counts every keyed request against its client's burst limit and refuses the excess. */
export const burstGate = fp<{ limiter: BurstLimiter; config: Config; now: () => Date }>(
  async (app, { limiter, config, now }) => {
    const isExempt = exemptions(config);
    app.addHook('onRequest', async (request, reply) => {
      const { access } = request.routeOptions.config;
      if (access === undefined || access === 'public' || isExempt(request.ip)) return;
      const { auth } = request;
      const plan = auth.state === 'valid' || auth.state === 'revoked' ? auth.plan : config.plans.free;
      const decision = await limiter.hit(request.ip, plan.burstPerMinute, 60, now().getTime());
      reply.header('RateLimit-Policy', `"burst";q=${plan.burstPerMinute};w=60`);
      reply.header('RateLimit', `"burst";r=${decision.remaining};t=${decision.resetSeconds}`);
      if (!decision.allowed) {
        throw new ProblemError(
          'rate-limited',
          `Burst limit of ${plan.burstPerMinute} requests per minute from this address exceeded; retry in ${decision.resetSeconds} s.`,
          { headers: { 'Retry-After': String(decision.resetSeconds) } },
        );
      }
    });
  },
  { name: 'burst-gate', dependencies: ['key-reading'] },
);
