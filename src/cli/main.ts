/**
 * The `recalls` command: serve, ingest, report, keys, migrate, backup, and check/verify/diff of a catalogue. Each command opens what it needs from
 * the environment and closes it when done.
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import cliProgress from 'cli-progress';
import { PLAN_IDS, ConfigError } from '../config.ts';
import { createMemoryBurstLimiter } from '../http/gates/burst-limiter.ts';
import { createRedisBurstLimiter, REDIS_RETRY_MS } from '../http/gates/burst-redis.ts';
import { buildAdminServer } from '../http/admin/admin-server.ts';
import { NodeMetrics } from '../http/admin/metrics.ts';
import { buildApp } from '../http/app.ts';
import { runIngest, type ProgressEvent, type SourceOutcome } from '../ingest/pipeline.ts';
import { SOURCE_ADAPTERS, SOURCE_IDS } from '../ingest/registry.ts';
import { startDailySchedule } from '../ingest/scheduler.ts';
import { BACKUP_HELP, runBackupCommand } from './backup.ts';
import { registerCatalogueCommands } from './catalogue-commands.ts';
import { relayChildOutput } from './child-log.ts';
import { EXIT } from './exit-codes.ts';
import { formatQualityReport } from './report.ts';
import { ingestDeps, openRuntime } from './runtime.ts';

const BIN = fileURLToPath(new URL('../../bin/recalls.js', import.meta.url));

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

function describe(outcome: SourceOutcome): string {
  if (outcome.status === 'ok') {
    const setAside = outcome.setAside ? `; ${outcome.setAside} set aside (see recalls report)` : '';
    return `${outcome.sourceId}: ok, ${outcome.records} records from ${outcome.pages} page(s): ${outcome.inserted} new, ${outcome.amended} amended, ${outcome.unchanged} unchanged${setAside}`;
  }
  return `${outcome.sourceId}: ${outcome.status}${outcome.reason === undefined ? '' : `: ${outcome.reason}`}`;
}

async function serve(): Promise<void> {
  const rt = await openRuntime({ logTo: 'stdout' });
  const burstLimiter =
    rt.config.redisUrl === null
      ? createMemoryBurstLimiter()
      : createRedisBurstLimiter(rt.config.redisUrl, {
          onOutage: (err) =>
            rt.logger.warn(
              { err: { message: (err as Error).message } },
              `burst limiter: Redis unavailable, counting bursts in this node's memory (Redis tried again every ${REDIS_RETRY_MS / 1000} s)`,
            ),
          onRecovery: () => rt.logger.info('burst limiter: Redis answers again, bursts counted there'),
        });
  const sources = SOURCE_ADAPTERS.map((a) => a.meta);
  const { admin: adminAt } = rt.config;
  const metrics =
    adminAt === null ? undefined : new NodeMetrics({ caches: rt.store.caches, store: rt.store, sources });
  const app = await buildApp({
    store: rt.store,
    config: rt.config,
    sources,
    burstLimiter,
    logger: { level: rt.config.logLevel },
    metrics,
  });
  await app.listen({ port: rt.config.port, host: rt.config.host });
  const admin = metrics === undefined ? undefined : await buildAdminServer({ store: rt.store, metrics });
  if (admin !== undefined && adminAt !== null) {
    const address = await admin.listen({ port: adminAt.port, host: adminAt.host });
    rt.logger.info({ address }, `admin listener (metrics, probes) at ${address}`);
  }
  const schedule =
    rt.config.ingest.schedule === 'daily'
      ? startDailySchedule({
          hourUtc: rt.config.ingest.hourUtc,
          // In a child process, so that parsing and the write transaction never stall requests.
          run: () =>
            new Promise<void>((resolve) => {
              const child = spawn(process.execPath, [BIN, 'ingest'], {
                stdio: ['ignore', 'pipe', 'pipe'],
                env: process.env,
              });
              const mark = { child: 'ingest', childPid: child.pid };
              relayChildOutput(rt.logger, child.stdout, { ...mark, stream: 'stdout' });
              relayChildOutput(rt.logger, child.stderr, { ...mark, stream: 'stderr' });
              child.on('close', (code) => {
                rt.logger.info({ code }, 'scheduled ingest finished');
                resolve();
              });
            }),
        })
      : undefined;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    rt.logger.info({ signal }, 'shutting down: finishing in-flight requests');
    schedule?.stop();
    await app.close();
    await admin?.close();
    await burstLimiter.close();
    await rt.store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
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
      process.stdout.write(`${describe(e.outcome)}\n`);
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
    .action(serve);

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
      process.stdout.write('database is up to date\n');
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
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exitCode = EXIT.usage;
      return;
    }
    throw error;
  }
}
