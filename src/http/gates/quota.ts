/**
 * Gate 4, conditional GET and the monthly quota (304 / 402). Each request on a valid key takes one unit
 * of its month from this node's lease (quota-ledger.ts), settled when its connection closes: used if a
 * 2xx was sent, freed otherwise. A 304 does not count but must be within the quota: one decided here
 * takes nothing, one made from the handler's 200 frees its unit.
 */
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Plan } from '../../config.ts';
import type { CacheRegistry } from '../../domain/caches.ts';
import { usageMonthKeeper, type Metered } from '../../domain/meters.ts';
import { andThen, settle, type MaybePromise } from '../../domain/maybe-promise.ts';
import { LEASE_SHARE } from '../../domain/quota-lease.ts';
import { routeConfig, type AppDeps, type CorpusTag } from '../context.ts';
import { ProblemError } from '../problems.ts';
import { QuotaLedger, type LeaseHold } from '../quota-ledger.ts';
import { corpusVersionOf } from '../route-context.ts';
import { CORPUS_TAGS_KEPT, corpusTagCache, matchesIfNoneMatch } from './etag.ts';

const ONE_REQUEST: Metered = { requests: 1, identifiers: 0 };

/** What the gate decided: the request goes on to its handler, or it has been answered (304). */
type Outcome = 'pass' | 'answered';

/** The 402 of a reservation of `amount` that the plan's month does not allow. */
export function quotaExceeded(plan: Plan, month: string, amount: Metered): ProblemError {
  const what =
    amount.identifiers > 0
      ? `checking ${amount.identifiers} identifiers would exceed the ${plan.id} plan's ${plan.perMonth.identifiers} identifiers`
      : `the ${plan.id} plan's ${plan.perMonth.requests} requests are used up`;
  return new ProblemError('quota-exceeded', `Monthly quota exhausted: ${what} for ${month} (UTC).`);
}

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

/** Settles the hold when the connection closes: used when a 2xx answer was sent in full. */
function settleOnClose(reply: FastifyReply, hold: LeaseHold): void {
  const res = reply.raw;
  const settle = () => hold.closed(res.writableFinished && reply.statusCode >= 200 && reply.statusCode < 300);
  if (res.destroyed) settle();
  else res.once('close', settle);
}

/**
 * Tags every corpus-backed GET/HEAD; answers 304 at once when the tag matches and the request was answered
 * 200 at this version (else a 200 becomes 304 once answered, etag.ts); takes a unit of the quota for the rest.
 */
export const quotaGate = fp<{ deps: AppDeps; now: () => Date; caches: CacheRegistry }>(
  async (app, { deps, now, caches }) => {
    const corpusTag = corpusTagCache(CORPUS_TAGS_KEPT, caches);
    const usageMonth = usageMonthKeeper();
    const ledger = new QuotaLedger(deps.store, {
      rule: { maxBlock: deps.config.quota.leaseBlock, share: LEASE_SHARE },
      idleReturnMs: deps.config.quota.idleReturnMs,
      now,
      onError: (err) => app.log.error({ err }, 'usage report failed'),
    });
    deps.metrics?.watchLedger(() => ledger.figures());
    app.addHook('onClose', () => ledger.close());
    app.decorateRequest('quotaHold', undefined);
    app.decorateRequest('corpusTag', undefined);
    const isTagged = (request: FastifyRequest) => {
      const mode = routeConfig(request).etag;
      return (
        (request.method === 'GET' || request.method === 'HEAD') &&
        (mode === 'corpus' || mode === 'corpus-key')
      );
    };

    /** Takes a unit of the key's month for the request, settled when its connection closes. */
    const admit = (request: FastifyRequest, reply: FastifyReply): MaybePromise<Outcome> => {
      const { auth } = request;
      if (auth.state !== 'valid') return 'pass';
      const at = now();
      const month = usageMonth(at);
      const limit = auth.plan.perMonth.requests;
      return andThen(ledger.admit(auth.key.id, limit, month), (hold) => {
        if (hold === undefined) {
          if (limit !== null) monthlyFields(reply, 'month', limit, 0, at);
          throw quotaExceeded(auth.plan, month, ONE_REQUEST);
        }
        if (limit !== null) monthlyFields(reply, 'month', limit, hold.remaining!, at);
        request.quotaHold = hold;
        settleOnClose(reply, hold);
        return 'pass';
      });
    };

    /** 304 when the request names the tag of an answer already made at this version, else admission. */
    const answerTagged = (
      request: FastifyRequest,
      reply: FastifyReply,
      entry: CorpusTag,
    ): MaybePromise<Outcome> => {
      request.corpusTag = entry;
      reply.header('ETag', entry.tag);
      if (!entry.answered || !matchesIfNoneMatch(request.headers['if-none-match'], entry.tag))
        return admit(request, reply);
      const { auth } = request;
      const month = usageMonth(now());
      const allowed =
        auth.state === 'valid' ? ledger.wouldAdmit(auth.key.id, auth.plan.perMonth.requests, month) : true;
      return andThen(allowed, (ok) => {
        if (!ok && auth.state === 'valid') throw quotaExceeded(auth.plan, month, ONE_REQUEST);
        reply.code(304).send();
        return 'answered';
      });
    };

    /**
     * The gate. Without a promise for the usual request (its corpus version known, no receipt in its tag, a
     * unit free on this node); what must be read or leased is awaited.
     */
    const gate = (request: FastifyRequest, reply: FastifyReply): MaybePromise<Outcome> => {
      if (!isTagged(request)) return admit(request, reply);
      const { auth } = request;
      const version = corpusVersionOf(request, deps.store);
      const keyPart =
        routeConfig(request).etag === 'corpus-key' && auth.state === 'valid'
          ? deps.store.checks.latestCheckId(auth.key.id).then((latest) => `${auth.key.id}:${latest}`)
          : '';
      return andThen(version, (v) =>
        andThen(keyPart, (k) => answerTagged(request, reply, corpusTag(v, k, request.url))),
      );
    };

    // A callback hook: the usual request passes without a promise; an answered one ends the chain (no done).
    app.addHook('preHandler', (request, reply, done) => {
      settle(
        () => gate(request, reply),
        (outcome) => {
          if (outcome === 'pass') done();
        },
        done,
      );
    });
  },
  { name: 'quota-gate', dependencies: ['parameters-gate'] },
);
