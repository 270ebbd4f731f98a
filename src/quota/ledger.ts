/**
 * One node's share of the monthly request quotas. A limited quota is admitted from blocks leased from
 * the database (usage-store.ts: one conditional UPDATE per block, never past the limit, smaller near
 * it), so an admission is a counter in memory. Each admission is a hold that becomes used only when its
 * 2xx answer has been sent (or its receipt recorded), and is freed when the answer is not 2xx, is an
 * idempotent replay, or the connection closes first. Every `REPORT_MS` the node reports what it used
 * (one UPDATE per key) and gives back what it holds unused once a key has been idle `idleReturnMs`, its
 * month has ended, or the node stops. Unmetered quotas lease nothing: answered requests are reported.
 *
 * Bounds: a node leases only when it has no unit free, so per key and month its unused units plus its
 * holds in flight are at most B plus the holds that were in flight when it last leased. A node killed
 * with SIGKILL leaves its lease counted: an over-count of those (≤ B + its requests in flight for the
 * key, none of which got an answer), and never an under-count: what it answered and had not yet
 * reported is in the lease too.
 *
 * A key's plan can change while it is in use: the first admission under the new limit retires the old entry
 * (its unused units go back at once, its holds settle and are reported as usual) and leases under the new one.
 */
import { usageMonth } from '../domain/meters.ts';
import type { LeaseRule } from '../domain/quota-lease.ts';
import type { Store } from '../store/database.ts';

/**
 * A request's unit of its key's monthly request quota, taken before the handler. It becomes used when a 2xx
 * answer has been sent in full, and is freed when the answer is anything else, is waived, or the connection
 * closes before the answer was sent — unless it was kept.
 */
export interface QuotaHold {
  /** The connection closed before an answer was sent: nothing should be recorded for this request. */
  readonly abandoned: boolean;
  /** Frees the unit although the answer is 2xx (an idempotent replay is free). */
  waive(): void;
  /** Uses the unit even if the answer is never received (a receipt was recorded: it can be read back). */
  keep(): void;
  /** Runs `record` (which may `keep`) with the hold unsettled until it ends, even if the connection closes. */
  recording<T>(record: () => Promise<T>): Promise<T>;
}

/** What a node's ledger has done since it started (totals) and holds now, for the metrics. */
export interface LedgerFigures {
  /** Leases the database granted units to, and leases it refused (the month used up). */
  grantedLeases: number;
  refusedLeases: number;
  /** Units leased, units reported as used, and unused units given back, in all. */
  leasedUnits: number;
  reportedUnits: number;
  returnedUnits: number;
  /** Units leased and not yet reported or given back now, over every entry. */
  heldUnits: number;
  /** Keys' months with an entry now. */
  keys: number;
}

/** How often used requests are reported (and idle leases looked at). */
export const REPORT_MS = 100;

export interface QuotaLedgerOptions {
  rule: LeaseRule;
  /** Unused units of a key are given back once it has had no admission on this node for this long. */
  idleReturnMs: number;
  now: () => Date;
  onError: (error: unknown) => void;
}

/** A key's month on this node. */
interface Entry {
  readonly keyId: string;
  readonly month: string;
  /** The monthly request limit, null when unmetered (nothing is leased). */
  readonly limit: number | null;
  /** Units leased to this node and not yet reported or given back: free + held + unreported. */
  leased: number;
  /** Admissions whose answer is not yet settled. */
  held: number;
  /** Admissions answered (used) and not yet reported. */
  unreported: number;
  /** When the last admission began (ms). */
  lastUse: number;
  /** What remained unleased in the database when last seen: sizes the next block. */
  remaining: number;
  /** A lease in flight, shared by the admissions that wait for it. */
  leasing: Promise<number> | undefined;
  /** Admissions waiting on a lease (the entry is kept while any wait). */
  waiting: number;
  /** The give-back of the entry this one replaced (the key's limit changed): its first lease waits for it. */
  replacing: Promise<void> | undefined;
}

const free = (e: Entry) => e.leased - e.held - e.unreported;
/** Whether the entry can admit one more request now: unmetered, or a unit of its lease free. */
const hasFree = (e: Entry) => e.limit === null || free(e) >= 1;

/** One request's unit: settled once, when its connection has closed and no receipt is being recorded. */
export class LeaseHold implements QuotaHold {
  private settled = false;
  private kept = false;
  private waived = false;
  private recordings = 0;
  /** Undefined while the connection is open; then whether a 2xx answer was sent in full. */
  private answered: boolean | undefined;

  constructor(
    private readonly ledger: QuotaLedger,
    private readonly entry: Entry,
  ) {}

  get abandoned(): boolean {
    return this.answered === false;
  }

  /**
   * What is left of the key's month as this node knows it, this request taken: unleased in the database when
   * last seen, plus this node's free units (other nodes' unused units count as taken). Null when unmetered.
   */
  get remaining(): number | null {
    const e = this.entry;
    return e.limit === null ? null : Math.max(0, Math.min(e.limit, e.remaining + free(e)));
  }

  waive(): void {
    this.waived = true;
  }

  keep(): void {
    this.kept = true;
  }

  async recording<T>(record: () => Promise<T>): Promise<T> {
    this.recordings++;
    try {
      return await record();
    } finally {
      this.recordings--;
      this.settle();
    }
  }

  /** The connection has closed: `sent2xx` when a 2xx answer was handed to the operating system in full. */
  closed(sent2xx: boolean): void {
    this.answered ??= sent2xx;
    this.settle();
  }

  private settle(): void {
    if (this.settled || this.answered === undefined || this.recordings > 0) return;
    this.settled = true;
    this.ledger.settle(this.entry, this.kept || (this.answered && !this.waived));
  }
}

export class QuotaLedger {
  private readonly entries = new Map<string, Entry>();
  /** Entries of a limit that changed (a plan change): holds still settle there, then they are reported and go. */
  private readonly retired = new Set<Entry>();
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private closed = false;
  private readonly totals = {
    grantedLeases: 0,
    refusedLeases: 0,
    leasedUnits: 0,
    reportedUnits: 0,
    returnedUnits: 0,
  };

  constructor(
    private readonly store: Store,
    private readonly options: QuotaLedgerOptions,
  ) {}

  /**
   * Takes one request of the key's month, from this node's lease (leasing a block when it has none free);
   * undefined when the quota is used up. Unmetered (`limit` null) always admits.
   */
  async admit(keyId: string, limit: number | null, month: string): Promise<LeaseHold | undefined> {
    const entry = this.entry(keyId, limit, month);
    return (await this.available(entry, true)) ? new LeaseHold(this, entry) : undefined;
  }

  /** Whether the key's month could take one more request, without taking it (a 304 does not count). */
  wouldAdmit(keyId: string, limit: number | null, month: string): Promise<boolean> {
    return this.available(this.entry(keyId, limit, month), false);
  }

  /** What the ledger has done and holds now. */
  figures(): LedgerFigures {
    let heldUnits = 0;
    for (const e of this.entries.values()) heldUnits += e.leased;
    for (const e of this.retired) heldUnits += e.leased;
    return { ...this.totals, heldUnits, keys: this.entries.size };
  }

  /** Reports every used request and gives back every unused one (the node stops). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    // connections closed with their answers emit `close` on the next tick: settle those holds first
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.allSettled([...this.entries.values()].map((e) => e.leasing));
    await this.sweeping;
    await this.sweep(true);
  }

  /** @internal Called once per hold: used, or freed. A hold settled after `close` stays leased. */
  settle(entry: Entry, used: boolean): void {
    entry.held--;
    if (used) entry.unreported++;
    this.schedule();
  }

  private entry(keyId: string, limit: number | null, month: string): Entry {
    const id = `${keyId}\u0000${month}`;
    let entry = this.entries.get(id);
    let replacing: Promise<void> | undefined;
    if (entry !== undefined && entry.limit !== limit) {
      // The key's plan changed: its unused units go back now, under the limit they were leased under, and
      // the new limit leases afresh once they are back.
      this.retired.add(entry);
      replacing = this.giveBack(entry);
      entry = undefined;
    }
    if (entry === undefined) {
      entry = {
        keyId,
        month,
        limit,
        leased: 0,
        held: 0,
        unreported: 0,
        lastUse: 0,
        remaining: limit ?? 0,
        leasing: undefined,
        waiting: 0,
        replacing,
      };
      this.entries.set(id, entry);
      this.schedule();
    }
    entry.lastUse = this.options.now().getTime();
    return entry;
  }

  /**
   * Whether the entry has a unit free, leasing a block when it has none; false when none remain. `take` holds
   * the unit in the same step as it is seen free (no other admission can see it between).
   */
  private async available(entry: Entry, take: boolean): Promise<boolean> {
    if (hasFree(entry)) {
      if (take) entry.held++;
      return true;
    }
    entry.waiting++;
    try {
      await entry.replacing;
      while (free(entry) < 1) {
        entry.leasing ??= this.lease(entry);
        if ((await entry.leasing) === 0 && free(entry) < 1) return false;
      }
    } finally {
      entry.waiting--;
    }
    if (take) entry.held++;
    return true;
  }

  private async lease(entry: Entry): Promise<number> {
    try {
      const grant = await this.store.usage.leaseRequests(
        entry.keyId,
        entry.month,
        entry.limit!,
        this.options.rule,
        entry.remaining,
      );
      entry.leased += grant.granted;
      entry.remaining = grant.remaining;
      if (grant.granted > 0) this.totals.grantedLeases++;
      else this.totals.refusedLeases++;
      this.totals.leasedUnits += grant.granted;
      return grant.granted;
    } finally {
      entry.leasing = undefined;
    }
  }

  /** Gives back the unused units of a retired entry (its free ones; holds settle and are reported later). */
  private async giveBack(entry: Entry): Promise<void> {
    await entry.leasing?.catch(() => {});
    if (entry.limit === null) return;
    const unused = free(entry);
    if (unused < 1) return;
    entry.leased -= unused;
    try {
      await this.store.usage.settleRequests(entry.keyId, entry.month, 0, unused);
      this.totals.returnedUnits += unused;
    } catch (error) {
      entry.leased += unused;
      this.options.onError(error); // the sweep gives them back
    }
  }

  /** Starts the next report in `REPORT_MS`, unless one is due or in flight (it schedules the next when done). */
  private schedule(): void {
    if (this.timer !== undefined || this.sweeping !== undefined || this.closed) return;
    if (this.entries.size + this.retired.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.sweeping = this.sweep(false).finally(() => {
        this.sweeping = undefined;
        this.schedule();
      });
    }, REPORT_MS);
    this.timer.unref();
  }

  /**
   * Reports each key's used requests and gives back the unused units of keys idle for `idleReturnMs`,
   * of months that have ended, or of every key (`all`, the node stops). The node's counters move
   * before the write and move back if it fails, so admissions meanwhile never take what is given back.
   */
  private async sweep(all: boolean): Promise<void> {
    const now = this.options.now();
    const month = usageMonth(now);
    for (const e of this.retired) {
      if (
        e.held === 0 &&
        e.unreported === 0 &&
        e.leasing === undefined &&
        (e.limit === null || e.leased === 0)
      )
        this.retired.delete(e);
    }
    const entries: [string | undefined, Entry][] = [
      ...this.entries,
      ...[...this.retired].map((e) => [undefined, e] as [undefined, Entry]),
    ];
    for (const [id, e] of entries) {
      const idle =
        all ||
        id === undefined ||
        e.month !== month ||
        now.getTime() - e.lastUse >= this.options.idleReturnMs;
      const used = e.unreported;
      const givenBack = idle && e.limit !== null && e.leasing === undefined ? free(e) : 0;
      if (used === 0 && givenBack === 0) {
        if (
          id !== undefined &&
          idle &&
          e.leased === 0 &&
          e.held === 0 &&
          e.waiting === 0 &&
          e.leasing === undefined
        )
          this.entries.delete(id);
        continue;
      }
      const fromLease = e.limit === null ? 0 : used + givenBack;
      e.unreported -= used;
      e.leased -= fromLease;
      try {
        await this.store.usage.settleRequests(e.keyId, e.month, used, fromLease);
        if (givenBack > 0) e.remaining += givenBack;
        this.totals.reportedUnits += used;
        this.totals.returnedUnits += givenBack;
      } catch (error) {
        e.unreported += used;
        e.leased += fromLease;
        this.options.onError(error);
      }
    }
  }
}
