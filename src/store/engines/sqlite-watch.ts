/**
 * How a SQLite node learns that another process moved the shared state (store-state.ts): by every request that
 * starts DATA_VERSION_EVERY_MS after the commit. `PRAGMA data_version` of each file differs once another
 * connection has committed; checked on a use at most that often, it differs, and that use reads the row.
 */
import type { StoreState } from '../store-state.ts';
import { StateReads } from '../state-reads.ts';

/**
 * How long one check of `PRAGMA data_version` stands for. The check reads no page but takes the WAL's
 * shared-memory lock (two fcntl calls and a stat, ~4 µs, more on a busy machine): once a millisecond instead of
 * once a request.
 */
export const DATA_VERSION_EVERY_MS = 1;

/** `signal`: both files' `PRAGMA data_version`, read without reading a page. */
export class SqliteStateWatch extends StateReads<() => string> {
  override current(): StoreState | Promise<StoreState> {
    const now = this.clock();
    const fresh = this.fresh;
    if (fresh && now - this.confirmedAt < DATA_VERSION_EVERY_MS) return this.state!;
    const dataVersion = this.signal();
    if (!fresh || dataVersion !== this.confirmedTag) return this.read(dataVersion);
    this.confirmedAt = now; // nobody else has committed since the state was read
    return this.state!;
  }
}
