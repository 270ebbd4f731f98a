/** Fastify augmentations for what gates attach to a request and routes declare; the HTTP layer's inputs. */
import type { FastifyRequest } from 'fastify';
import type { Config, Plan } from '../config.ts';
import type { Metered } from '../domain/meters.ts';
import type { SourceMeta } from '../ingest/source.ts';
import type { Store } from '../store/database.ts';
import type { ApiKeyRecord } from '../store/keys-store.ts';
import type { BurstDecision, BurstLimiter } from './gates/burst-limiter.ts';

/** Who is calling, as resolved from the request's key headers. */
export type AuthState =
  | { state: 'missing' }
  | { state: 'invalid'; detail?: string }
  | { state: 'revoked'; key: ApiKeyRecord; plan: Plan }
  | { state: 'valid'; key: ApiKeyRecord; plan: Plan };

/**
 * A request's usage: `reserved` is held before the handler and given back unless answered 2xx (or `refund`);
 * `deferred` counts against no limit (unmetered) and is recorded only once answered 2xx.
 */
export interface QuotaHold {
  keyId: string;
  month: string;
  reserved: Metered;
  deferred: Metered;
  refund: boolean;
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
}

/** The route's key rule when its key is checked at all (not public, not an undeclared route). */
export function keyRule(request: FastifyRequest): 'key' | 'optional-key' | undefined {
  const { access } = request.routeOptions.config;
  return access === 'public' ? undefined : access;
}
