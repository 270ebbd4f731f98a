/**
 * Monthly usage counters, one column per meter, and the requests API nodes hold leased.
 *
 * Requests are admitted from blocks that each node leases by one conditional UPDATE, granted only
 * while used + leased stays within the limit and the block is what the lease rule allows for what
 * remains; a node reports what it used and gives back what it did not in one UPDATE. So the
 * database never lets two nodes together admit past a limit, and `requests + requests_leased` is
 * what a month has taken from its quota. Identifiers are charged with their receipt (`reserveIn`).
 */
import { sql, type Transaction } from 'kysely';
import { METERS, type Meter, type Metered } from '../domain/meters.ts';
import { leaseBlock, remainingNeeded, type LeaseRule } from '../domain/quota-lease.ts';
import type { Engine, Prepared } from './engine.ts';
import type { Database } from './schema.ts';

/** A monthly limit per meter; `null` is unmetered. */
export type UsageLimits = Record<Meter, number | null>;

/**
 * A key's month as the database has it. `used`: answered and reported by their node (within 100 ms of
 * the answer, at once when the node stops). `leasedRequests`: held by nodes — their unused units and
 * what they have answered but not yet reported; a node killed with SIGKILL leaves its lease here for
 * the rest of the month. What the month has taken from the request quota is `used.requests +
 * leasedRequests`; with every node settled (idle, stopped) `leasedRequests` is 0 and `used` is exact.
 */
export interface UsageStanding {
  used: Metered;
  leasedRequests: number;
}

/** A block of requests granted to a node, and what remained unleased after it (0 when refused). */
export interface LeaseGrant {
  granted: number;
  remaining: number;
}

const COLUMNS = METERS.join(', ');
const ENSURE_ROW = `INSERT INTO usage (key_id, month, ${COLUMNS}) VALUES (?, ?, ${METERS.map(() => '0').join(', ')}) ON CONFLICT (key_id, month) DO NOTHING`;
const SELECT = `SELECT ${COLUMNS}, requests_leased FROM usage WHERE key_id = ? AND month = ?`;
/** Leases `block` if at least `needed` requests remain neither used nor leased under the limit. */
const LEASE =
  'UPDATE usage SET requests_leased = requests_leased + ? WHERE key_id = ? AND month = ?' +
  ' AND CAST(? AS bigint) - requests - requests_leased >= ? RETURNING requests, requests_leased';
/** Moves reported requests from leased to used and gives back unused ones (unmetered: nothing leased). */
const SETTLE =
  'UPDATE usage SET requests = requests + ?, requests_leased = requests_leased - ? WHERE key_id = ? AND month = ?';
/** Attempts at the rule's block before leasing single units, which only an exhausted quota refuses. */
const SIZED_ATTEMPTS = 4;

interface Counters {
  requests: number | string;
  identifiers: number | string;
  requests_leased: number | string;
}

export class UsageStore {
  constructor(private readonly engine: Engine) {}

  /**
   * Leases a block of the key's monthly requests under `limit`, sized by `rule` from what remains
   * (`hint`: what remained when the caller last looked; a stale hint costs one more statement, never
   * a larger block). One conditional UPDATE when the hint is right; granted 0 when none remain.
   */
  async leaseRequests(
    keyId: string,
    month: string,
    limit: number,
    rule: LeaseRule,
    hint: number,
  ): Promise<LeaseGrant> {
    const lease = this.engine.prepare<Counters>(LEASE);
    let remaining = hint;
    for (let attempt = 0; ; attempt++) {
      const block = attempt < SIZED_ATTEMPTS ? Math.max(1, leaseBlock(remaining, rule)) : 1;
      const params = [block, keyId, month, limit, remainingNeeded(block, rule)];
      const [row] = await this.engine.withoutStall(() => lease.all(params));
      if (row !== undefined)
        return { granted: block, remaining: limit - Number(row.requests) - Number(row.requests_leased) };
      const now = await this.standing(keyId, month, true);
      remaining = limit - now.used.requests - now.leasedRequests;
      if (remaining < 1) return { granted: 0, remaining: Math.max(0, remaining) };
    }
  }

  /**
   * Adds `used` requests to the month and takes `fromLease` off what is leased: a node's report of
   * what it answered (`fromLease = used + given back`), or unmetered usage (`fromLease = 0`).
   */
  async settleRequests(keyId: string, month: string, used: number, fromLease: number): Promise<void> {
    const settle = this.engine.prepare(SETTLE);
    const params = [used, fromLease, keyId, month];
    const run = (statement: Prepared<unknown>, values: readonly unknown[]) =>
      this.engine.withoutStall(() => statement.run(values));
    if ((await run(settle, params)) === 1) return;
    await run(this.engine.prepare(ENSURE_ROW), [keyId, month]);
    if ((await run(settle, params)) !== 1)
      throw new Error(`usage of ${keyId} for ${month} could not be recorded`);
  }

  /**
   * Adds `amount` (a check's identifiers) to the key's month inside the caller's transaction if that
   * keeps each limited meter of it within its limit; false when it would not. It is kept or given back
   * with the transaction: a receipt is committed with its charge.
   */
  async reserveIn(
    trx: Transaction<Database>,
    keyId: string,
    month: string,
    amount: Metered,
    limits: UsageLimits,
  ): Promise<boolean> {
    const set = sql.join(METERS.map((m) => sql`${sql.ref(m)} = ${sql.ref(m)} + ${amount[m]}`));
    const within = METERS.filter((m) => limits[m] !== null && amount[m] > 0).map(
      (m) => sql` AND ${sql.ref(m)} <= ${limits[m]! - amount[m]}`,
    );
    const update = sql`UPDATE usage SET ${set} WHERE key_id = ${keyId} AND month = ${month}${sql.join(within, sql``)}`;
    if (Number((await update.execute(trx)).numAffectedRows ?? 0) === 1) return true;
    await sql`INSERT INTO usage (key_id, month, ${sql.raw(COLUMNS)}) VALUES (${keyId}, ${month}, ${sql.join(METERS.map(() => 0))}) ON CONFLICT (key_id, month) DO NOTHING`.execute(
      trx,
    );
    return Number((await update.execute(trx)).numAffectedRows ?? 0) === 1;
  }

  /** What the key's month has used (answered and reported by its node; see {@link UsageStanding}). */
  async get(keyId: string, month: string): Promise<Metered> {
    return (await this.standing(keyId, month)).used;
  }

  /** The key's month: used, and what nodes hold leased. `ensure` creates the month's row if missing. */
  async standing(keyId: string, month: string, ensure = false): Promise<UsageStanding> {
    let [row] = await this.engine.prepare<Counters>(SELECT).all([keyId, month]);
    if (row === undefined && ensure) {
      await this.engine.withoutStall(() => this.engine.prepare(ENSURE_ROW).run([keyId, month]));
      [row] = await this.engine.prepare<Counters>(SELECT).all([keyId, month]);
    }
    const used = {} as Metered;
    for (const m of METERS) used[m] = row === undefined ? 0 : Number(row[m]);
    return { used, leasedRequests: row === undefined ? 0 : Number(row.requests_leased) };
  }
}
