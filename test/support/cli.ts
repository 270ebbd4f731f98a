/** Runs the real `recalls` command in a child process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually } from './until.ts';

export const BIN = fileURLToPath(new URL('../../bin/recalls.js', import.meta.url));
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts `recalls <args>` with the given environment added (in the checkout, or `cwd`); the caller waits or kills. */
export function startCli(
  args: string[],
  env: Record<string, string>,
  options: { cwd?: string } = {},
): { child: ChildProcess; done: Promise<CliResult>; output(): string; errors(): string } {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', RECALLS_INGEST_SCHEDULE: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done, output: () => stdout, errors: () => stderr };
}

export function runCli(
  args: string[],
  env: Record<string, string>,
  options: { cwd?: string } = {},
): Promise<CliResult> {
  return startCli(args, env, options).done;
}

/**
 * How long a test waits for `serve` to log an address: a bound for a hang, not a measure of speed. At rest it
 * listens within a second; with CI's two suites side by side on two cores (a browser, an npm install and several
 * nodes starting at once), one took over 15 s.
 */
const LISTEN_BOUND_MS = 60_000;

/**
 * Waits for a started command to log a line matching `pattern` and returns the line's first group. Fails after
 * LISTEN_BOUND_MS, or as soon as the command has ended, with what it wrote to both streams, having killed it
 * (left running, it would keep the test file's process from ever ending).
 */
async function loggedAddress(
  run: ReturnType<typeof startCli>,
  pattern: RegExp,
  what: string,
): Promise<string> {
  let ended: CliResult | undefined;
  void run.done.then((result) => (ended = result));
  const said = () => `output so far: ${run.output()}; errors so far: ${run.errors()}`;
  try {
    return await eventually(
      () => {
        const address = pattern.exec(run.output())?.[1];
        if (address === undefined && ended !== undefined)
          throw new Error(
            `${what}: the command ended first (status ${ended.code}, signal ${ended.signal}); ${said()}`,
          );
        return address;
      },
      () => `${what}; ${said()}`,
      { timeoutMs: LISTEN_BOUND_MS, intervalMs: 20 },
    );
  } catch (error) {
    run.child.kill('SIGKILL');
    throw error;
  }
}

/** Waits for `serve` to log its API's address and returns it (see loggedAddress). */
export function listeningUrl(run: ReturnType<typeof startCli>): Promise<string> {
  return loggedAddress(run, /Server listening at (http:\/\/127\.0\.0\.1:\d+)/, 'the service to listen');
}

/** Waits for `serve` to log its admin listener's address (metrics, probes) and returns it (see loggedAddress). */
export function adminUrl(run: ReturnType<typeof startCli>): Promise<string> {
  return loggedAddress(
    run,
    /admin listener \(metrics, probes\) at (http:\/\/127\.0\.0\.1:\d+)/,
    'the admin listener',
  );
}

/** Creates a key on `plan` with `recalls keys create` and returns it (the command's last line). */
export async function createKey(env: Record<string, string>, plan: string): Promise<string> {
  const created = await runCli(['keys', 'create', '--plan', plan], env);
  if (created.code !== 0) throw new Error(`recalls keys create failed: ${created.stderr}`);
  return created.stdout.trim().split('\n').pop()!;
}

/**
 * The environment of a test service on `databaseUrl`, its archive in `dir`, with `extra` on top: no burst limit
 * for 127.0.0.1 and the `scale` plan unmetered, so that the tests' own requests are never refused for them.
 */
export function serviceEnv(
  databaseUrl: string,
  dir: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    RECALLS_ARCHIVE_DIR: join(dir, 'archive'),
    RECALLS_BURST_EXEMPT: '127.0.0.1',
    RECALLS_PLAN_SCALE_REQUESTS: 'unmetered',
    RECALLS_PLAN_SCALE_IDENTIFIERS: 'unmetered',
    ...extra,
  };
}

/** Ingests the fictional samples (`samples/`) into `env`'s database with `recalls ingest --from samples`. */
export async function ingestSamples(env: Record<string, string>): Promise<void> {
  const ingested = await runCli(['ingest', '--from', 'samples'], env);
  if (ingested.code !== 0) throw new Error(`recalls ingest --from samples failed: ${ingested.stderr}`);
}

/**
 * `recalls serve` on `env` with its API and its admin listener on free ports; the run and both addresses once
 * both listen. A run that does not get there is killed, and the error says what it printed.
 */
export async function serveWithAdmin(
  env: Record<string, string>,
): Promise<{ run: ReturnType<typeof startCli>; url: string; admin: string }> {
  const run = startCli(['serve'], { ...env, PORT: '0', RECALLS_ADMIN_PORT: '0', LOG_LEVEL: 'info' });
  const url = await listeningUrl(run);
  return { run, url, admin: await adminUrl(run) };
}
