/**
 * What both engines' watches of the shared state (store-state.ts; engines/sqlite-watch.ts,
 * engines/postgres-watch.ts) have in common: the state row read once for the uses that start while the read
 * runs, the newer numbers kept, and a read started before a write through this store not taken as confirming
 * the state after it.
 */
import { compile } from './compiled.ts';
import type { Engine } from './engine.ts';
import type { StoreState, StoreStateWatch } from './store-state.ts';

/**
 * A read of the state row in flight is shared only by uses that start within this many milliseconds of it. On
 * PostgreSQL, also the age past which state no read confirmed is read again before use (engines/postgres-watch.ts).
 */
export const STATE_BOUND_MS = 1000;

/** `Signal`: what tells the engine that another connection committed (each watch says). */
export abstract class StateReads<Signal> implements StoreStateWatch {
  protected state: StoreState | undefined;
  /** Moved by each local write: a read started before it no longer confirms the state. */
  private epoch = 0;
  private confirmedEpoch = -1;
  /** When (on `clock`) the state was last known to be current: a read started, or (SQLite) nothing committed. */
  protected confirmedAt = -Infinity;
  /** The `tag` of the read that last confirmed the state (SQLite: both files' data_version). */
  protected confirmedTag: string | undefined;
  /** The read of the state row in flight. */
  private reading: { key: string; startedAt: number; done: Promise<StoreState> } | undefined;
  private readonly readRow: () => Promise<StoreState>;

  /** @param clock milliseconds, monotonic (the bounds are measured on it) */
  constructor(
    engine: Engine,
    protected readonly signal: Signal,
    protected readonly clock: () => number = () => performance.now(),
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

  abstract current(): StoreState | Promise<StoreState>;

  invalidate(): void {
    this.epoch++;
  }

  async stop(): Promise<void> {}

  /** Whether the state is known and no write through this store came after the read that confirmed it. */
  protected get fresh(): boolean {
    return this.state !== undefined && this.confirmedEpoch === this.epoch;
  }

  /** Reads the row; a use with the same `tag`, and no local write between, shares the read in flight. */
  protected read(tag?: string): Promise<StoreState> {
    const epoch = this.epoch;
    const key = `${epoch} ${tag}`;
    const startedAt = this.clock();
    const r = this.reading;
    if (r?.key === key && startedAt - r.startedAt <= STATE_BOUND_MS) return r.done;
    const done = this.readRow().then(
      (row) => {
        this.adopt(row);
        if (epoch === this.epoch) {
          this.confirmedEpoch = epoch;
          this.confirmedAt = Math.max(this.confirmedAt, startedAt);
          if (tag !== undefined) this.confirmedTag = tag;
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
  protected adopt(seen: StoreState): void {
    const s = this.state;
    this.state =
      s === undefined
        ? seen
        : {
            version: Math.max(s.version, seen.version),
            keysVersion: Math.max(s.keysVersion, seen.keysVersion),
          };
  }
}
