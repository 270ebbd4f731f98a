/**
 * Unmetered usage, recorded off the request's path: summed in memory per key and month, written in one update
 * per key every `intervalMs` and on close. Limited quotas are still reserved before the handler, so batching
 * only delays the count (SIGKILL loses at most one interval's counts, SIGTERM none).
 */
import { METERS, type Metered } from '../domain/meters.ts';
import type { Store } from '../store/database.ts';

export class UsageRecorder {
  private pending = new Map<string, { keyId: string; month: string; amount: Metered }>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly onError: (error: unknown) => void,
    private readonly intervalMs = 100,
  ) {}

  /** Adds `amount` to the key's month, to be written with the next flush. */
  record(keyId: string, month: string, amount: Metered): void {
    const k = `${keyId}\u0000${month}`;
    const entry = this.pending.get(k);
    if (entry === undefined) this.pending.set(k, { keyId, month, amount: { ...amount } });
    else for (const m of METERS) entry.amount[m] += amount[m];
    if (this.timer === undefined) {
      this.timer = setTimeout(() => void this.flush(), this.intervalMs);
      this.timer.unref();
    }
  }

  /** Writes everything recorded so far; what fails to be written is kept for the next flush. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.timer !== undefined) clearTimeout(this.timer);
      this.timer = undefined;
      const batch = [...this.pending.values()];
      this.pending.clear();
      for (const e of batch) {
        try {
          await this.store.usage.add(e.keyId, e.month, e.amount);
        } catch (error) {
          this.onError(error);
          this.record(e.keyId, e.month, e.amount);
        }
      }
    });
    return this.flushing;
  }
}
