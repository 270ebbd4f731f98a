/** Fastify augmentations for what gates attach to a request and routes declare; the HTTP layer's inputs. */
import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import type { Config, Plan } from '../config.ts';
import type { SourceMeta } from '../ingest/source.ts';
import type { Store } from '../store/database.ts';
import type { ApiKeyRecord } from '../store/keys-store.ts';
import type { LedgerFigures, QuotaHold } from '../quota/ledger.ts';
import type { BurstLimiter } from '../node/burst-limiter.ts';
import type { CacheRegistry } from '../node/caches.ts';

/** A JSON Schema, opaque here (a TSchema would make every route's type instantiation too deep). */
type JsonSchema = object;

/** Who is calling, as resolved from the request's key headers. */
export type AuthState =
  | { state: 'missing' }
  | { state: 'invalid'; detail?: string }
  | { state: 'revoked'; key: ApiKeyRecord; plan: Plan }
  | { state: 'valid'; key: ApiKeyRecord; plan: Plan };

/** What the HTTP layer tells the admin listener's metrics (admin/metrics.ts); nothing when it is off. */
export interface AppMetrics {
  /** The onResponse hook a route's options carry, counting its answers (`pattern`: the route's, none for a 404). */
  answered(pattern: string | undefined): RouteAnswered;
  /** Reads the quota ledger's figures at each scrape. */
  watchLedger(figures: () => LedgerFigures): void;
}

/** A route's own onResponse hook. */
export type RouteAnswered = (request: FastifyRequest, reply: FastifyReply, done: () => void) => void;

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
    /** The plan the burst limit was first measured against, before the key was looked up (access.ts). */
    burstPlan: Plan | undefined;
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
  /** The process's named caches (node/caches.ts), the store's among them: the app lists its own there too. */
  caches: CacheRegistry;
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

/** GET, and HEAD, which is answered as GET without the body. */
export function isRead(request: FastifyRequest): boolean {
  return request.method === 'GET' || request.method === 'HEAD';
}

/** The route's key rule when its key is checked at all (not public, not an undeclared route). */
export function keyRule(request: FastifyRequest): 'key' | 'optional-key' | undefined {
  const { access } = routeConfig(request);
  return access === 'public' ? undefined : access;
}
