/**
 * Gate 4, conditional GET and the monthly quota (304 / 402). Each request on a valid key takes one unit
 * of its month from this node's lease (quota-ledger.ts), settled when its connection closes: used if a
 * 2xx was sent, freed otherwise. A 304 does not count but must be within the quota: one decided here
 * takes nothing, one made from the handler's 200 frees its unit.
 */
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
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
    const isTagged = (request: FastifyRequest) => {
      const mode = request.routeOptions.config.etag;
      return (
        (request.method === 'GET' || request.method === 'HEAD') &&
        (mode === 'corpus' || mode === 'corpus-key')
      );
    };
    const admitted = (reply: FastifyReply, hold: LeaseHold) => {
      reply.request.quotaHold = hold;
      settleOnClose(reply, hold);
    };

    /**
     * The gate without a promise, for the usual request: its corpus version known, no receipt in its tag, a
     * unit free on this node. 'slow' when something must be awaited: nothing is taken or answered then, and
     * the full gate runs from the start (setting the same ETag again).
     */
    const gateNow = (request: FastifyRequest, reply: FastifyReply): 'pass' | 'answered' | 'slow' => {
      const { auth } = request;
      if (isTagged(request)) {
        const version = request.corpusVersion;
        if (version === undefined || request.routeOptions.config.etag === 'corpus-key') return 'slow';
        const entry = corpusTag(version, '', request.url);
        const notModified = entry.answered && matchesIfNoneMatch(request.headers['if-none-match'], entry.tag);
        if (notModified && auth.state === 'valid') {
          const month = usageMonth(now());
          if (ledger.wouldAdmitNow(auth.key.id, auth.plan.perMonth.requests, month) === undefined)
            return 'slow';
        }
        request.corpusTag = entry;
        reply.header('ETag', entry.tag);
        if (notModified) {
          reply.code(304).send();
          return 'answered';
        }
      }
      if (auth.state !== 'valid') return 'pass';
      const hold = ledger.admitNow(auth.key.id, auth.plan.perMonth.requests, usageMonth(now()));
      if (hold === undefined) return 'slow';
      admitted(reply, hold);
      return 'pass';
    };

    /** The gate in full: reads the corpus version or the key's newest receipt, waits for a lease. */
    const gate = async (request: FastifyRequest, reply: FastifyReply): Promise<'pass' | 'answered'> => {
      const { auth } = request;
      const mode = request.routeOptions.config.etag;
      if (isTagged(request)) {
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
          reply.code(304).send();
          return 'answered';
        }
      }
      if (auth.state !== 'valid') return 'pass';
      const month = usageMonth(now());
      const hold = await ledger.admit(auth.key.id, auth.plan.perMonth.requests, month);
      if (hold === undefined) throw quotaExceeded(auth.plan, month, ONE_REQUEST);
      admitted(reply, hold);
      return 'pass';
    };

    // A callback hook: the usual request passes without a promise; an answered one ends the chain (no done).
    app.addHook('preHandler', (request, reply, done) => {
      const outcome = gateNow(request, reply);
      if (outcome === 'pass') return done();
      if (outcome === 'answered') return;
      gate(request, reply).then((settled) => {
        if (settled === 'pass') done();
      }, done);
    });
  },
  { name: 'quota-gate', dependencies: ['parameters-gate'] },
);
