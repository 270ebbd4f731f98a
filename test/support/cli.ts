/** Runs the real `recalls` command in a child process. */
import { spawn, type ChildProcess } from 'node:child_process';
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
 * Waits for `serve` to log its address and returns it; fails after `timeoutMs` with the output so far, having
 * killed the process (left running, it would keep the test file's process from ever ending).
 */
export async function listeningUrl(run: ReturnType<typeof startCli>, timeoutMs = 15_000): Promise<string> {
  try {
    return await eventually(
      () => /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(run.output())?.[1],
      () => `the service to listen; output so far: ${run.output()}`,
      { timeoutMs, intervalMs: 20 },
    );
  } catch (error) {
    run.child.kill('SIGKILL');
    throw error;
  }
}

/** Waits for `serve` to log its admin listener's address (metrics, probes) and returns it. */
export function adminUrl(run: ReturnType<typeof startCli>): Promise<string> {
  return eventually(
    () => /admin listener \(metrics, probes\) at (http:\/\/127\.0\.0\.1:\d+)/.exec(run.output())?.[1],
    () => `the admin listener; output so far: ${run.output()}`,
  );
}

/** Creates a key on `plan` with `recalls keys create` and returns it (the command's last line). */
export async function createKey(env: Record<string, string>, plan: string): Promise<string> {
  const created = await runCli(['keys', 'create', '--plan', plan], env);
  if (created.code !== 0) throw new Error(`recalls keys create failed: ${created.stderr}`);
  return created.stdout.trim().split('\n').pop()!;
}
