/**
 * Stage 4, the monthly quota (402): each request on a valid key takes one unit of its month from this node's
 * lease (quota/ledger.ts), settled when its connection closes: used if a 2xx was sent in full, freed otherwise
 * (a 304 made from the handler's 200 frees its unit).
 */
import fp from 'fastify-plugin';
import type { FastifyReply } from 'fastify';
import type { Plan } from '../../config.ts';
import { QuotaExceeded } from '../../domain/errors.ts';
import { usageMonth } from '../../domain/meters.ts';
import type { LeaseHold, QuotaLedger } from '../../quota/ledger.ts';
import { monthlyFields } from '../rate-limit-fields.ts';

/** Settles the hold when the connection closes: used when a 2xx answer was sent in full. */
function settleOnClose(reply: FastifyReply, hold: LeaseHold): void {
  const res = reply.raw;
  const settle = () => hold.closed(res.writableFinished && reply.statusCode >= 200 && reply.statusCode < 300);
  if (res.destroyed) settle();
  else res.once('close', settle);
}

/**
 * Refuses (402) a request on a key whose month is used up: here when the lease has no unit left for it, and
 * for a 304 answered at once before this stage (conditional.ts), which takes none of the month.
 */
export function refuseUsedUpMonth(plan: Plan, month: string): never {
  throw new QuotaExceeded(plan, month, { requests: 1, identifiers: 0 });
}

/** Takes a unit of the key's month for each request on a valid key, settled when its connection closes. */
export const quotaGate = fp<{ ledger: QuotaLedger; now: () => Date }>(
  async (app, { ledger, now }) => {
    app.decorateRequest('quotaHold', undefined);
    app.addHook('preHandler', async (request, reply) => {
      const { auth } = request;
      if (auth.state !== 'valid') return;
      const at = now();
      const month = usageMonth(at);
      const limit = auth.plan.perMonth.requests;
      const hold = await ledger.admit(auth.key.id, limit, month);
      if (limit !== null) monthlyFields(reply, 'month', limit, hold?.remaining ?? 0, at);
      if (hold === undefined) refuseUsedUpMonth(auth.plan, month);
      request.quotaHold = hold;
      settleOnClose(reply, hold);
    });
  },
  { name: 'quota-gate' },
);
