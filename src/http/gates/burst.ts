/**
 * Gate 1, the burst limit (429): one counter per client address in fixed one-minute windows
 * (burst-limiter.ts) against the key's plan (free without a valid key). Counted before the key lookup so a
 * refusal costs no database work: against the plan already known for the key (key.ts), else the highest burst
 * any plan allows; measured again once the key is looked up.
 */
import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import type { Config, Plan } from '../../config.ts';
import { BoundedCache, memoized, type CacheRegistry } from '../../domain/caches.ts';
import { andThen, settle } from '../../domain/maybe-promise.ts';
import { keyRule } from '../context.ts';
import { ProblemError } from '../problems.ts';
import type { BurstDecision, BurstLimiter } from './burst-limiter.ts';

/** Client addresses whose exemption each node remembers (a BlockList check allocates). */
export const EXEMPTIONS_KEPT = 10_000;

/** Whether a client address is burst-exempt, remembered for the last EXEMPTIONS_KEPT addresses. */
function exemptions(config: Config, caches: CacheRegistry): (ip: string) => boolean {
  const kept = caches.add(new BoundedCache<string, boolean>('burst-exemptions', { max: EXEMPTIONS_KEPT }));
  return memoized(kept, (ip) => config.burstExempt.check(ip, ip.includes(':') ? 'ipv6' : 'ipv4'));
}

/** Writes the RateLimit headers of `limit` and throws 429 when the count is over it. */
function measure(reply: FastifyReply, limit: number, burst: BurstDecision): void {
  reply.header('RateLimit-Policy', `"burst";q=${limit};w=60`);
  reply.header('RateLimit', `"burst";r=${Math.max(0, limit - burst.count)};t=${burst.resetSeconds}`);
  if (burst.count > limit) {
    throw new ProblemError(
      'rate-limited',
      `Burst limit of ${limit} requests per minute from this address exceeded; retry in ${burst.resetSeconds} s.`,
      { headers: { 'Retry-After': String(burst.resetSeconds) } },
    );
  }
}

/** Counts every keyed request against its client's burst limit, refusing what is over it before any query. */
export const burstCount = fp<{
  limiter: BurstLimiter;
  config: Config;
  now: () => Date;
  caches: CacheRegistry;
}>(
  async (app, { limiter, config, now, caches }) => {
    const isExempt = exemptions(config, caches);
    const highest = Math.max(...Object.values<Plan>(config.plans).map((p) => p.burstPerMinute));
    app.decorateRequest('burst', undefined);
    app.addHook('onRequest', (request, reply, done) => {
      if (keyRule(request) === undefined || isExempt(request.ip)) return done();
      const limit = request.burstPlan?.burstPerMinute ?? highest;
      settle(
        () =>
          andThen(limiter.hit(request.ip, limit, 60, now().getTime()), (burst) => {
            request.burst = burst;
            if (burst.count > limit) measure(reply, limit, burst);
          }),
        () => done(),
        done,
      );
    });
  },
  { name: 'burst-count', dependencies: ['key-reading'] },
);

/** Measures the count against the plan of the key as looked up, and writes the RateLimit headers. */
export const burstSettle = fp<{ config: Config }>(
  async (app, { config }) => {
    app.addHook('onRequest', (request, reply, done) => {
      const { burst, auth } = request;
      if (burst === undefined) return done();
      const plan = auth.state === 'valid' || auth.state === 'revoked' ? auth.plan : config.plans.free;
      try {
        measure(reply, plan.burstPerMinute, burst);
      } catch (error) {
        return done(error as Error);
      }
      done();
    });
  },
  { name: 'burst-settle', dependencies: ['key-lookup'] },
);
