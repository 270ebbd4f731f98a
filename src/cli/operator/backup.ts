/** `recalls backup FILE`: an online backup of the SQLite deployment, both files, while `serve` keeps answering. */
import { loadConfig } from '../../config.ts';
import { SOURCE_IDS } from '../../ingest/registry.ts';
import { BackupRefused, backupDatabase } from '../../store/backup.ts';
import { EXIT } from '../exit-codes.ts';

/** The help text after the options. */
export const BACKUP_HELP = `
Copies the database DATABASE_URL names with SQLite's online backup API, while the service keeps
serving: FILE receives the service's records (keys, usage, receipts) and the corpus goes beside it
(FILE data/b.db: data/b.corpus.db), the pair DATABASE_URL=FILE opens. Each file is a consistent
snapshot; the corpus is copied right after the service's records, so the two may be a moment
apart. Both are written under temporary names and renamed into place once complete.

To restore: stop the service, put both files where DATABASE_URL points (named as it expects),
start it. On PostgreSQL use pg_dump -Fc and pg_restore. See docs/backups.md.

Exit status: 0 written (both paths and sizes on stdout); 2 refused, nothing written: FILE or its
corpus file exists (--force replaces them), is a file of the live database, or the database is
PostgreSQL; 1 the copy failed (nothing is left under FILE's names).
`;

/** Runs the command; returns its exit status (messages on stderr, what was written on stdout). */
export async function runBackupCommand(
  file: string,
  options: { force?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const { database } = loadConfig(env, SOURCE_IDS);
  try {
    const written = await backupDatabase(database, file, options.force === true);
    for (const w of written)
      process.stdout.write(
        `${w.path}\t${w.bytes} bytes\t${w.schema === 'main' ? "the service's records (keys, usage, receipts)" : 'the corpus'}\n`,
      );
    return EXIT.ok;
  } catch (error) {
    if (error instanceof BackupRefused) {
      process.stderr.write(`error: ${error.message}\n`);
      return EXIT.usage;
    }
    const { message, code } = error as { message: string; code?: string };
    process.stderr.write(
      `error: the backup failed, nothing was written under ${file}'s names: ${message}${code === undefined ? '' : ` (${code})`}\n`,
    );
    return EXIT.failed;
  }
}
