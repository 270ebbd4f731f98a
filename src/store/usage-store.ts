/**
 * Monthly usage counters. Admission is one conditional UPDATE: the counter moves only if the
 * result stays within the limit, so two concurrent requests can never both take the last unit.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export interface UsageAmount {
  requests: number;
  identifiers: number;
}

export interface UsageLimits {
  requests: number | null;
  identifiers: number | null;
}

export class UsageStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Adds `amount` to the key's month if that keeps it within `limits`; false when it would not. */
  async reserve(keyId: string, month: string, amount: UsageAmount, limits: UsageLimits): Promise<boolean> {
    const attempt = async () => {
      let q = this.db
        .updateTable('usage')
        .set((eb) => ({
          requests: eb('requests', '+', amount.requests),
          identifiers: eb('identifiers', '+', amount.identifiers),
        }))
        .where('key_id', '=', keyId)
        .where('month', '=', month);
      if (limits.requests !== null) q = q.where('requests', '<=', limits.requests - amount.requests);
      if (limits.identifiers !== null)
        q = q.where('identifiers', '<=', limits.identifiers - amount.identifiers);
      const result = await q.executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    };
    if (await attempt()) return true;
    // No row for this month yet (or the limit was met): make sure the row exists, then try once more.
    await this.db
      .insertInto('usage')
      .values({ key_id: keyId, month, requests: 0, identifiers: 0 })
      .onConflict((oc) => oc.columns(['key_id', 'month']).doNothing())
      .execute();
    return attempt();
  }

  /** Gives back a reservation whose request was not answered 2xx. */
  async release(keyId: string, month: string, amount: UsageAmount): Promise<void> {
    await this.db
      .updateTable('usage')
      .set((eb) => ({
        requests: eb('requests', '-', amount.requests),
        identifiers: eb('identifiers', '-', amount.identifiers),
      }))
      .where('key_id', '=', keyId)
      .where('month', '=', month)
      .execute();
  }

  async get(keyId: string, month: string): Promise<UsageAmount> {
    const row = await this.db
      .selectFrom('usage')
      .select(['requests', 'identifiers'])
      .where('key_id', '=', keyId)
      .where('month', '=', month)
      .executeTakeFirst();
    return row ?? { requests: 0, identifiers: 0 };
  }
}
