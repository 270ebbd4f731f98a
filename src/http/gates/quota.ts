/**
 * Gate 4, conditional GET and the monthly quota (304 / 402). Each request on a valid key takes one unit
 * of its month from this node's lease (quota-ledger.ts), settled when its connection closes: used if a
 * 2xx was sent, freed otherwise. A 304 does not count but must be within the quota: one decided here
 * takes nothing, one made from the handler's 200 frees its unit.
 */
import fp from 'fastify-plugin';
import type { FastifyReply } from 'fastify';
import type { Plan } from '../../config.ts';
import { usageMonthKeeper, type Metered } from '../../domain/meters.ts';
import { LEASE_SHARE } from '../../domain/quota-lease.ts';
import type { AppDeps } from '../context.ts';
import { ProblemError } from '../problems.ts';
import { QuotaLedger, type LeaseHold } from '../quota-ledger.ts';
import { corpusVersionOf } from '../route-context.ts';
import { corpusTagCache, matchesIfNoneMatch } from './etag.ts';

const ONE_REQUEST: Metered = { requests: 1, identifiers: 0 };

/** The 402 of a reservation of `amount` that the plan's month does not allow. */
export function quotaExceeded(plan: Plan, month: string, amount: Metered): ProblemError {
  const what =
    amount.identifiers > 0
      ? `checking ${amount.identifiers} identifiers would exceed the ${plan.id} plan's ${plan.perMonth.identifiers} identifiers`
      : `the ${plan.id} plan's ${plan.perMonth.requests} requests are used up`;
  return new ProblemError('quota-exceeded', `Monthly quota exhausted: ${what} for ${month} (UTC).`);
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
export const quotaGate = fp<{ deps: AppDeps; now: () => Date }>(
  async (app, { deps, now }) => {
    const corpusTag = corpusTagCache();
    const usageMonth = usageMonthKeeper();
    const ledger = new QuotaLedger(deps.store, {
      rule: { maxBlock: deps.config.quota.leaseBlock, share: LEASE_SHARE },
      idleReturnMs: deps.config.quota.idleReturnMs,
      now,
      onError: (err) => app.log.error({ err }, 'usage report failed'),
    });
    app.addHook('onClose', () => ledger.close());
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
          if (auth.state === 'valid') {
            const month = usageMonth(now());
            if (!(await ledger.wouldAdmit(auth.key.id, auth.plan.perMonth.requests, month)))
              throw quotaExceeded(auth.plan, month, ONE_REQUEST);
          }
          return reply.code(304).send();
        }
      }
      if (auth.state !== 'valid') return;
      const month = usageMonth(now());
      const hold = await ledger.admit(auth.key.id, auth.plan.perMonth.requests, month);
      if (hold === undefined) throw quotaExceeded(auth.plan, month, ONE_REQUEST);
      request.quotaHold = hold;
      settleOnClose(reply, hold);
    });
  },
  { name: 'quota-gate', dependencies: ['parameters-gate'] },
);
