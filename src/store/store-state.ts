/**
 * The shared state every node keeps in memory — the corpus version and the keys version — so that a request
 * reads neither, and how a node learns that it moved:
 * - a write through this store: at once (`invalidate` after the commit; the next use reads the row);
 * - SQLite, another process's commit: by every request that starts DATA_VERSION_EVERY_MS after it
 *   (`PRAGMA data_version`, checked on a use at most that often, differs; that use reads the row);
 * - PostgreSQL, another node's or process's commit: a trigger NOTIFYs each change to every node's listener
 *   (milliseconds). When a notification is lost (listener killed, network), the row is read on the listener's
 *   reconnection and by a poll every STATE_POLL_MS, and state that no read started within the last
 *   STATE_BOUND_MS confirms is read again before it is used: a change committed is seen by every node for
 *   every request that starts STATE_BOUND_MS after the commit, whatever happens to notifications.
 */
import type { Transaction } from 'kysely';
import { compile } from './compiled.ts';
import { STATE_CHANNEL, type CommitSignal, type Engine } from './engine.ts';
import type { Database } from './schema.ts';

/** The store's shared state, as of some commit. */
export interface StoreState {
  /** The corpus version: moves when a corpus-backed body would change (records, revisions, sources served). */
  version: number;
  /** Moves on every change to API keys. */
  keysVersion: number;
}

/**
 * On SQLite, how long one check of `PRAGMA data_version` stands for. The check reads no page but takes the
 * WAL's shared-memory lock (two fcntl calls and a stat, ~4 µs, more on a busy machine): once a millisecond
 * instead of once a request.
 */
export const DATA_VERSION_EVERY_MS = 1;

/** On PostgreSQL, state no read started within this many milliseconds confirms is read again before use. */
export const STATE_BOUND_MS = 1000;

/** On PostgreSQL, how often each node reads the state row, in case a notification was lost. */
export const STATE_POLL_MS = 250;

/** Moves the corpus version in the caller's transaction, which changes something a corpus-backed body serves. */
export async function moveCorpusVersion(trx: Transaction<Database>, at: string): Promise<void> {
  await trx
    .updateTable('corpus_state')
    .set((eb) => ({ version: eb('version', '+', 1), updated_at: at }))
    .where('id', '=', 1)
    .execute();
}

/** A read of the state row in flight. */
interface Reading {
  key: string;
  startedAt: number;
  done: Promise<StoreState>;
}

export class StoreStateWatch {
  private state: StoreState | undefined;
  /** Moved by each local write: a read started before it no longer confirms the state. */
  private epoch = 0;
  private confirmedEpoch = -1;
  /** When (on `clock`) the state was last known to be current: a read started, or data_version unchanged. */
  private confirmedAt = -Infinity;
  /** SQLite: both files' `PRAGMA data_version` when the state was last read. */
  private seenDataVersion: string | undefined;
  private reading: Reading | undefined;
  private stopWatching: (() => Promise<void>) | undefined;
  private stopped = false;
  private readonly readRow: () => Promise<StoreState>;

  /** @param clock milliseconds, monotonic (the PostgreSQL bound is measured on it) */
  constructor(
    private readonly engine: Engine,
    private readonly clock: () => number = () => performance.now(),
  ) {
    const row = compile(engine, () =>
      engine.db
        .selectFrom('corpus_state')
        .innerJoin('keys_state', 'keys_state.id', 'corpus_state.id')
        .select(['corpus_state.version', 'keys_state.keys_version'])
        .where('corpus_state.id', '=', 1),
    );
    this.readRow = async () => {
      const [r] = await row.all({});
      if (r === undefined) throw new Error('corpus_state or keys_state has no row');
      return { version: Number(r.version), keysVersion: Number(r.keys_version) };
    };
  }

  /** The state: from memory while nothing says it moved, else read (one query, shared by concurrent uses). */
  current(): StoreState | Promise<StoreState> {
    const { commits } = this.engine;
    const now = this.clock();
    const fresh = this.state !== undefined && this.confirmedEpoch === this.epoch;
    if (commits.kind === 'data-version') {
      if (fresh && now - this.confirmedAt < DATA_VERSION_EVERY_MS) return this.state!;
      const dataVersion = commits.read();
      if (!fresh || dataVersion !== this.seenDataVersion) return this.read(dataVersion);
      this.confirmedAt = now; // nobody else has committed since the state was read
      return this.state!;
    }
    if (!this.stopped) this.stopWatching ??= this.watch(commits);
    return fresh && now - this.confirmedAt <= STATE_BOUND_MS ? this.state! : this.read();
  }

  /** Called after a write through this store that may have moved the state: the next use reads it. */
  invalidate(): void {
    this.epoch++;
  }

  /** Stops listening and polling (PostgreSQL). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.stopWatching?.();
  }

  private read(dataVersion?: string): Promise<StoreState> {
    const epoch = this.epoch;
    const key = `${epoch} ${dataVersion}`;
    const startedAt = this.clock();
    const r = this.reading;
    if (r?.key === key && startedAt - r.startedAt <= STATE_BOUND_MS) return r.done;
    const done = this.readRow().then(
      (row) => {
        this.adopt(row);
        if (epoch === this.epoch) {
          this.confirmedEpoch = epoch;
          this.confirmedAt = Math.max(this.confirmedAt, startedAt);
          if (dataVersion !== undefined) this.seenDataVersion = dataVersion;
        }
        if (this.reading?.done === done) this.reading = undefined;
        return this.state!;
      },
      (error: unknown) => {
        if (this.reading?.done === done) this.reading = undefined;
        throw error;
      },
    );
    this.reading = { key, startedAt, done };
    return done;
  }

  /** Takes what is newer: both numbers only ever move up. */
  private adopt(seen: StoreState): void {
    const s = this.state;
    this.state =
      s === undefined
        ? seen
        : {
            version: Math.max(s.version, seen.version),
            keysVersion: Math.max(s.keysVersion, seen.keysVersion),
          };
  }

  private watch(commits: Extract<CommitSignal, { kind: 'notify' }>): () => Promise<void> {
    const background = () => void this.read().catch(() => {}); // the deadline makes a request read instead
    const stopListening = commits.listen(STATE_CHANNEL, (payload) => {
      const m = payload === undefined ? null : /^(\d+) (\d+)$/.exec(payload);
      if (m === null) return background(); // (re)connected: notifications may have been missed
      this.adopt({ version: Number(m[1]), keysVersion: Number(m[2]) });
    });
    const poll = setInterval(background, STATE_POLL_MS);
    poll.unref();
    return async () => {
      clearInterval(poll);
      await stopListening();
    };
  }
}
