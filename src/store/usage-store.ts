/**
 * Monthly usage counters. Admission is one conditional UPDATE: the counter moves only if the
 * result stays within the limit, so two concurrent requests can never both take the last unit.
 * Each limit constrains only what the request adds: a request that adds no identifiers is never
 * refused for the identifier quota. Usage that no limit governs (an unmetered quota) is simply
 * added, and may be added later and in bulk (`add`).
 */
import type { Engine } from './engine.ts';

export interface UsageAmount {
  requests: number;
  identifiers: number;
}

export interface UsageLimits {
  requests: number | null;
  identifiers: number | null;
}

export class UsageStore {
  constructor(private readonly engine: Engine) {}

  /** The conditional update for the limits that apply (prepared once per combination). */
  private reservation(requestsLimited: boolean, identifiersLimited: boolean) {
    return this.engine.prepare(
      'UPDATE usage SET requests = requests + ?, identifiers = identifiers + ? WHERE key_id = ? AND month = ?' +
        (requestsLimited ? ' AND requests <= ?' : '') +
        (identifiersLimited ? ' AND identifiers <= ?' : ''),
    );
  }

  private ensureRow() {
    return this.engine.prepare(
      'INSERT INTO usage (key_id, month, requests, identifiers) VALUES (?, ?, 0, 0) ON CONFLICT (key_id, month) DO NOTHING',
    );
  }

  /** Adds `amount` to the key's month if that keeps it within `limits`; false when it would not. */
  async reserve(keyId: string, month: string, amount: UsageAmount, limits: UsageLimits): Promise<boolean> {
    const requestsLimited = limits.requests !== null && amount.requests > 0;
    const identifiersLimited = limits.identifiers !== null && amount.identifiers > 0;
    const statement = this.reservation(requestsLimited, identifiersLimited);
    const params: unknown[] = [amount.requests, amount.identifiers, keyId, month];
    if (requestsLimited) params.push(limits.requests! - amount.requests);
    if (identifiersLimited) params.push(limits.identifiers! - amount.identifiers);
    if ((await statement.run(params)) === 1) return true;
    // No row for this month yet (or the limit was met): make sure the row exists, then try once more.
    await this.ensureRow().run([keyId, month]);
    return (await statement.run(params)) === 1;
  }

  /** Adds usage that no limit governs (an unmetered quota), creating the month's row if needed. */
  async add(keyId: string, month: string, amount: UsageAmount): Promise<void> {
    if (await this.reserve(keyId, month, amount, { requests: null, identifiers: null })) return;
    throw new Error(`usage of ${keyId} for ${month} could not be recorded`);
  }

  /** Gives back a reservation whose request was not answered 2xx. */
  async release(keyId: string, month: string, amount: UsageAmount): Promise<void> {
    await this.engine
      .prepare(
        'UPDATE usage SET requests = requests - ?, identifiers = identifiers - ? WHERE key_id = ? AND month = ?',
      )
      .run([amount.requests, amount.identifiers, keyId, month]);
  }

  async get(keyId: string, month: string): Promise<UsageAmount> {
    const [row] = await this.engine
      .prepare<UsageAmount>('SELECT requests, identifiers FROM usage WHERE key_id = ? AND month = ?')
      .all([keyId, month]);
    return row === undefined
      ? { requests: 0, identifiers: 0 }
      : { requests: Number(row.requests), identifiers: Number(row.identifiers) };
  }
}
