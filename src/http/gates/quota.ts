/** Monthly quotas: reserve before the handler, give back what was not answered 2xx. */
import type { Plan } from '../../config.ts';
import type { Store } from '../../store/database.ts';
import type { QuotaHold } from '../context.ts';
import { ProblemError } from '../problems.ts';

/** The calendar month in UTC, `YYYY-MM`. */
export function usageMonth(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** Reserves usage for a key or throws quota-exceeded; returns the hold to release on failure. */
export async function reserveQuota(
  store: Store,
  keyId: string,
  plan: Plan,
  now: Date,
  amount: { requests: number; identifiers: number },
): Promise<QuotaHold> {
  const month = usageMonth(now);
  const ok = await store.usage.reserve(keyId, month, amount, {
    requests: plan.requestsPerMonth,
    identifiers: plan.identifiersPerMonth,
  });
  if (!ok) {
    const what =
      amount.identifiers > 0
        ? `checking ${amount.identifiers} identifiers would exceed the ${plan.id} plan's ${plan.identifiersPerMonth} identifiers`
        : `the ${plan.id} plan's ${plan.requestsPerMonth} requests are used up`;
    throw new ProblemError('quota-exceeded', `Monthly quota exhausted: ${what} for ${month} (UTC).`);
  }
  return {
    keyId,
    month,
    requests: amount.requests,
    identifiers: amount.identifiers,
    deferredRequests: 0,
    refund: false,
  };
}

/**
 * Admits one request. With a request quota, one conditional update reserves it (exact across
 * nodes); without one (unmetered) nothing can refuse it, so nothing is written now and the
 * request is counted once it has been answered 2xx.
 */
export async function admitRequest(store: Store, keyId: string, plan: Plan, now: Date): Promise<QuotaHold> {
  if (plan.requestsPerMonth === null) {
    return { keyId, month: usageMonth(now), requests: 0, identifiers: 0, deferredRequests: 1, refund: false };
  }
  return reserveQuota(store, keyId, plan, now, { requests: 1, identifiers: 0 });
}

/**
 * Whether one more request would be admitted, without taking it: for answers that do not count
 * (a 304), which must still meet the quota gate.
 */
export async function wouldAdmit(store: Store, keyId: string, plan: Plan, now: Date): Promise<void> {
  if (plan.requestsPerMonth === null) return;
  const month = usageMonth(now);
  const used = await store.usage.get(keyId, month);
  if (used.requests + 1 > plan.requestsPerMonth) {
    throw new ProblemError(
      'quota-exceeded',
      `Monthly quota exhausted: the ${plan.id} plan's ${plan.requestsPerMonth} requests are used up for ${month} (UTC).`,
    );
  }
}

export async function releaseQuota(store: Store, hold: QuotaHold): Promise<void> {
  await store.usage.release(hold.keyId, hold.month, {
    requests: hold.requests,
    identifiers: hold.identifiers,
  });
}
