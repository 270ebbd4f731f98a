/**
 * Gate 1, the burst limit (429): one counter per client address in fixed one-minute windows
 * (burst-limiter.ts), measured against the plan of the key on the request (the free plan's
 * without a valid one).
 */
import fp from 'fastify-plugin';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config.ts';
import { keyRule } from '../context.ts';
import { ProblemError } from '../problems.ts';
import type { BurstLimiter } from './burst-limiter.ts';

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
      if (keyRule(request) === undefined || isExempt(request.ip)) return;
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
