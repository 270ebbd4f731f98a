/**
 * `recalls demo`: the project's fictional sample records (samples/) loaded into a database of their
 * own, `./data/demo.db`, and served on 127.0.0.1 with a key saved in `./data/demo.key`. Whatever
 * `DATABASE_URL`, `REDIS_URL`, `PORT` and `HOST` say is not used, so the samples never reach the
 * real database and the demo runs beside a real `recalls serve`; it fetches nothing.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError } from 'commander';
import { runIngest } from '../../ingest/pipeline.ts';
import { EXIT } from '../exit-codes.ts';
import { describeOutcome } from './report.ts';
import { ingestDeps, openRuntime } from './runtime.ts';
import { serveApi } from './serve.ts';

/** The demo's files, relative to the working folder: never the default `./data/recalls.db`. */
export const DEMO_DATABASE = './data/demo.db';
export const DEMO_KEY_FILE = './data/demo.key';
/** The demo's default port: beside a real service on 8080. */
export const DEMO_PORT = 8081;
/** The plan of the demo's key: a burst of 60 requests a minute leaves room to try things. */
const DEMO_PLAN = 'starter';

const SAMPLES = fileURLToPath(new URL('../../../samples', import.meta.url));

/** `--port`: a whole number from 0 (any free port) to 65535. */
export function demoPort(value: string): number {
  const port = Number(value);
  if (!/^\d{1,5}$/.test(value) || port > 65535) throw new InvalidArgumentError('a port is 0 to 65535');
  return port;
}

/**
 * Loads the samples, serves them and prints the key and the address. Resolves once serving (the
 * process then runs until SIGINT or SIGTERM) with 0, or with an exit status when it could not start.
 */
export async function runDemo(
  options: { port: number },
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const rt = await openRuntime(
    {},
    {
      ...env,
      DATABASE_URL: `sqlite:${DEMO_DATABASE}`,
      REDIS_URL: '',
      PORT: String(options.port),
      HOST: '127.0.0.1',
      RECALLS_INGEST_SCHEDULE: 'off',
      RECALLS_ADMIN_PORT: '',
      RECALLS_ARCHIVE_DIR: './data/demo-archive',
      LOG_LEVEL: env.LOG_LEVEL || 'warn',
    },
  );
  let address: string;
  try {
    // A mirror is read whole on every run: records already there are counted as unchanged.
    const result = await runIngest(ingestDeps(rt), { from: SAMPLES });
    if (result.status === 'locked') {
      process.stderr.write(
        `Another ingest of the demo database is running (held by ${result.holder}); try again.\n`,
      );
      await rt.store.close();
      return 75;
    }
    for (const outcome of result.sources)
      if (outcome.status !== 'skipped') process.stdout.write(`${describeOutcome(outcome)}\n`);
    if (result.sources.some((s) => s.status === 'failed')) {
      await rt.store.close();
      return EXIT.failed;
    }
    address = await serveApi(rt);
  } catch (error) {
    await rt.store.close();
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    process.stderr.write(
      `error: port ${options.port} is in use (a demo already running?); --port picks another\n`,
    );
    return EXIT.failed;
  }
  const created = await rt.store.keys.create(DEMO_PLAN, 'demo', new Date());
  writeFileSync(DEMO_KEY_FILE, `${created.key}\n`, { mode: 0o600 });
  chmodSync(DEMO_KEY_FILE, 0o600);
  process.stdout.write(
    `\nThe demo serves the project's FICTIONAL sample records (titled "SAMPLE DATA – not a real recall")\n` +
      `from ${DEMO_DATABASE}; the real database is not touched. A key of plan ${DEMO_PLAN}, saved in ${DEMO_KEY_FILE}:\n` +
      `${created.key}\n\n` +
      `Serving on ${address} (reference at ${address}/docs). In another terminal, in this folder:\n` +
      `  export RECALLS_URL=${address} RECALLS_KEY=$(cat ${DEMO_KEY_FILE.slice(2)})\n` +
      `  curl -s -H "Authorization: Bearer $RECALLS_KEY" "$RECALLS_URL/v1/recalls?limit=2"\n` +
      `Ctrl-C stops it.\n`,
  );
  return EXIT.ok;
}
