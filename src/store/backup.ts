/**
 * An online backup of the SQLite deployment (`recalls backup FILE`): both files (engines/sqlite-files.ts) through
 * SQLite's backup API, while other processes keep reading and writing them. Each file is copied in one step,
 * that is in one read transaction of its own: a consistent snapshot of that file, which in WAL mode holds up no
 * writer. The service's records are copied first and the corpus right after, so the pair may be a moment apart
 * (docs/backups.md).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Config } from '../config.ts';
import { openSqlite } from './engines/sqlite.ts';
import { corpusPathOf } from './engines/sqlite-files.ts';

/** Why a backup was not made: nothing was written. */
export class BackupRefused extends Error {}

/** One file a backup wrote. */
export interface BackupFile {
  /** `main` (the service's records: keys, usage, receipts) or `corpus`. */
  schema: 'main' | 'corpus';
  path: string;
  bytes: number;
}

/** The files SQLite keeps beside a database while it is open (a stale one would be read as this file's). */
const SIDECARS = ['-wal', '-shm', '-journal'];

function sameFile(a: string, b: string): boolean {
  if (!existsSync(a) || !existsSync(b)) return false;
  const x = statSync(a);
  const y = statSync(b);
  return x.dev === y.dev && x.ino === y.ino;
}

function removeSidecars(path: string): void {
  for (const suffix of SIDECARS) rmSync(`${path}${suffix}`, { force: true });
}

/** Makes a rename in `dir` durable where the platform can sync a folder (not Windows). */
function syncFolder(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // a folder cannot be opened for syncing here
  }
}

/**
 * Backs up `database` (the service's records, with the corpus file beside it) to `file` and `corpusPathOf(file)`:
 * the pair `DATABASE_URL=file` opens, as the database is (no migration is applied first). Both are written under
 * temporary names in the destination folder and renamed into place once both are complete (the corpus first, so
 * that `file` is there only with its corpus). Throws `BackupRefused` when the database is PostgreSQL, when `file`
 * or its corpus file is one of the live files, when either exists and `force` is not set, or when the live
 * database is not there.
 */
export async function backupDatabase(
  database: Config['database'],
  file: string,
  force = false,
): Promise<BackupFile[]> {
  if (database.engine === 'postgres')
    throw new BackupRefused(
      'recalls backup copies SQLite files; on PostgreSQL use pg_dump -Fc and pg_restore (see docs/backups.md)',
    );
  const live = database.path;
  if (live === ':memory:') throw new BackupRefused('the database is in memory: there is nothing to back up');
  const liveFiles = [live, corpusPathOf(live)];
  for (const path of liveFiles)
    if (!existsSync(path))
      throw new BackupRefused(
        `${path} does not exist${path === live ? '' : ' (run `recalls migrate` once to make it)'}`,
      );
  const targets = [
    { schema: 'main' as const, path: resolve(file) },
    { schema: 'corpus' as const, path: resolve(corpusPathOf(file)) },
  ];
  for (const { path } of targets)
    if (liveFiles.some((l) => sameFile(l, path)))
      throw new BackupRefused(`${path} is a file of the live database (DATABASE_URL): back up elsewhere`);
  if (!force)
    for (const { path } of targets)
      if (existsSync(path)) throw new BackupRefused(`${path} exists (--force replaces it)`);

  const dir = dirname(targets[0]!.path);
  mkdirSync(dir, { recursive: true });
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const partial = targets.map((t) => ({
    ...t,
    temp: join(dirname(t.path), `.${basename(t.path)}.${tag}.partial`),
  }));
  const engine = openSqlite(live);
  try {
    for (const t of partial) await engine.snapshot(t.schema, t.temp);
    // Checked again now that the copies are made: a file that appeared meanwhile is not replaced unasked.
    if (!force)
      for (const { path } of partial)
        if (existsSync(path))
          throw new BackupRefused(`${path} appeared while backing up (--force replaces it)`);
    for (const t of [...partial].reverse()) {
      // The replaced file's journal or WAL would be read as the new file's.
      removeSidecars(t.path);
      renameSync(t.temp, t.path);
    }
    syncFolder(dir);
    return partial.map((t) => ({ schema: t.schema, path: t.path, bytes: statSync(t.path).size }));
  } finally {
    await engine.close();
    // Whatever a failed copy left (nothing is left under these names once renamed).
    for (const t of partial) {
      rmSync(t.temp, { force: true });
      removeSidecars(t.temp);
    }
  }
}
