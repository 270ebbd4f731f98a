/**
 * The typed client of the Recall and Safety Alert Service (`recall-alert-service/client`): the HTTP client, the
 * entity types generated from the published OpenAPI document, and the very identifier normaliser and digest
 * functions the service runs, so that a caller never re-implements them.
 */
export {
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_WAIT_SECONDS,
  MAX_RETRIES_LIMIT,
  MAX_RETRY_WAIT_SECONDS_LIMIT,
  RecallsClient,
  type CheckAnswer,
  type RecallsClientOptions,
  type RunCheckOptions,
} from './client.ts';
export { RecallsApiError } from './errors.ts';
export type { RetryInfo } from './transport.ts';
export {
  isNotModified,
  type CheckEnvelope,
  type CheckPage,
  type CheckReceipt,
  type CheckReceiptSummary,
  type CheckRequest,
  type Conditional,
  type Health,
  type Identifier,
  type ListChecksQuery,
  type ListRecallsQuery,
  type ListRevisionsQuery,
  type LookupPage,
  type LookupQuery,
  type MatchEntry,
  type Meta,
  type PageMeta,
  type NotModified,
  type Problem,
  type ProblemType,
  type Recall,
  type RecallEnvelope,
  type RecallMatch,
  type RecallPage,
  type RecallSummary,
  type RejectedEntry,
  type Revision,
  type RevisionPage,
  type Served,
  type Source,
  type SourcePage,
} from './types.ts';
export type { components, operations, paths } from './api-types.ts';
export { checkDigestOf, resultDigestOf, type CheckDigest } from './digests.ts';
export { resultDigest, submittedDigest } from '../domain/digests.ts';
export {
  IDENTIFIER_KINDS,
  MAX_VALUE_LENGTH,
  REJECTION_REASONS,
  normaliseIdentifier,
  type IdentifierKind,
  type Normalised,
  type RejectionReason,
} from '../domain/identifiers/index.ts';
