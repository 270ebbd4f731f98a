/**
 * Serving the HTTP API from an opened runtime: the burst limiter (Redis or this process's memory),
 * the app listening on the configured address, the admin listener (metrics, probes) when
 * `RECALLS_ADMIN_PORT` is set, the daily ingest in a child process when the
 * configuration asks for it, and a graceful stop on SIGTERM and SIGINT. `recalls serve` and
 * `recalls demo` both serve through it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createMemoryBurstLimiter } from '../../node/burst-limiter.ts';
import { createRedisBurstLimiter, REDIS_RETRY_MS } from '../../node/burst-redis.ts';
import { buildAdminServer } from '../../http/admin/admin-server.ts';
import { NodeMetrics } from '../../http/admin/metrics.ts';
import { buildApp } from '../../http/app.ts';
import { SOURCE_ADAPTERS } from '../../ingest/registry.ts';
import { startDailySchedule } from '../../ingest/scheduler.ts';
import { relayChildOutput } from './child-log.ts';
import type { Runtime } from './runtime.ts';

const BIN = fileURLToPath(new URL('../../../bin/recalls.js', import.meta.url));

/** How long a stopping `serve` waits for its ingest child to end on SIGTERM before it sends SIGKILL. */
export const INGEST_STOP_MS = 10_000;

/** Stops a running ingest child: SIGTERM (its transaction is rolled back), SIGKILL after INGEST_STOP_MS. */
async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const closed = once(child, 'close');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), INGEST_STOP_MS);
  await closed;
  clearTimeout(timer);
}

/**
 * Serves until a signal stops the process. Resolves with the address it listens on (a `PORT` of 0
 * picks a free port) once it listens; the process then lives on until SIGTERM or SIGINT, which
 * finish the requests in flight, close the store and exit 0. Rejects, the store left open, when it
 * cannot listen (`EADDRINUSE`).
 */
export async function serveApi(rt: Runtime): Promise<string> {
  const burstLimiter =
    rt.config.redisUrl === null
      ? createMemoryBurstLimiter()
      : createRedisBurstLimiter(rt.config.redisUrl, {
          prefix: `${rt.config.redisPrefix}burst:`,
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
    adminAt === null ? undefined : new NodeMetrics({ caches: rt.caches, store: rt.store, sources });
  const app = await buildApp({
    store: rt.store,
    config: rt.config,
    sources,
    burstLimiter,
    caches: rt.caches,
    logger: { level: rt.config.logLevel },
    metrics,
  });
  const admin = metrics === undefined ? undefined : await buildAdminServer({ store: rt.store, metrics });
  let address: string;
  try {
    address = await app.listen({ port: rt.config.port, host: rt.config.host });
    if (admin !== undefined && adminAt !== null) {
      const at = await admin.listen({ port: adminAt.port, host: adminAt.host });
      rt.logger.info({ address: at }, `admin listener (metrics, probes) at ${at}`);
    }
  } catch (error) {
    await app.close();
    await admin?.close();
    await burstLimiter.close();
    throw error;
  }
  let ingest: ChildProcess | undefined;
  const schedule =
    rt.config.ingest.schedule === 'daily'
      ? startDailySchedule({
          hourUtc: rt.config.ingest.hourUtc,
          // In a child process, so that parsing and the write transaction never stall requests.
          run: () =>
            new Promise<boolean>((resolve) => {
              // Its log (stderr) is relayed; its stdout, a summary line per source that says again what the
              // log says, is not, so each outcome is logged once.
              const child = spawn(process.execPath, [BIN, 'ingest'], {
                stdio: ['ignore', 'ignore', 'pipe'],
                env: process.env,
              });
              ingest = child;
              relayChildOutput(rt.logger, child.stderr, {
                child: 'ingest',
                childPid: child.pid,
                stream: 'stderr',
              });
              child.on('close', (code) => {
                rt.logger.info({ code }, 'scheduled ingest finished');
                // 75: another node's run holds the lease, and that run is the day's.
                resolve(code === 0 || code === 75);
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
    // The ingest child stops with the node (a supervisor or `kill` stops serve by its pid alone).
    await Promise.all([stopChild(ingest), app.close()]);
    await admin?.close();
    await burstLimiter.close();
    await rt.store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  return address;
}
