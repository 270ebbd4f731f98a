/**
 * Monthly usage counters, one column per meter. Admission is one conditional UPDATE that moves the counters
 * only if each limited meter stays within its limit, so two concurrent requests never both take the last
 * unit; a limit constrains only what the request adds. Unmetered usage is added, later and in bulk (`add`).
 */
import { sql, type Transaction } from 'kysely';
import { METERS, type Meter, type Metered } from '../domain/meters.ts';
import type { Engine } from './engine.ts';
import type { Database } from './schema.ts';

/** A monthly limit per meter; `null` is unmetered. */
export type UsageLimits = Record<Meter, number | null>;

const UNLIMITED: UsageLimits = { requests: null, identifiers: null };
const COLUMNS = METERS.join(', ');
const ENSURE_ROW = `INSERT INTO usage (key_id, month, ${COLUMNS}) VALUES (?, ?, ${METERS.map(() => '0').join(', ')}) ON CONFLICT (key_id, month) DO NOTHING`;
const RELEASE = `UPDATE usage SET ${METERS.map((m) => `${m} = ${m} - ?`).join(', ')} WHERE key_id = ? AND month = ?`;
const SELECT = `SELECT ${COLUMNS} FROM usage WHERE key_id = ? AND month = ?`;
/** The conditional update for the meters whose limit applies (the engine prepares each once). */
const reservation = (limited: readonly Meter[]) =>
  `UPDATE usage SET ${METERS.map((m) => `${m} = ${m} + ?`).join(', ')} WHERE key_id = ? AND month = ?` +
  limited.map((m) => ` AND ${m} <= ?`).join('');

export class UsageStore {
  constructor(private readonly engine: Engine) {}

  /** Adds `amount` to the key's month if that keeps it within `limits`; false when it would not. */
  async reserve(keyId: string, month: string, amount: Metered, limits: UsageLimits): Promise<boolean> {
    const limited = METERS.filter((m) => limits[m] !== null && amount[m] > 0);
    const statement = this.engine.prepare(reservation(limited));
    const params: unknown[] = [...METERS.map((m) => amount[m]), keyId, month];
    for (const m of limited) params.push(limits[m]! - amount[m]);
    if ((await statement.run(params)) === 1) return true;
    // No row for this month yet (or the limit was met): make sure the row exists, then try once more.
    await this.engine.prepare(ENSURE_ROW).run([keyId, month]);
    return (await statement.run(params)) === 1;
  }

  /** {@link reserve} inside the caller's transaction: it is kept or given back with the transaction. */
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

  /** Adds usage that no limit governs (an unmetered quota), creating the month's row if needed. */
  async add(keyId: string, month: string, amount: Metered): Promise<void> {
    if (await this.reserve(keyId, month, amount, UNLIMITED)) return;
    throw new Error(`usage of ${keyId} for ${month} could not be recorded`);
  }

  /** Gives back a reservation whose request was not answered 2xx. */
  async release(keyId: string, month: string, amount: Metered): Promise<void> {
    await this.engine.prepare(RELEASE).run([...METERS.map((m) => amount[m]), keyId, month]);
  }

  async get(keyId: string, month: string): Promise<Metered> {
    const [row] = await this.engine.prepare<Metered>(SELECT).all([keyId, month]);
    const used = {} as Metered;
    for (const m of METERS) used[m] = row === undefined ? 0 : Number(row[m]);
    return used;
  }
}
