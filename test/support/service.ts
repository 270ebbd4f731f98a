/**
 * Starts the real service for a test: a temporary SQLite file, the app listening on
 * 127.0.0.1 on a free port, and helpers to issue keys and seed the corpus.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.ts';
import { usageMonth } from '../../src/domain/meters.ts';
import type { RecallDraft } from '../../src/domain/recall.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { createMemoryBurstLimiter } from '../../src/node/burst-limiter.ts';
import { SOURCE_ADAPTERS, SOURCE_IDS } from '../../src/ingest/registry.ts';
import { REPORT_MS } from '../../src/quota/ledger.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { createTestDatabase } from './database.ts';
import { watchResponses } from './openapi-responses.ts';
import { until } from './until.ts';
import { CacheRegistry } from '../../src/node/caches.ts';

export interface TestService {
  url: string;
  store: Store;
  config: Config;
  dir: string;
  app: App;
  /** Issues a key on a plan and returns it in clear. */
  key(plan?: 'free' | 'starter' | 'growth' | 'scale'): Promise<string>;
  /** Applies drafts as one observation of a source. */
  seed(
    drafts: RecallDraft[],
    options?: { sourceId?: string; dataAsOf?: string; observedAt?: string },
  ): Promise<void>;
  /** GET/POST with JSON and a key. */
  request(
    path: string,
    init?: {
      key?: string;
      method?: string;
      body?: unknown;
      rawBody?: string;
      headers?: Record<string, string>;
    },
  ): Promise<Response>;
  close(): Promise<void>;
}

export async function startService(
  options: {
    env?: Record<string, string>;
    clock?: () => Date;
    engine?: 'sqlite' | 'postgres';
    /** Fastify's logger option (none by default). */
    logger?: Record<string, unknown>;
  } = {},
): Promise<TestService> {
  const dir = mkdtempSync(join(tmpdir(), 'recalls-test-'));
  // Loopback is exempt from burst limits unless a test is about them (it sets RECALLS_BURST_EXEMPT).
  const config = loadConfig(
    { RECALLS_ARCHIVE_DIR: join(dir, 'archive'), RECALLS_BURST_EXEMPT: '127.0.0.1,::1', ...options.env },
    SOURCE_IDS,
  );
  const testDb = await createTestDatabase(dir, options.engine);
  config.database = testDb.database;
  const caches = new CacheRegistry();
  const store = await openStore(config.database, { caches });
  await store.sources.register(
    SOURCE_ADAPTERS.map((a) => ({ id: a.meta.id, agency: a.meta.agency, jurisdiction: a.meta.jurisdiction })),
  );
  const app = await buildApp({
    store,
    config,
    sources: SOURCE_ADAPTERS.map((a) => a.meta),
    burstLimiter: createMemoryBurstLimiter(),
    caches,
    clock: options.clock,
    logger: options.logger,
  });
  // Every answer is checked against the OpenAPI document; close() fails on any that does not conform.
  const conformance = watchResponses(app);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const service: TestService = {
    url: address,
    store,
    config,
    dir,
    app,
    async key(plan = 'scale') {
      return (await store.keys.create(plan, null, new Date())).key;
    },
    async seed(drafts, o = {}) {
      const observedAt = o.observedAt ?? new Date().toISOString();
      await store.ingest.apply({
        sourceId: o.sourceId ?? 'us-fda-food',
        jurisdiction: 'US',
        drafts,
        dataAsOf: o.dataAsOf ?? '2026-06-17',
        observedAt,
      });
    },
    async request(path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      if (init.key !== undefined) headers.authorization = `Bearer ${init.key}`;
      let body: string | undefined = init.rawBody;
      if (init.body !== undefined) {
        body = JSON.stringify(init.body);
        headers['content-type'] ??= 'application/json';
      }
      return fetch(`${address}${path}`, {
        method: init.method ?? (body === undefined ? 'GET' : 'POST'),
        headers,
        body,
      });
    },
    async close() {
      await app.close();
      await store.close().catch(() => {}); // a test may have closed it already
      await testDb.drop();
      rmSync(dir, { recursive: true, force: true });
      if (conformance.violations.length > 0) {
        throw new Error(
          `${conformance.violations.length} answer(s) do not conform to the OpenAPI document:\n` +
            conformance.violations.slice(0, 20).join('\n'),
        );
      }
    },
  };
  return service;
}

/** A project-written draft with sensible defaults; override what the test is about. */
export function draft(recordId: string, overrides: Partial<RecallDraft> = {}): RecallDraft {
  return {
    recordId,
    title: `Test product ${recordId}`,
    summary: 'Test recall written by the test suite.',
    hazard: { category: 'undeclared_allergen', text: 'Contains undeclared milk.' },
    product: { category: 'food', brands: [], models: [] },
    severity: 'medium',
    source_classification: 'Class II',
    remedy: 'unknown',
    recall_date: '2024-01-10',
    published_date: '2024-01-17',
    countries: ['US'],
    url: `https://example.test/recalls/${recordId}`,
    identifiers: [],
    ...overrides,
  };
}

/**
 * Waits until a key's usage this month is `expected`: a refused request's reservation is given
 * back, and unmetered usage written, only after the answer has been sent.
 */
export async function usageReaches(
  s: TestService,
  key: string,
  expected: { requests: number; identifiers: number },
  month = usageMonth(new Date()),
): Promise<void> {
  const id = (await s.store.keys.findByKey(key))!.id;
  let seen = await s.store.usage.get(id, month);
  await until(
    async () => {
      seen = await s.store.usage.get(id, month);
      return seen.requests === expected.requests && seen.identifiers === expected.identifiers;
    },
    () => `usage ${JSON.stringify(seen)}, expected ${JSON.stringify(expected)}`,
  );
}

/**
 * A key's usage of a month once every answered request is reported: the same reading over more than two
 * report periods of the quota ledger (quota/ledger.ts REPORT_MS), which reports within one period.
 */
export async function settledUsage(
  s: TestService,
  key: string,
  month = usageMonth(new Date()),
): Promise<{ requests: number; identifiers: number }> {
  const id = (await s.store.keys.findByKey(key))!.id;
  const period = 2 * REPORT_MS + 50;
  let last = await s.store.usage.get(id, month);
  let now = last;
  await new Promise((resolve) => setTimeout(resolve, period));
  await until(
    async () => {
      now = await s.store.usage.get(id, month);
      const same = now.requests === last.requests && now.identifiers === last.identifiers;
      last = now;
      return same;
    },
    () => `usage still moving: ${JSON.stringify(now)}`,
    { intervalMs: period },
  );
  return now;
}

/** Reads a JSON body, failing loudly on a non-JSON answer. */
export async function json<T = any>(response: Response): Promise<T> {
  const text = await response.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`not JSON (status ${response.status}): ${text.slice(0, 300)}`);
  }
}
