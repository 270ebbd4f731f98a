/**
 * How a PostgreSQL node learns that another node or process moved the shared state (store-state.ts): a trigger
 * NOTIFYs each change to every node's listener (milliseconds). When a notification is lost (listener killed,
 * network), the row is read on the listener's reconnection and by a poll every STATE_POLL_MS, and state that no
 * read started within the last STATE_BOUND_MS confirms is read again before it is used: a change committed is
 * seen by every node for every request that starts STATE_BOUND_MS after the commit, whatever happens to
 * notifications.
 */
import pg from 'pg';
import type { StoreState } from '../store-state.ts';
import { STATE_BOUND_MS, StateReads } from '../state-reads.ts';

/** The channel on which PostgreSQL announces each change of the corpus or keys version ("<version> <keys_version>"). */
export const STATE_CHANNEL = 'recalls_store_state';

/** How often each node reads the state row, in case a notification was lost. */
export const STATE_POLL_MS = 250;

/** The `application_name` of the LISTEN connection, so that it can be told from the pool's. */
export const LISTENER_NAME = 'recalls-state-listener';

/** Milliseconds between attempts to (re)open the LISTEN connection. */
const LISTEN_RETRY_MS = 250;

/** `signal`: the database's URL, for a LISTEN connection of the watch's own. */
export class PostgresStateWatch extends StateReads<string> {
  private stopWatching: (() => Promise<void>) | undefined;
  private stopped = false;

  override current(): StoreState | Promise<StoreState> {
    if (!this.stopped) this.stopWatching ??= this.watch();
    return this.fresh && this.clock() - this.confirmedAt <= STATE_BOUND_MS ? this.state! : this.read();
  }

  override async stop(): Promise<void> {
    this.stopped = true;
    await this.stopWatching?.();
  }

  private watch(): () => Promise<void> {
    const background = () => void this.read().catch(() => {}); // the deadline makes a request read instead
    const stopListening = listen(this.signal, (payload) => {
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

/**
 * LISTENs on STATE_CHANNEL on a connection outside the pool (a pooled one may be closed when idle), reopened
 * while not stopped: `onMessage(payload)` for each notification, `onMessage(undefined)` on each (re)connection,
 * after which notifications may have been missed. Returns the function that stops listening.
 */
function listen(url: string, onMessage: (payload: string | undefined) => void): () => Promise<void> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const open = () => {
    if (stopped) return;
    // A connection that hangs or dies silently is given up and reopened (the poll covers the meantime).
    const c = new pg.Client({
      connectionString: url,
      application_name: LISTENER_NAME,
      connectionTimeoutMillis: 5000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    let lost = false;
    const reopen = () => {
      if (lost) return;
      lost = true;
      if (client === c) client = undefined;
      void c.end().catch(() => {});
      if (!stopped) (retry = setTimeout(open, LISTEN_RETRY_MS)).unref();
    };
    c.on('error', reopen);
    c.on('end', reopen);
    c.on('notification', (n) => {
      if (n.channel === STATE_CHANNEL) onMessage(n.payload ?? '');
    });
    c.connect()
      .then(() => c.query(`LISTEN ${STATE_CHANNEL}`))
      .then(() => {
        if (stopped || lost) return void c.end().catch(() => {});
        client = c;
        onMessage(undefined);
      }, reopen);
  };
  open();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}
