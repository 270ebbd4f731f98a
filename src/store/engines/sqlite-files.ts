/**
 * SQLite keeps the corpus and the service's own records in two files, each in WAL mode with a write lock of
 * its own, so that the daily ingest's long transaction (a whole source) and an API node's short writes (usage,
 * leases, receipts, keys) never wait for each other. One connection opens the service file as `main` and
 * attaches the corpus file as `corpus`; a table is named without its schema and SQLite finds it in either.
 */
import { accessSync, constants, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, extname } from 'node:path';
import { DatabaseError } from '../engine.ts';
import { SQLite, type SqliteDatabase } from './sqlite-driver.ts';

/** The corpus tables, parents first (foreign keys point from later to earlier ones). */
export const CORPUS_TABLES = [
  'sources',
  'recalls',
  'identifiers',
  'revisions',
  'set_aside_records',
  'corpus_state',
] as const;

/** A table's old copy in the service file while it moves, dropped once the corpus file holds it. */
export const MOVED = '_moved_to_corpus';

/** The corpus file beside the service's records: `data/recalls.db` → `data/recalls.corpus.db`. */
export function corpusPathOf(path: string): string {
  if (path === ':memory:' || path === '') return path;
  const ext = extname(path);
  return `${ext === '' ? path : path.slice(0, -ext.length)}.corpus${ext === '' ? '.db' : ext}`;
}

/**
 * Why the pair of files just opened can't be used, or undefined when it can: one of them was lost (a restore
 * of one file, a file removed to start anew). Opened as they are, the missing file would be made anew, empty,
 * and a missing service file would then have its new, empty corpus tables moved over the real corpus.
 * - The service file is missing when it has no table and the corpus file has some.
 * - The corpus is missing when the service file has its keys and neither file has a corpus table. A service
 *   file made before the split, or one whose first migrations another process is running, holds them itself
 *   (the migrations make the corpus tables before the keys, and the move happens after them).
 */
function missingFile(db: SqliteDatabase, path: string): string | undefined {
  const tables = (schema: 'main' | 'corpus') =>
    db.prepare(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table'`).pluck().all() as string[];
  const [main, corpus] = [tables('main'), tables('corpus')];
  const restore = 'restore both files from one backup (docs/backups.md, Restore)';
  if (main.length === 0 && corpus.length > 0)
    return `${path} is missing but its corpus file ${corpusPathOf(path)} is not: ${restore}, or move the corpus file aside to start anew`;
  const corpusInMain = main.some((t) => CORPUS_TABLES.some((c) => t === c || t === `${c}${MOVED}`));
  if (corpus.length === 0 && main.includes('api_keys') && !corpusInMain)
    return `the corpus file ${corpusPathOf(path)} is missing beside ${path}: ${restore}`;
  return undefined;
}

/**
 * Opens the pair at `path`: the service file as `main` with the corpus file attached as `corpus`; a new
 * database makes both, and their folder. Throws DatabaseError, saying which, when the folder can't be made, a
 * file can't be opened as SQLite (a folder, not a database) or one of the pair is missing; no file is left made
 * then.
 */
export function openPair(path: string): SqliteDatabase {
  if (path !== ':memory:') makeFolder(dirname(path));
  const made = [path, corpusPathOf(path)].filter((p) => p !== ':memory:' && !existsSync(p));
  let db: SqliteDatabase | undefined;
  try {
    db = new SQLite(path);
    db.prepare('ATTACH DATABASE ? AS corpus').run(corpusPathOf(path));
    const missing = missingFile(db, path);
    if (missing !== undefined) throw new DatabaseError(missing);
    return db;
  } catch (error) {
    db?.close();
    // Only while still empty: another process may have begun the same new database meanwhile.
    for (const p of made) if (statSync(p, { throwIfNoEntry: false })?.size === 0) rmSync(p);
    if (error instanceof DatabaseError) throw error;
    const unwritable = path === ':memory:' ? undefined : unwritableFolder(dirname(path));
    throw new DatabaseError(
      `cannot open ${path} with ${corpusPathOf(path)} as SQLite databases${unwritable === undefined ? '' : `: ${unwritable}`}`,
      { cause: error },
    );
  }
}

/**
 * Makes `folder` and its parents for a new database. If it can't be made: DatabaseError naming why, by the nearest
 * folder that exists when that one is read-only or not writable (Node's recursive mkdir then says only ENOENT),
 * else by the system's reason (a file in the way: ENOTDIR or EEXIST).
 */
function makeFolder(folder: string): void {
  try {
    mkdirSync(folder, { recursive: true });
  } catch (error) {
    let existing = dirname(folder);
    while (!existsSync(existing)) existing = dirname(existing);
    const unwritable = unwritableFolder(existing);
    const message = `cannot make the folder ${folder} for the database`;
    throw unwritable === undefined
      ? new DatabaseError(message, { cause: error })
      : new DatabaseError(`${message}: ${unwritable}`);
  }
}

/**
 * Why SQLite cannot write in `folder` (it makes each file's -wal and -shm there), when it cannot: its own "unable
 * to open database file" does not say.
 */
function unwritableFolder(folder: string): string | undefined {
  try {
    accessSync(folder, constants.W_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'EROFS'
      ? `${folder} is on a read-only file system`
      : `${folder} is not writable by this process (${code})`;
  }
}
