/**
 * The node's figures in the Prometheus text format (prom-client), served by the admin listener's `/metrics`
 * (admin-server.ts): requests by route pattern and status with their latency, 402 and 429 answers by plan,
 * the quota ledger's leases, the node's caches (node/caches.ts) and each source's last run as the database has it.
 * docs/metrics.md lists every metric. Counted only when the admin listener is on: without it the public
 * app registers none of this.
 */
import type { FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CacheRegistry } from '../../node/caches.ts';
import type { SourceMeta } from '../../ingest/source.ts';
import type { LedgerFigures } from '../../quota/ledger.ts';
import type { Store } from '../../store/database.ts';
import type { AppMetrics, RouteAnswered } from '../context.ts';
import { failedLast, isDegraded } from '../source-catalog.ts';

/** Latency buckets, in seconds: a cached lookup answers in well under a millisecond, a large check in seconds. */
const LATENCY_BUCKETS = [
  0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10,
];

/** The route label of a request that matched no route (a 404 of the router). */
export const UNMATCHED_ROUTE = 'unmatched';

/** What the node's metrics are read from. */
export interface MetricsSources {
  caches: CacheRegistry;
  store: Store;
  /** Every registered source's static facts. */
  sources: readonly SourceMeta[];
  now?: () => Date;
}

/** Seconds since the epoch of an ISO timestamp or `YYYY-MM-DD` date (midnight UTC). */
function epochSeconds(stamp: string): number {
  return Date.parse(stamp.length === 10 ? `${stamp}T00:00:00Z` : stamp) / 1000;
}

/** A counter that reports a total kept elsewhere (a cache's hits): set at each scrape. */
function setTotal<T extends string>(counter: Counter<T>, labels: Partial<Record<T, string>>, total: number) {
  counter.inc(labels, total);
}

export class NodeMetrics implements AppMetrics {
  readonly registry = new Registry();
  private ledger: (() => LedgerFigures) | undefined;
  private readonly now: () => Date;

  private readonly requests = new Histogram({
    name: 'recalls_http_request_duration_seconds',
    help: 'Answers of the public API by method, route pattern and status, and the time each took to answer (its _count is the number of answers)',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly quotaRefusals = new Counter({
    name: 'recalls_quota_exceeded_total',
    help: 'Answers 402 (monthly quota used up), by plan',
    labelNames: ['plan'] as const,
    registers: [this.registry],
  });
  private readonly burstRefusals = new Counter({
    name: 'recalls_rate_limited_total',
    help: 'Answers 429 (burst limit), by the plan the limit was measured against ("none" before the key was known)',
    labelNames: ['plan'] as const,
    registers: [this.registry],
  });

  private readonly leases = new Counter({
    name: 'recalls_quota_leases_total',
    help: "Blocks of a key's monthly requests this node asked the database for, by outcome (refused: none left)",
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly leasedRequests = new Counter({
    name: 'recalls_quota_leased_requests_total',
    help: 'Requests of monthly quotas leased by this node',
    registers: [this.registry],
  });
  private readonly reportedRequests = new Counter({
    name: 'recalls_quota_reported_requests_total',
    help: 'Leased requests this node answered and reported as used',
    registers: [this.registry],
  });
  private readonly returnedRequests = new Counter({
    name: 'recalls_quota_returned_requests_total',
    help: 'Leased requests this node gave back unused',
    registers: [this.registry],
  });
  private readonly heldRequests = new Gauge({
    name: 'recalls_quota_held_requests',
    help: 'Requests this node holds leased now: unused, in flight, or answered and not yet reported',
    registers: [this.registry],
  });
  private readonly quotaKeys = new Gauge({
    name: 'recalls_quota_keys',
    help: "Keys' months this node keeps a quota entry for",
    registers: [this.registry],
  });

  private readonly cacheEntries = new Gauge({
    name: 'recalls_cache_entries',
    help: 'Entries each node-local cache holds',
    labelNames: ['cache'] as const,
    registers: [this.registry],
  });
  private readonly cacheMaxEntries = new Gauge({
    name: 'recalls_cache_max_entries',
    help: 'The most entries a cache holds (caches bounded by entries)',
    labelNames: ['cache'] as const,
    registers: [this.registry],
  });
  private readonly cacheBytes = new Gauge({
    name: 'recalls_cache_bytes',
    help: 'Bytes a cache counts against its budget (caches bounded by bytes)',
    labelNames: ['cache'] as const,
    registers: [this.registry],
  });
  private readonly cacheMaxBytes = new Gauge({
    name: 'recalls_cache_max_bytes',
    help: 'The budget of a cache bounded by bytes (0: turned off)',
    labelNames: ['cache'] as const,
    registers: [this.registry],
  });
  private readonly cacheHits = new Counter({
    name: 'recalls_cache_hits_total',
    help: 'Lookups that found an entry, by cache',
    labelNames: ['cache'] as const,
    registers: [this.registry],
  });
  private readonly cacheMisses = new Counter({
    name: 'recalls_cache_misses_total',
    help: 'Lookups that found none, by cache',
    labelNames: ['cache'] as const,
    registers: [this.registry],
  });

  private readonly sourceRunOk = new Gauge({
    name: 'recalls_source_last_run_ok',
    help: "1 when the source's last run succeeded, 0 when it failed (absent before any run)",
    labelNames: ['source'] as const,
    registers: [this.registry],
  });
  private readonly sourceRunSeconds = new Gauge({
    name: 'recalls_source_last_run_duration_seconds',
    help: "How long the source's last run took, fetch to commit (or to its failure)",
    labelNames: ['source'] as const,
    registers: [this.registry],
  });
  private readonly sourceRunRecords = new Gauge({
    name: 'recalls_source_last_run_records',
    help: "Records the source's last successful run read",
    labelNames: ['source'] as const,
    registers: [this.registry],
  });
  private readonly sourceFailures = new Gauge({
    name: 'recalls_source_consecutive_failures',
    help: 'Failed runs of the source since its last success',
    labelNames: ['source'] as const,
    registers: [this.registry],
  });
  private readonly sourceLastSuccess = new Gauge({
    name: 'recalls_source_last_success_timestamp_seconds',
    help: "When the source's last successful run started (Unix time)",
    labelNames: ['source'] as const,
    registers: [this.registry],
  });
  private readonly sourceDataAsOf = new Gauge({
    name: 'recalls_source_data_as_of_timestamp_seconds',
    help: "The source's freshness stamp, data_as_of (Unix time)",
    labelNames: ['source'] as const,
    registers: [this.registry],
  });
  private readonly sourceHealthy = new Gauge({
    name: 'recalls_source_healthy',
    help: '1 when the source is neither failed nor stale by the rule /v1/health applies, else 0',
    labelNames: ['source'] as const,
    registers: [this.registry],
  });

  constructor(private readonly from: MetricsSources) {
    this.now = from.now ?? (() => new Date());
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * The onResponse hook of one route of the public API, for its options: counts each of its answers once
   * sent, labelled with the route's pattern (`UNMATCHED_ROUTE` for the router's 404, which has none).
   */
  answered(pattern: string | undefined): RouteAnswered {
    const route = pattern ?? UNMATCHED_ROUTE;
    return (request, reply, done) => {
      const status = reply.statusCode;
      this.requests.observe(
        { method: request.method, route, status: String(status) },
        reply.elapsedTime / 1000,
      );
      if (status === 402) this.quotaRefusals.inc({ plan: planOf(request) });
      else if (status === 429) this.burstRefusals.inc({ plan: planOf(request) });
      done();
    };
  }

  /** Reads the quota ledger's figures at each scrape. */
  watchLedger(figures: () => LedgerFigures): void {
    this.ledger = figures;
  }

  /** The exposition: every figure read now (the source states from the database). */
  async scrape(): Promise<string> {
    this.readLedger();
    this.readCaches();
    await this.readSources();
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private readLedger(): void {
    const f = this.ledger?.();
    if (f === undefined) return;
    this.leases.reset();
    setTotal(this.leases, { outcome: 'granted' }, f.grantedLeases);
    setTotal(this.leases, { outcome: 'refused' }, f.refusedLeases);
    this.leasedRequests.reset();
    setTotal(this.leasedRequests, {}, f.leasedUnits);
    this.reportedRequests.reset();
    setTotal(this.reportedRequests, {}, f.reportedUnits);
    this.returnedRequests.reset();
    setTotal(this.returnedRequests, {}, f.returnedUnits);
    this.heldRequests.set(f.heldUnits);
    this.quotaKeys.set(f.keys);
  }

  private readCaches(): void {
    for (const metric of [this.cacheEntries, this.cacheMaxEntries, this.cacheBytes, this.cacheMaxBytes])
      metric.reset();
    this.cacheHits.reset();
    this.cacheMisses.reset();
    for (const f of this.from.caches.figures()) {
      const cache = { cache: f.name };
      this.cacheEntries.set(cache, f.entries);
      if (f.maxEntries !== undefined) this.cacheMaxEntries.set(cache, f.maxEntries);
      if (f.bytes !== undefined) this.cacheBytes.set(cache, f.bytes);
      if (f.maxBytes !== undefined) this.cacheMaxBytes.set(cache, f.maxBytes);
      setTotal(this.cacheHits, cache, f.hits);
      setTotal(this.cacheMisses, cache, f.misses);
    }
  }

  /** Each enabled source's state; none when the database does not answer (`/readyz` says so). */
  private async readSources(): Promise<void> {
    const gauges = [
      this.sourceRunOk,
      this.sourceRunSeconds,
      this.sourceRunRecords,
      this.sourceFailures,
      this.sourceLastSuccess,
      this.sourceDataAsOf,
      this.sourceHealthy,
    ];
    for (const g of gauges) g.reset();
    let states;
    try {
      states = new Map((await this.from.store.sources.list()).map((s) => [s.id, s]));
    } catch {
      return;
    }
    const now = this.now();
    for (const meta of this.from.sources) {
      const state = states.get(meta.id);
      if (state === undefined || !state.enabled) continue;
      const source = { source: meta.id };
      if (state.last_attempt_at !== null) this.sourceRunOk.set(source, failedLast(state) ? 0 : 1);
      if (state.last_run_ms !== null) this.sourceRunSeconds.set(source, state.last_run_ms / 1000);
      if (state.last_run_records !== null) this.sourceRunRecords.set(source, state.last_run_records);
      this.sourceFailures.set(source, state.consecutive_failures);
      if (state.last_success_at !== null)
        this.sourceLastSuccess.set(source, epochSeconds(state.last_success_at));
      if (state.data_as_of !== null) this.sourceDataAsOf.set(source, epochSeconds(state.data_as_of));
      this.sourceHealthy.set(source, isDegraded(meta, state, now) ? 0 : 1);
    }
  }
}

/** The plan a 402 or 429 was measured against: the key's, the one known before its lookup, or none. */
function planOf(request: FastifyRequest): string {
  const auth = request.auth as FastifyRequest['auth'] | null;
  if (auth?.state === 'valid' || auth?.state === 'revoked') return auth.plan.id;
  return request.burstPlan?.id ?? 'none';
}
