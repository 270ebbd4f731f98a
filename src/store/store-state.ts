/**
 * The shared state every node keeps in memory — the corpus version and the keys version — so that a request
 * reads neither, and how a node learns that it moved (each engine makes its watch, `Engine.watchState`):
 * - a write through this store: at once (`invalidate` after the commit; the next use reads the row);
 * - SQLite, another process's commit: by every request that starts DATA_VERSION_EVERY_MS after it;
 * - PostgreSQL, another node's or process's commit: by NOTIFY and, whatever happens to notifications, by every
 *   request that starts STATE_BOUND_MS after it (engines/sqlite-watch.ts, engines/postgres-watch.ts say how).
 */
import type { Transaction } from 'kysely';
import type { Database } from './schema.ts';

/** The store's shared state, as of some commit. */
export interface StoreState {
  /** The corpus version: moves when a corpus-backed body would change (records, revisions, sources served). */
  version: number;
  /** Moves on every change to API keys. */
  keysVersion: number;
}

/** A node's view of the shared state: what the keys store, the writing stores and the HTTP layer use. */
export interface StoreStateWatch {
  /** The state: from memory while nothing says it moved, else read (one query, shared by concurrent uses). */
  current(): StoreState | Promise<StoreState>;
  /** Called after a write through this store that may have moved the state: the next use reads it. */
  invalidate(): void;
  /** Stops watching for commits made elsewhere (PostgreSQL: listening and polling). */
  stop(): Promise<void>;
}

/** Moves the corpus version in the caller's transaction, which changes something a corpus-backed body serves. */
export async function moveCorpusVersion(trx: Transaction<Database>, at: string): Promise<void> {
  await trx
    .updateTable('corpus_state')
    .set((eb) => ({ version: eb('version', '+', 1), updated_at: at }))
    .where('id', '=', 1)
    .execute();
}
