/** The typed client of the Recall and Safety Alert Service, on openapi-fetch and the generated `paths`. */
import createClient, { type Client } from 'openapi-fetch';
import type { IdentifierKind } from '../domain/identifiers/kinds.ts';
import type { paths } from './api-types.ts';
import { RecallsApiError } from './errors.ts';
import { createTransport, type RetryInfo, type Transport } from './transport.ts';
import type {
  CheckEnvelope,
  CheckPage,
  CheckReceiptSummary,
  CheckRequest,
  Conditional,
  Health,
  ListChecksQuery,
  ListRecallsQuery,
  ListRevisionsQuery,
  LookupPage,
  LookupQuery,
  PageMeta,
  NotModified,
  RecallSummary,
  RecallEnvelope,
  RecallMatch,
  RecallPage,
  Revision,
  RevisionPage,
  Served,
  SourcePage,
} from './types.ts';

/** Retries of a 429 or of a network error, by default. */
export const DEFAULT_MAX_RETRIES = 5;
/** The most retries a client may be given. */
export const MAX_RETRIES_LIMIT = 100;
/** The longest single wait before a retry, by default, in seconds. */
export const DEFAULT_MAX_RETRY_WAIT_SECONDS = 60;
/** The most `maxRetryWaitSeconds` may be: one hour. */
export const MAX_RETRY_WAIT_SECONDS_LIMIT = 3600;

/** How a client reaches the service and how patient it is. */
export interface RecallsClientOptions {
  /** The service's base address, e.g. `https://recalls.example` (paths start with /v1). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; health and sources need none. */
  apiKey?: string;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /**
   * Retries after the first attempt, 0 to {@link MAX_RETRIES_LIMIT} (default {@link DEFAULT_MAX_RETRIES}): of a 429
   * on any request, and of a network error on a GET or on a runCheck given an `idempotencyKey`. A 402 (quota)
   * or any other status is never retried.
   */
  maxRetries?: number;
  /**
   * The longest single wait in seconds, 0 to {@link MAX_RETRY_WAIT_SECONDS_LIMIT} (default
   * {@link DEFAULT_MAX_RETRY_WAIT_SECONDS}): a 429 whose `Retry-After`
   * asks for longer is thrown at once (its `retryAfterSeconds` says how long), and network-error backoff
   * (1, 2, 4 … seconds) is capped at it. A call therefore waits at most `maxRetries × maxRetryWaitSeconds`.
   */
  maxRetryWaitSeconds?: number;
  /** Called before each wait, e.g. to show "rate limited, retrying in 12 s". */
  onRetry?: (info: RetryInfo) => void;
}

/** Options of runCheck. */
export interface RunCheckOptions {
  /**
   * Sent as `Idempotency-Key` (1 to 255 printable ASCII characters): the same key and body within 24 hours
   * replays the first receipt instead of charging again, so the request is also retried after a network error.
   */
  idempotencyKey?: string;
}

/** A receipt as POST /v1/checks answered it; `replayed` when an Idempotency-Key replayed an earlier one. */
export type CheckAnswer = Served<CheckEnvelope> & { replayed: boolean };

/** What openapi-fetch resolves with: the parsed body of a 2xx, and the answer. */
interface FetchResult<T> {
  data?: T;
  response: Response;
}

/** `value` when an integer from 0 to `max`, `fallback` when undefined; RangeError otherwise. */
function boundedInteger(name: string, value: number | undefined, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0 || value > max)
    throw new RangeError(`${name} must be an integer from 0 to ${max}, not ${value}`);
  return value;
}

function conditionalHeaders(conditional: Conditional | undefined): Record<string, string> {
  const tag = conditional?.ifNoneMatch;
  return tag === undefined || tag === null ? {} : { 'if-none-match': tag };
}

/** Yields every item of every page, following `meta.next_cursor` until it is null (or absent). */
async function* walk<T>(
  page: (cursor: string | undefined) => Promise<Served<{ data: T[]; meta: PageMeta }>>,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const { data } = await page(cursor);
    yield* data.data;
    const next = data.meta.next_cursor ?? undefined;
    // A cursor that does not move would walk forever; the service never answers one.
    if (next !== undefined && next === cursor) throw new Error(`the cursor ${next} led back to itself`);
    cursor = next;
  } while (cursor !== undefined);
}

/**
 * One client per service and key. Every method resolves with the parsed body, its text as served and its ETag,
 * or throws {@link RecallsApiError} carrying the problem document; a conditional request may resolve with
 * {@link NotModified}. The client holds no state between calls and may be shared.
 */
export class RecallsClient {
  private readonly api: Client<paths>;
  private readonly transport: Transport;

  constructor(options: RecallsClientOptions) {
    this.transport = createTransport(options.fetch ?? globalThis.fetch, {
      maxRetries: boundedInteger('maxRetries', options.maxRetries, MAX_RETRIES_LIMIT, DEFAULT_MAX_RETRIES),
      maxRetryWaitSeconds: boundedInteger(
        'maxRetryWaitSeconds',
        options.maxRetryWaitSeconds,
        MAX_RETRY_WAIT_SECONDS_LIMIT,
        DEFAULT_MAX_RETRY_WAIT_SECONDS,
      ),
      onRetry: options.onRetry,
    });
    this.api = createClient<paths>({
      baseUrl: options.baseUrl,
      fetch: this.transport.fetch,
      headers: options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` },
    });
  }

  /** A 2xx answer, or the RecallsApiError of any other. */
  private served<T>(result: FetchResult<T>): Served<T> {
    const { response } = result;
    const text = this.transport.textOf(response);
    if (!response.ok || result.data === undefined) throw new RecallsApiError(response, text);
    return {
      status: response.status,
      data: result.data,
      text,
      etag: response.headers.get('etag'),
      headers: response.headers,
    };
  }

  /** A 304 as NotModified, else as {@link served}. */
  private servedOrNotModified<T>(result: FetchResult<T>): Served<T> | NotModified {
    if (result.response.status !== 304) return this.served(result);
    return { status: 304, notModified: true, etag: result.response.headers.get('etag') };
  }

  /** GET /v1/recalls: one page, newest first; `meta.next_cursor` leads to the next. */
  listRecalls(query?: ListRecallsQuery): Promise<Served<RecallPage>>;
  listRecalls(
    query: ListRecallsQuery | undefined,
    conditional: Conditional,
  ): Promise<Served<RecallPage> | NotModified>;
  async listRecalls(
    query?: ListRecallsQuery,
    conditional?: Conditional,
  ): Promise<Served<RecallPage> | NotModified> {
    return this.servedOrNotModified(
      await this.api.GET('/v1/recalls', { params: { query }, headers: conditionalHeaders(conditional) }),
    );
  }

  /** Every recall matching `query`, page after page to the end of the cursor walk. */
  recalls(query: Omit<ListRecallsQuery, 'cursor'> = {}): AsyncGenerator<RecallSummary, void, undefined> {
    return walk((cursor) => this.listRecalls({ ...query, cursor }));
  }

  /** GET /v1/recalls/{id}: one recall with every extracted identifier (404 when unknown). */
  getRecall(id: string): Promise<Served<RecallEnvelope>>;
  getRecall(id: string, conditional: Conditional): Promise<Served<RecallEnvelope> | NotModified>;
  async getRecall(id: string, conditional?: Conditional): Promise<Served<RecallEnvelope> | NotModified> {
    return this.servedOrNotModified(
      await this.api.GET('/v1/recalls/{id}', {
        params: { path: { id } },
        headers: conditionalHeaders(conditional),
      }),
    );
  }

  /** GET /v1/recalls/{id}/revisions: one page of the amendment history, oldest first. */
  listRecallRevisions(id: string, query?: ListRevisionsQuery): Promise<Served<RevisionPage>>;
  listRecallRevisions(
    id: string,
    query: ListRevisionsQuery | undefined,
    conditional: Conditional,
  ): Promise<Served<RevisionPage> | NotModified>;
  async listRecallRevisions(
    id: string,
    query?: ListRevisionsQuery,
    conditional?: Conditional,
  ): Promise<Served<RevisionPage> | NotModified> {
    return this.servedOrNotModified(
      await this.api.GET('/v1/recalls/{id}/revisions', {
        params: { path: { id }, query },
        headers: conditionalHeaders(conditional),
      }),
    );
  }

  /** A recall's whole amendment history. */
  revisions(
    id: string,
    query: Omit<ListRevisionsQuery, 'cursor'> = {},
  ): AsyncGenerator<Revision, void, undefined> {
    return walk((cursor) => this.listRecallRevisions(id, { ...query, cursor }));
  }

  /**
   * GET /v1/identifiers/{kind}/{value}: recalls holding one identifier, normalised by the service as at ingestion
   * (400 `parameter: value` when it cannot be; `data: []` when nothing matches).
   */
  lookup(kind: IdentifierKind, value: string, query?: LookupQuery): Promise<Served<LookupPage>>;
  lookup(
    kind: IdentifierKind,
    value: string,
    query: LookupQuery | undefined,
    conditional: Conditional,
  ): Promise<Served<LookupPage> | NotModified>;
  async lookup(
    kind: IdentifierKind,
    value: string,
    query?: LookupQuery,
    conditional?: Conditional,
  ): Promise<Served<LookupPage> | NotModified> {
    return this.servedOrNotModified(
      await this.api.GET('/v1/identifiers/{kind}/{value}', {
        params: { path: { kind, value }, query },
        headers: conditionalHeaders(conditional),
      }),
    );
  }

  /** Every recall holding one identifier, to the end of the cursor walk. */
  lookupAll(
    kind: IdentifierKind,
    value: string,
    query: Omit<LookupQuery, 'cursor'> = {},
  ): AsyncGenerator<RecallMatch, void, undefined> {
    return walk((cursor) => this.lookup(kind, value, { ...query, cursor }));
  }

  /**
   * POST /v1/checks: checks up to 1000 identifiers and records the receipt (201). A 429 is retried; a network
   * error only with `idempotencyKey`, whose replay answers the first receipt with `replayed: true`.
   */
  async runCheck(body: CheckRequest, options: RunCheckOptions = {}): Promise<CheckAnswer> {
    const header = options.idempotencyKey === undefined ? {} : { 'Idempotency-Key': options.idempotencyKey };
    const served = this.served(await this.api.POST('/v1/checks', { params: { header }, body }));
    return { ...served, replayed: served.headers.get('idempotent-replayed') === 'true' };
  }

  /** GET /v1/checks: one page of the calling key's receipts, newest first, without matches. */
  listChecks(query?: ListChecksQuery): Promise<Served<CheckPage>>;
  listChecks(
    query: ListChecksQuery | undefined,
    conditional: Conditional,
  ): Promise<Served<CheckPage> | NotModified>;
  async listChecks(
    query?: ListChecksQuery,
    conditional?: Conditional,
  ): Promise<Served<CheckPage> | NotModified> {
    return this.servedOrNotModified(
      await this.api.GET('/v1/checks', { params: { query }, headers: conditionalHeaders(conditional) }),
    );
  }

  /** Every receipt of the calling key, newest first. */
  checks(query: Omit<ListChecksQuery, 'cursor'> = {}): AsyncGenerator<CheckReceiptSummary, void, undefined> {
    return walk((cursor) => this.listChecks({ ...query, cursor }));
  }

  /** GET /v1/checks/{id}: one receipt with its matches frozen as at check time (404 for another key's). */
  getCheck(id: string): Promise<Served<CheckEnvelope>>;
  getCheck(id: string, conditional: Conditional): Promise<Served<CheckEnvelope> | NotModified>;
  async getCheck(id: string, conditional?: Conditional): Promise<Served<CheckEnvelope> | NotModified> {
    return this.servedOrNotModified(
      await this.api.GET('/v1/checks/{id}', {
        params: { path: { id } },
        headers: conditionalHeaders(conditional),
      }),
    );
  }

  /** GET /v1/sources: every source with its licence and the attribution it requires. */
  async listSources(): Promise<Served<SourcePage>> {
    return this.served(await this.api.GET('/v1/sources'));
  }

  /** GET /v1/health: service and per-source health (no key needed). */
  async getHealth(): Promise<Served<Health>> {
    return this.served(await this.api.GET('/v1/health'));
  }
}
