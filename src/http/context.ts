/** Fastify augmentations for what gates attach to a request and routes declare; the HTTP layer's inputs. */
import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';
import type { Config, Plan } from '../config.ts';
import type { SourceMeta } from '../ingest/source.ts';
import type { Store } from '../store/database.ts';
import type { ApiKeyRecord } from '../store/keys-store.ts';
import type { BurstDecision, BurstLimiter } from './gates/burst-limiter.ts';

/** A JSON Schema, opaque here (a TSchema would make every route's type instantiation too deep). */
type JsonSchema = object;

/** Who is calling, as resolved from the request's key headers. */
export type AuthState =
  | { state: 'missing' }
  | { state: 'invalid'; detail?: string }
  | { state: 'revoked'; key: ApiKeyRecord; plan: Plan }
  | { state: 'valid'; key: ApiKeyRecord; plan: Plan };

/**
 * A request's unit of its key's monthly request quota, taken before the handler (quota-ledger.ts). It
 * becomes used when a 2xx answer has been sent in full, and is freed when the answer is anything else,
 * is waived, or the connection closes before the answer was sent — unless it was kept.
 */
export interface QuotaHold {
  /** The connection closed before an answer was sent: nothing should be recorded for this request. */
  readonly abandoned: boolean;
  /** Frees the unit although the answer is 2xx (an idempotent replay is free). */
  waive(): void;
  /** Uses the unit even if the answer is never received (a receipt was recorded: it can be read back). */
  keep(): void;
  /** Runs `record` (which may `keep`) with the hold unsettled until it ends, even if the connection closes. */
  recording<T>(record: () => Promise<T>): Promise<T>;
}

/** What a node's ledger has done since it started (totals) and holds now, for the metrics. */
export interface LedgerFigures {
  /** Leases the database granted units to, and leases it refused (the month used up). */
  grantedLeases: number;
  refusedLeases: number;
  /** Units leased, units reported as used, and unused units given back, in all. */
  leasedUnits: number;
  reportedUnits: number;
  returnedUnits: number;
  /** Units leased and not yet reported or given back now, over every entry. */
  heldUnits: number;
  /** Keys' months with an entry now. */
  keys: number;
}

/** What the HTTP layer tells the admin listener's metrics (admin/metrics.ts); nothing when it is off. */
export interface AppMetrics {
  /** Counts each answer of `app` once it has been sent. */
  observe(app: FastifyInstance): void;
  /** Reads the quota ledger's figures at each scrape. */
  watchLedger(figures: () => LedgerFigures): void;
}

/** The tag of one corpus-backed request at one version, and whether it has been answered 200. */
export interface CorpusTag {
  readonly tag: string;
  answered: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `key`: a valid key is required; `optional-key`: served without, refused with a bad one; `public`: never checked. */
    access?: 'key' | 'optional-key' | 'public';
    /** How the weak ETag is derived: from the corpus version (and the key's receipts), or from the body. */
    etag?: 'corpus' | 'corpus-key' | 'body';
    /**
     * Request schemas for the OpenAPI document only, where the handler checks more than the runtime schema
     * says (a kind in any case, a header read raw): they replace the route's own `params`/`headers` there.
     */
    openapi?: { params?: JsonSchema; headers?: JsonSchema };
  }
  interface FastifyRequest {
    auth: AuthState;
    /** The SHA-256 of a well-formed presented key, looked up after the burst gate. */
    keyHash: string | undefined;
    /** The plan the burst limit is measured against when known before the key is looked up. */
    burstPlan: Plan | undefined;
    /** The burst gate's count of this request, when it was counted. */
    burst: BurstDecision | undefined;
    quotaHold: QuotaHold | undefined;
    /** The corpus version read with the key (or before the ETag), for every use in this request. */
    corpusVersion: number | undefined;
    /** The corpus-backed request's tag at its version. */
    corpusTag: CorpusTag | undefined;
    /** Whether the answer was sent from the answer cache (and so is not kept again). */
    cachedAnswer: boolean;
    /** The route's options, once read (`routeOptionsOf`). */
    routeOptionsRead: FastifyRequest['routeOptions'] | undefined;
  }
}

/** What the HTTP layer is built from. */
export interface AppDeps {
  store: Store;
  config: Config;
  /** Every registered source's static facts, in source-id order. */
  sources: readonly SourceMeta[];
  burstLimiter: BurstLimiter;
  clock?: () => Date;
  /** Fastify logger option: false in tests, pino options when serving. */
  logger?: boolean | Record<string, unknown>;
  /** The admin listener's metrics, told of every answer and the quota ledger; none when it is off. */
  metrics?: AppMetrics;
}

/**
 * The route's options, read from Fastify once per request: its `routeOptions` getter builds a new object of
 * thirteen fields on every read, and the gates ask for the route's config about ten times a request.
 */
export function routeOptionsOf(request: FastifyRequest): FastifyRequest['routeOptions'] {
  return (request.routeOptionsRead ??= request.routeOptions);
}

/** The route's config (`routeOptionsOf`). */
export function routeConfig(request: FastifyRequest): FastifyContextConfig {
  return routeOptionsOf(request).config;
}

/** The route's key rule when its key is checked at all (not public, not an undeclared route). */
export function keyRule(request: FastifyRequest): 'key' | 'optional-key' | undefined {
  const { access } = routeConfig(request);
  return access === 'public' ? undefined : access;
}
