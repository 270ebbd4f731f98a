/**
 * Gate 4, conditional GET and the monthly quota (304 / 402). A 304 does not count but must be within the
 * quota: one decided here reserves nothing (checked by a read), one made from the handler's 200 gives its
 * reservation back. Anything else on a valid key is reserved by one conditional update, or, unmetered,
 * counted once answered.
 */
import fp from 'fastify-plugin';
import type { Plan } from '../../config.ts';
import type { Metered } from '../../domain/meters.ts';
import type { Store } from '../../store/database.ts';
import type { AppDeps, QuotaHold } from '../context.ts';
import { ProblemError } from '../problems.ts';
import { corpusVersionOf } from '../route-context.ts';
import { corpusTagCache, matchesIfNoneMatch } from './etag.ts';

const NONE: Metered = { requests: 0, identifiers: 0 };

/** The calendar month in UTC, `YYYY-MM`. */
export function usageMonth(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** The 402 of a reservation of `amount` that the plan's month does not allow. */
export function quotaExceeded(plan: Plan, month: string, amount: Metered): ProblemError {
  const what =
    amount.identifiers > 0
      ? `checking ${amount.identifiers} identifiers would exceed the ${plan.id} plan's ${plan.perMonth.identifiers} identifiers`
      : `the ${plan.id} plan's ${plan.perMonth.requests} requests are used up`;
  return new ProblemError('quota-exceeded', `Monthly quota exhausted: ${what} for ${month} (UTC).`);
}

/** Reserves usage for a key or throws quota-exceeded; returns the hold to release on failure. */
async function reserveQuota(
  store: Store,
  keyId: string,
  plan: Plan,
  now: Date,
  amount: Metered,
): Promise<QuotaHold> {
  const month = usageMonth(now);
  if (!(await store.usage.reserve(keyId, month, amount, plan.perMonth)))
    throw quotaExceeded(plan, month, amount);
  return { keyId, month, reserved: { ...amount }, deferred: { ...NONE }, refund: false };
}

/** Admits one request: reserved now (exact across nodes), or on an unmetered quota deferred until answered 2xx. */
async function admitRequest(store: Store, keyId: string, plan: Plan, now: Date): Promise<QuotaHold> {
  const one: Metered = { ...NONE, requests: 1 };
  if (plan.perMonth.requests === null)
    return { keyId, month: usageMonth(now), reserved: { ...NONE }, deferred: one, refund: false };
  return reserveQuota(store, keyId, plan, now, one);
}

/** Whether one more request would be admitted, without taking it (for a 304, which does not count). */
async function wouldAdmit(store: Store, keyId: string, plan: Plan, now: Date): Promise<void> {
  const limit = plan.perMonth.requests;
  if (limit === null) return;
  const month = usageMonth(now);
  const used = await store.usage.get(keyId, month);
  if (used.requests + 1 > limit) {
    throw new ProblemError(
      'quota-exceeded',
      `Monthly quota exhausted: the ${plan.id} plan's ${limit} requests are used up for ${month} (UTC).`,
    );
  }
}

/**
 * Tags every corpus-backed GET/HEAD; answers 304 at once when the tag matches and the request was answered
 * 200 at this version (else a 200 becomes 304 once answered, etag.ts); reserves the quota of everything else.
 */
export const quotaGate = fp<{ deps: AppDeps; now: () => Date }>(
  async (app, { deps, now }) => {
    const corpusTag = corpusTagCache();
    app.decorateRequest('quotaHold', undefined);
    app.decorateRequest('corpusTag', undefined);
    app.addHook('preHandler', async (request, reply) => {
      const { auth } = request;
      const mode = request.routeOptions.config.etag;
      if (
        (request.method === 'GET' || request.method === 'HEAD') &&
        (mode === 'corpus' || mode === 'corpus-key')
      ) {
        const version = await corpusVersionOf(request, deps.store);
        const keyPart =
          mode === 'corpus-key' && auth.state === 'valid'
            ? `${auth.key.id}:${await deps.store.checks.latestCheckId(auth.key.id)}`
            : '';
        const entry = corpusTag(version, keyPart, request.url);
        request.corpusTag = entry;
        reply.header('ETag', entry.tag);
        if (entry.answered && matchesIfNoneMatch(request.headers['if-none-match'], entry.tag)) {
          if (auth.state === 'valid') await wouldAdmit(deps.store, auth.key.id, auth.plan, now());
          return reply.code(304).send();
        }
      }
      if (auth.state === 'valid')
        request.quotaHold = await admitRequest(deps.store, auth.key.id, auth.plan, now());
    });
  },
  { name: 'quota-gate', dependencies: ['parameters-gate'] },
);
