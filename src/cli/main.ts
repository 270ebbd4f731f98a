/**
 * The `recalls` command: serve, demo, ingest, report, keys, migrate, backup, and check/verify/diff of a catalogue. Each command opens what it needs from
 * the environment and closes it when done.
 */
import { readFileSync, statSync } from 'node:fs';
import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import cliProgress from 'cli-progress';
import { PLAN_IDS, ConfigError, type PlanId } from '../config.ts';
import { METERS, usageMonth, type Meter } from '../domain/meters.ts';
import { runIngest, type ProgressEvent } from '../ingest/pipeline.ts';
import { SOURCE_IDS } from '../ingest/registry.ts';
import { BACKUP_HELP, runBackupCommand } from './operator/backup.ts';
import { DEMO_PORT, demoPort, runDemo } from './operator/demo.ts';
import { registerCatalogueCommands } from './catalogue/catalogue-commands.ts';
import { EXIT } from './exit-codes.ts';
import { describeOutcome, formatQualityReport } from './operator/report.ts';
import { DatabaseError } from '../store/engine.ts';
import { ingestDeps, openRuntime } from './operator/runtime.ts';
import { serveApi } from './operator/serve.ts';

/** The package's version: package.json is two folders up from src/cli and dist/cli alike. */
function packageVersion(): string {
  const path = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
}

function sourceId(value: string, previous: string[] = []): string[] {
  if (!SOURCE_IDS.includes(value))
    throw new InvalidArgumentError(`unknown source; known: ${SOURCE_IDS.join(', ')}`);
  return [...previous, value];
}

/** `--month`: a month as usage counts it, `YYYY-MM`. */
function usageMonthOption(value: string): string {
  if (!/^\d{4}-(?:0[1-9]|1[0-2])$/.test(value))
    throw new InvalidArgumentError('a month is YYYY-MM, e.g. 2026-11');
  return value;
}

/** `--from`: a folder that exists (a missing one would be an ingest of nothing, exiting 0). */
function folder(value: string): string {
  let isFolder: boolean;
  try {
    isFolder = statSync(value).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidArgumentError(code === 'ENOENT' || code === 'ENOTDIR' ? 'no such folder' : String(code));
  }
  if (!isFolder) throw new InvalidArgumentError('not a folder');
  return value;
}

async function ingest(options: { from?: string; source?: string[]; force?: boolean }): Promise<number> {
  const rt = await openRuntime();
  const tty = process.stderr.isTTY === true;
  const bar = tty
    ? new cliProgress.SingleBar(
        {
          format: ' {source} |{bar}| {pages} page(s), {records} records',
          hideCursor: true,
          clearOnComplete: true,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  const onProgress = (e: ProgressEvent) => {
    if (e.type === 'source-start') bar?.start(1, 0, { source: e.sourceId, pages: 0, records: 0 });
    else if (e.type === 'fetched') bar?.update(0, { pages: e.pages });
    else if (e.type === 'page') bar?.update(0, { pages: e.pages, records: e.records });
    else {
      bar?.update(1);
      bar?.stop();
      process.stdout.write(`${describeOutcome(e.outcome)}\n`);
    }
  };
  try {
    const result = await runIngest(ingestDeps(rt), {
      sourceIds: options.source,
      from: options.from,
      force: options.force === true,
      onProgress,
    });
    if (result.status === 'locked') {
      process.stderr.write(
        `Another ingest is running (held by ${result.holder} since ${result.since}); not starting a second one.\n`,
      );
      return 75;
    }
    return result.sources.some((s) => s.status === 'failed') ? 1 : 0;
  } finally {
    await rt.store.close();
  }
}

/**
 * A reader that leaves early (`recalls keys list | head -1`) is no error: what is still written to the
 * closed stdout is dropped, quietly, and the command finishes as it would. Other stdout errors still throw.
 */
function ignoreClosedStdout(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

export async function main(argv: string[]): Promise<void> {
  ignoreClosedStdout();
  const program = new Command('recalls')
    .description('Recall and Safety Alert Service')
    .version(packageVersion())
    .showHelpAfterError()
    .exitOverride((err) => {
      throw err;
    });

  program
    .command('serve')
    .description('Run the HTTP API (and the daily ingest unless RECALLS_INGEST_SCHEDULE=off)')
    .action(async () => {
      await serveApi(await openRuntime({ logTo: 'stdout', serving: true }));
    });

  program
    .command('demo')
    .description(
      'Serve the fictional sample records from a database of their own (./data/demo.db), with a key in ./data/demo.key',
    )
    .option('--port <port>', 'the port on 127.0.0.1 (0: any free one)', demoPort, DEMO_PORT)
    .action(async (options: { port: number }) => {
      process.exitCode = await runDemo(options);
    });

  program
    .command('ingest')
    .description('Fetch every source (or read an offline mirror) and update the corpus')
    .option('--from <dir>', 'read DIR/<source-id>/* instead of fetching', folder)
    .option('--source <id>', 'only this source (repeatable)', sourceId)
    .option('--force', 'run even if the source was already rebuilt today')
    .action(async (options: { from?: string; source?: string[]; force?: boolean }) => {
      process.exitCode = await ingest(options);
    });

  program
    .command('report')
    .description('Print the data-quality report: per source, identifiers, severity, remedy and hazard')
    .action(async () => {
      const rt = await openRuntime();
      try {
        process.stdout.write(formatQualityReport(await rt.store.report.quality()));
      } finally {
        await rt.store.close();
      }
    });

  program
    .command('migrate')
    .description('Bring the database schema up to date and exit')
    .action(async () => {
      const rt = await openRuntime();
      await rt.store.close();
      const { migrated } = rt.store;
      process.stdout.write(
        migrated.length === 0
          ? 'database was already up to date\n'
          : `applied ${migrated.length} migration${migrated.length === 1 ? '' : 's'} (${migrated.join(', ')}): database is up to date\n`,
      );
    });

  program
    .command('backup')
    .description("Back up the SQLite database (the service's records and the corpus) while the service runs")
    .argument('<file>', "the backup of the service's records; the corpus goes beside it")
    .option('--force', 'replace FILE and its corpus file if they exist')
    .addHelpText('after', BACKUP_HELP)
    .action(async (file: string, options: { force?: boolean }) => {
      process.exitCode = await runBackupCommand(file, options);
    });

  const keys = program.command('keys').description('Issue, list, move between plans and revoke API keys');
  keys
    .command('create')
    .description('Create a key; it is printed once, as the last line')
    .addOption(new Option('--plan <plan>', 'plan').choices([...PLAN_IDS]).makeOptionMandatory())
    .option('--name <name>', 'a name to recognise the key by')
    .action(async (options: { plan: string; name?: string }) => {
      const rt = await openRuntime();
      try {
        const created = await rt.store.keys.create(options.plan, options.name ?? null, new Date());
        process.stdout.write(
          `Created key ${created.id} (plan ${created.plan}${created.name === null ? '' : `, name "${created.name}"`}).\n` +
            'Store it now: only its hash is kept, it is shown this once and cannot be recovered.\n' +
            `${created.key}\n`,
        );
      } finally {
        await rt.store.close();
      }
    });
  keys
    .command('list')
    .description('List keys (never the keys themselves)')
    .action(async () => {
      const rt = await openRuntime();
      try {
        const rows = await rt.store.keys.list();
        if (rows.length === 0) process.stdout.write('no keys\n');
        for (const k of rows) {
          process.stdout.write(
            `${k.id}\t${k.prefix}…\t${k.plan}\t${k.revoked_at === null ? 'active' : `revoked ${k.revoked_at}`}\t${k.created_at}\t${k.name ?? ''}\n`,
          );
        }
      } finally {
        await rt.store.close();
      }
    });
  keys
    .command('plan')
    .description('Move a key, named by its id or by the key itself, to another plan')
    .argument('<idOrKey>', 'the key id or the key')
    .addArgument(new Argument('<plan>', 'the new plan').choices([...PLAN_IDS]))
    .action(async (idOrKey: string, plan: string) => {
      const rt = await openRuntime();
      try {
        const moved = await rt.store.keys.setPlan(idOrKey, plan);
        if (moved === undefined) {
          process.stderr.write('no such key\n');
          process.exitCode = 1;
          return;
        }
        process.stdout.write(`${moved.id} is on plan ${moved.plan}\n`);
      } finally {
        await rt.store.close();
      }
    });
  keys
    .command('usage')
    .description("A key's use of a month (this one by default) against its plan's limits")
    .argument('<idOrKey>', 'the key id or the key')
    .option('--month <month>', 'the month, YYYY-MM (UTC)', usageMonthOption)
    .action(async (idOrKey: string, options: { month?: string }) => {
      const rt = await openRuntime();
      try {
        const key = await rt.store.keys.named(idOrKey);
        if (key === undefined) {
          process.stderr.write('no such key\n');
          process.exitCode = 1;
          return;
        }
        const month = options.month ?? usageMonth(new Date());
        const standing = await rt.store.usage.standing(key.id, month);
        const limits = (PLAN_IDS as readonly string[]).includes(key.plan)
          ? rt.config.plans[key.plan as PlanId].perMonth
          : undefined;
        const of = (m: Meter) =>
          `${standing.used[m]} ${limits?.[m] == null ? '(no limit)' : `of ${limits[m]}`} ${m}`;
        process.stdout.write(
          `${key.id} (plan ${key.plan}) in ${month}: ${METERS.map(of).join(', ')}; ${standing.leasedRequests} requests leased by serving nodes\n`,
        );
      } finally {
        await rt.store.close();
      }
    });
  keys
    .command('revoke <idOrKey>')
    .description('Revoke a key, named by its id or by the key itself')
    .action(async (idOrKey: string) => {
      const rt = await openRuntime();
      try {
        const revoked = await rt.store.keys.revoke(idOrKey, new Date());
        if (revoked === undefined) {
          process.stderr.write('no such key\n');
          process.exitCode = 1;
          return;
        }
        process.stdout.write(`revoked ${revoked.id} at ${revoked.revoked_at}\n`);
      } finally {
        await rt.store.close();
      }
    });

  registerCatalogueCommands(program);

  try {
    await program.parseAsync(argv);
  } catch (error) {
    const e = error as { code?: string; exitCode?: number };
    // Help and --version exit 0; every other commander error is a usage error.
    if (typeof e.code === 'string' && e.code.startsWith('commander.')) {
      process.exitCode = e.exitCode === 0 ? 0 : EXIT.usage;
      return;
    }
    if (error instanceof DatabaseError) {
      // One line, not a stack: the database refused, could not be reached (the cause's message says which)
      // or is missing a file.
      const cause = error.cause instanceof Error ? error.cause.message : undefined;
      process.stderr.write(
        `error: ${error.message}${cause === undefined || error.message.includes('newer release') ? '' : `: ${cause}`}\n`,
      );
      process.exitCode = EXIT.failed;
      return;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exitCode = EXIT.usage;
      return;
    }
    throw error;
  }
}
