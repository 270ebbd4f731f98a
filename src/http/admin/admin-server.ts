/**
 * The admin listener, a server of its own apart from the public API (`RECALLS_ADMIN_PORT`, on loopback unless
 * `RECALLS_ADMIN_HOST` says otherwise): `/metrics` in the Prometheus text format (metrics.ts), `/livez` (200
 * while the process answers) and `/readyz` (200 when the database answers as the one opened and its
 * migrations are current, else 503). Nothing here is part of the `/v1` contract.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Store } from '../../store/database.ts';
import type { NodeMetrics } from './metrics.ts';

/** How long `/readyz` waits for the database before it answers 503. */
export const READINESS_TIMEOUT_MS = 2000;

export interface AdminDeps {
  store: Store;
  metrics: NodeMetrics;
  readinessTimeoutMs?: number;
}

/** The store's readiness, or not ready when it has not answered within `ms`. */
async function readinessWithin(store: Store, ms: number): ReturnType<Store['readiness']> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ ready: false; reason: string }>((resolve) => {
    timer = setTimeout(
      () => resolve({ ready: false, reason: `the database did not answer within ${ms} ms` }),
      ms,
    );
  });
  try {
    return await Promise.race([store.readiness(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The admin server, ready to listen. */
export async function buildAdminServer(deps: AdminDeps): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, return503OnClosing: false });
  const timeoutMs = deps.readinessTimeoutMs ?? READINESS_TIMEOUT_MS;
  app.addHook('onSend', async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
  });
  app.get('/livez', async () => ({ status: 'live' }));
  app.get('/readyz', async (_request, reply) => {
    const readiness = await readinessWithin(deps.store, timeoutMs);
    if (readiness.ready) return { status: 'ready' };
    return reply.code(503).send({ status: 'not ready', reason: readiness.reason });
  });
  app.get('/metrics', async (_request, reply) => {
    const text = await deps.metrics.scrape();
    return reply.type(deps.metrics.contentType).send(text);
  });
  return app;
}
