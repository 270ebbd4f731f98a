/** The client's entity and envelope types, all derived from the generated OpenAPI types (never written twice). */
import type { components, operations } from './api-types.ts';

type Schemas = components['schemas'];

/** The JSON body an operation answers with `status`. */
type JsonBody<
  Op extends keyof operations,
  Status extends keyof operations[Op]['responses'],
> = operations[Op]['responses'][Status] extends { content: { 'application/json': infer Body } }
  ? Body
  : never;

/** The query parameters an operation accepts. */
type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

/** One normalised recall record, with every extracted identifier (GET /v1/recalls/{id}). */
export type Recall = Schemas['Recall'];
/** A recall in a list: every field of a Recall but its identifiers (GET /v1/recalls). */
export type RecallSummary = Schemas['RecallSummary'];
/** A recall found by an identifier lookup, with the stored identifier that matched (`match`). */
export type RecallMatch = Schemas['RecallMatch'];
/** A product identifier stored with a recall. */
export type Identifier = Schemas['Identifier'];
/** One observed amendment of a recall. */
export type Revision = Schemas['Revision'];
/** A source feed, its licence and the attribution it requires. */
export type Source = Schemas['Source'];
/** An immutable check receipt with its matches (runCheck, getCheck). */
export type CheckReceipt = Schemas['CheckReceipt'];
/** A receipt as GET /v1/checks lists it (without matches). */
export type CheckReceiptSummary = Schemas['CheckReceiptSummary'];
/** One (checked identifier, matched recall) pair of a receipt. */
export type MatchEntry = Schemas['CheckMatch'];
/** A submitted identifier the service could not normalise, and why. */
export type RejectedEntry = CheckReceipt['rejected'][number];
/** Service and per-source health. */
export type Health = Schemas['Health'];
/** The `meta` of a single object's answer and of the source list. */
export type Meta = Schemas['Meta'];
/** The `meta` of the four paged lists: `limit` and `next_cursor` always. */
export type PageMeta = Schemas['PageMeta'];
/** An RFC 9457 problem document; branch on `type`. */
export type Problem = Schemas['Problem'];
/** The stable problem types. */
export type ProblemType = Problem['type'];

/** GET /v1/recalls. */
export type RecallPage = JsonBody<'listRecalls', 200>;
/** GET /v1/recalls/{id}. */
export type RecallEnvelope = JsonBody<'getRecall', 200>;
/** GET /v1/recalls/{id}/revisions. */
export type RevisionPage = JsonBody<'listRecallRevisions', 200>;
/** GET /v1/identifiers/{kind}/{value}. */
export type LookupPage = JsonBody<'lookupByIdentifier', 200>;
/** POST /v1/checks and GET /v1/checks/{id}. */
export type CheckEnvelope = JsonBody<'runCheck', 201>;
/** GET /v1/checks. */
export type CheckPage = JsonBody<'listChecks', 200>;
/** GET /v1/sources. */
export type SourcePage = JsonBody<'listSources', 200>;

/** The body of POST /v1/checks: at most 1000 identifiers and an optional label. */
export type CheckRequest = NonNullable<operations['runCheck']['requestBody']>['content']['application/json'];
/** Filters and paging of GET /v1/recalls. */
export type ListRecallsQuery = Query<'listRecalls'>;
/** Paging of GET /v1/recalls/{id}/revisions. */
export type ListRevisionsQuery = Query<'listRecallRevisions'>;
/** Paging of GET /v1/identifiers/{kind}/{value}. */
export type LookupQuery = Query<'lookupByIdentifier'>;
/** Paging of GET /v1/checks. */
export type ListChecksQuery = Query<'listChecks'>;

/** A 2xx answer: the parsed body, the body text exactly as served, its ETag and all headers. */
export interface Served<T> {
  status: number;
  data: T;
  /** The body as served, byte for byte once decoded as UTF-8: what to save to reproduce a receipt. */
  text: string;
  /** The weak ETag to send back as `ifNoneMatch`, when the answer had one. */
  etag: string | null;
  headers: Headers;
}

/** A 304 answer to a conditional request: what the caller holds is still current. */
export interface NotModified {
  status: 304;
  notModified: true;
  etag: string | null;
}

/** A conditional request: `ifNoneMatch` is the ETag of the copy the caller holds (null or absent: none). */
export interface Conditional {
  ifNoneMatch?: string | null;
}

/** Whether an answer is a 304 (narrows `Served<T> | NotModified`). */
export function isNotModified<T>(answer: Served<T> | NotModified): answer is NotModified {
  return 'notModified' in answer;
}
