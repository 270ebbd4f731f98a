/**
 * Named leases in the database so two ingest runs never overlap, on one machine or many: a compare-and-swap
 * on the row; a lease whose holder died (expired, or its process gone from this host) can be taken over.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export interface LeaseHolder {
  holder: string;
  acquiredAt: string;
  expiresAt: string;
}

export class LocksStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Takes `name` for `holder` until `expiresAt`; `isStale` judges a current holder, returned if taken. */
  async acquire(
    name: string,
    holder: string,
    now: Date,
    ttlMs: number,
    isStale: (holder: string) => boolean,
  ): Promise<{ acquired: true } | { acquired: false; by: LeaseHolder }> {
    const acquiredAt = now.toISOString();
    const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
    const inserted = await this.db
      .insertInto('locks')
      .values({ name, holder, acquired_at: acquiredAt, expires_at: expiresAt })
      .onConflict((oc) => oc.column('name').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { acquired: true };
    const current = await this.db.selectFrom('locks').selectAll().where('name', '=', name).executeTakeFirst();
    if (current === undefined) return this.acquire(name, holder, now, ttlMs, isStale);
    if (current.expires_at > acquiredAt && !isStale(current.holder)) {
      return {
        acquired: false,
        by: { holder: current.holder, acquiredAt: current.acquired_at, expiresAt: current.expires_at },
      };
    }
    const taken = await this.db
      .updateTable('locks')
      .set({ holder, acquired_at: acquiredAt, expires_at: expiresAt })
      .where('name', '=', name)
      .where('holder', '=', current.holder)
      .where('acquired_at', '=', current.acquired_at)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) === 1) return { acquired: true };
    const winner = await this.db
      .selectFrom('locks')
      .selectAll()
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return {
      acquired: false,
      by: { holder: winner.holder, acquiredAt: winner.acquired_at, expiresAt: winner.expires_at },
    };
  }

  /** Extends a lease still held by `holder`; false when it was lost. */
  async renew(name: string, holder: string, expiresAt: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('locks')
      .set({ expires_at: expiresAt.toISOString() })
      .where('name', '=', name)
      .where('holder', '=', holder)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async release(name: string, holder: string): Promise<void> {
    await this.db.deleteFrom('locks').where('name', '=', name).where('holder', '=', holder).execute();
  }
}
