/**
 * Stage 1, access: the burst limit (429) and the key (401 / 403), in one hook and the contract's order.
 * 1. The key headers are read, asking no database.
 * 2. The request is counted against its client address's burst limit (node/burst-limiter.ts: fixed one-minute
 *    windows) before the key is looked up, so a refusal costs no query: measured against the plan this node
 *    last found for the key (the keys store's presented keys), the free plan without a usable key, else the
 *    highest burst any plan allows.
 * 3. The key and the corpus version are looked up: from memory, read again only after a key or the corpus
 *    changed (store-state.ts says how soon a node knows); validity and revocation are never taken from 2.
 * 4. The count is measured again against the key's plan as looked up, and the RateLimit headers written.
 * 5. The route's access rule refuses a missing, invalid or revoked key.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config, Plan, PlanId } from '../../config.ts';
import { hashApiKey, looksLikeApiKey } from '../../domain/api-keys.ts';
import { BoundedCache, memoized, type CacheRegistry } from '../../node/caches.ts';
import { keyRule, type AppDeps, type AuthState } from '../context.ts';
import { ProblemError } from '../problems.ts';
import type { BurstDecision, BurstLimiter } from '../../node/burst-limiter.ts';

/** Client addresses whose exemption each node remembers (a BlockList check allocates). */
export const EXEMPTIONS_KEPT = 10_000;

/** The key presented by a request, or why there is none usable. */
type Presented = { key: string } | { state: 'missing' } | { state: 'invalid'; detail?: string };

/** Whether the request carries Authorization more than once with different values (Node keeps the first). */
function authorizationsDiffer(raw: readonly string[]): boolean {
  let first: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length !== 13 || name.toLowerCase() !== 'authorization') continue;
    if (first === undefined) first = raw[i + 1];
    else if (raw[i + 1] !== first) return true;
  }
  return false;
}

function presentedKey(request: FastifyRequest): Presented {
  const { authorization } = request.headers;
  const header = request.headers['x-api-key'];
  if (Array.isArray(header)) return { state: 'invalid' };
  const other = header?.trim();
  if (authorization === undefined) return other === undefined ? { state: 'missing' } : { key: other };
  if (authorizationsDiffer(request.raw.rawHeaders))
    return {
      state: 'invalid',
      detail: 'Authorization is sent more than once with different values; send one key, in one header.',
    };
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
  if (m === null) return { state: 'invalid' };
  if (other !== undefined && other !== '' && other !== m[1])
    return {
      state: 'invalid',
      detail: 'Authorization and X-API-Key carry different keys; send one key, in either header.',
    };
  return { key: m[1]! };
}

function planOf(config: Config, plan: string): Plan {
  return config.plans[plan as PlanId] ?? config.plans.free;
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

/** The refusal of `auth` under the route's rule, if any. */
function refusal(auth: AuthState, access: 'key' | 'optional-key'): ProblemError | undefined {
  if (auth.state === 'revoked') return new ProblemError('forbidden', 'This API key has been revoked.');
  if (auth.state === 'invalid')
    return new ProblemError('unauthorized', auth.detail ?? 'The API key is not valid.');
  if (auth.state === 'missing' && access === 'key')
    return new ProblemError(
      'unauthorized',
      'An API key is required: send "Authorization: Bearer <key>" or "X-API-Key: <key>".',
    );
  return undefined;
}

/** Sets `request.auth` (and the corpus version with a key) and refuses what the burst limit or the key rule do. */
export const access = fp<{ deps: AppDeps; now: () => Date; caches: CacheRegistry }>(
  async (app, { deps, now, caches }) => {
    const { config, store } = deps;
    const limiter: BurstLimiter = deps.burstLimiter;
    const exempt = caches.add(
      new BoundedCache<string, boolean>('burst-exemptions', { max: EXEMPTIONS_KEPT }),
    );
    const isExempt = memoized(exempt, (ip) =>
      config.burstExempt.check(ip, ip.includes(':') ? 'ipv6' : 'ipv4'),
    );
    const highest = Math.max(...Object.values<Plan>(config.plans).map((p) => p.burstPerMinute));
    app.decorateRequest('auth', null as never);
    app.decorateRequest('burstPlan', undefined);
    app.decorateRequest('corpusVersion', undefined);
    app.decorateRequest('routeOptionsRead', undefined);

    app.addHook('onRequest', async (request, reply) => {
      const rule = keyRule(request);
      if (rule === undefined) {
        request.auth = { state: 'missing' };
        return;
      }
      const presented = presentedKey(request);
      const hash =
        'key' in presented && looksLikeApiKey(presented.key) ? hashApiKey(presented.key) : undefined;
      if (hash === undefined) {
        request.auth = 'key' in presented ? { state: 'invalid' } : presented;
        request.burstPlan = config.plans.free;
      } else {
        const plan = store.keys.lastKnownPlan(hash);
        request.burstPlan = plan === undefined ? undefined : planOf(config, plan ?? 'free');
      }

      let burst: BurstDecision | undefined;
      if (!isExempt(request.ip)) {
        const limit = request.burstPlan?.burstPerMinute ?? highest;
        burst = await limiter.hit(request.ip, limit, 60, now().getTime());
        if (burst.count > limit) measure(reply, limit, burst);
      }

      if (hash !== undefined) {
        const { record, corpusVersion } = await store.keys.authenticateHash(hash);
        request.corpusVersion = corpusVersion;
        if (record === undefined) request.auth = { state: 'invalid' };
        else {
          const plan = planOf(config, record.plan);
          request.auth = { state: record.revoked_at === null ? 'valid' : 'revoked', key: record, plan };
        }
      }

      const { auth } = request;
      if (burst !== undefined)
        measure(
          reply,
          auth.state === 'valid' || auth.state === 'revoked'
            ? auth.plan.burstPerMinute
            : config.plans.free.burstPerMinute,
          burst,
        );
      const refused = refusal(auth, rule);
      if (refused !== undefined) throw refused;
    });
  },
  { name: 'access' },
);
