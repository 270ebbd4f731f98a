/**
 * The tables, as the query builder sees them. Timestamps are ISO-8601 UTC strings with
 * milliseconds (they sort as text on both engines); lists and objects are JSON text; booleans
 * are 0/1 integers. The same column types work on SQLite and PostgreSQL.
 */
import type { Generated } from 'kysely';
import type { Confidence, IdentifierKind } from '../domain/identifiers/kinds.ts';
import type { HazardCategory, Remedy, Severity } from '../domain/taxonomy.ts';

/** The sort date of a recall with no publication date: below every real date, so undated come last. */
export const NO_SORT_DATE = '0000-00-00';

export interface SourcesTable {
  id: string;
  agency: string;
  jurisdiction: string;
  enabled: number;
  data_as_of: string | null;
  last_success_at: string | null;
  last_attempt_at: string | null;
  last_error: string | null;
  consecutive_failures: number;
  /** Records the last successful run could not read (the first of them are in set_aside_records). */
  set_aside: Generated<number>;
  /** The last run's duration in milliseconds, and the records its last success read (0009). */
  last_run_ms: number | null;
  last_run_records: number | null;
}

/** A record the last successful run of its source set aside, with the reason. */
export interface SetAsideRecordsTable {
  source_id: string;
  /** Its order among the run's records set aside, from 0. */
  position: number;
  record: string;
  reason: string;
}

export interface RecallsTable {
  id: string;
  source_id: string;
  record_id: string;
  jurisdiction: string;
  title: string | null;
  summary: string | null;
  hazard_category: HazardCategory | null;
  hazard_text: string | null;
  product_category: string | null;
  brands: string;
  models: string;
  severity: Severity | null;
  source_classification: string | null;
  remedy: Remedy | null;
  recall_date: string | null;
  published_date: string | null;
  /** published_date, or NO_SORT_DATE when there is none: keyset paging on one non-null column. */
  sort_date: string;
  countries: string;
  url: string | null;
  revision: number;
  /** SHA-256 of the canonical public content; equal hash means no amendment. */
  content_hash: string;
  /** The canonical public content as JSON, kept to compute the next field diff. */
  content: string;
  /** The content fields as served (`renderContentFields`), rendered whenever the content is written. */
  rendered_fields: string;
  /** The identifiers as one recall serves them (`renderIdentifiers`), rendered with the content. */
  rendered_identifiers: string;
  first_seen_at: string;
  last_seen_at: string;
}

export interface IdentifiersTable {
  recall_id: string;
  kind: IdentifierKind;
  value: string;
  normalized: string;
  confidence: Confidence;
  match_key: string;
  product_key: string | null;
}

export interface RevisionsTable {
  recall_id: string;
  revision: number;
  observed_at: string;
  changed_fields: string;
  data_as_of: string | null;
}

export interface ApiKeysTable {
  id: string;
  prefix: string;
  key_hash: string;
  name: string | null;
  plan: string;
  created_at: string;
  revoked_at: string | null;
}

export interface UsageTable {
  key_id: string;
  month: string;
  /** Requests answered and reported by their node. */
  requests: number;
  identifiers: number;
  /** Requests API nodes hold leased: reported used or given back later, or a killed node's for good. */
  requests_leased: number;
}

export interface ChecksTable {
  seq: Generated<number>;
  check_id: string;
  key_id: string;
  label: string | null;
  performed_at: string;
  submitted_count: number;
  submitted_digest: string;
  rejected: string;
  match_count: number;
  result_digest: string;
  corpus_as_of: string | null;
  corpus_size: number;
  matches: string;
  idempotency_key: string | null;
  request_hash: string | null;
  /** Which use of `idempotency_key` this receipt is (1, 2, … once the previous use expired); null without a key or before migration 0003. */
  idempotency_generation: number | null;
}

/** One row (id 1), in the corpus: the corpus version nodes keep in memory (store-state.ts). */
export interface CorpusStateTable {
  id: number;
  /** Moves when a corpus-backed body would change: records, revisions, a source's served state. */
  version: number;
  updated_at: string;
}

/** One row (id 1), among the service's records: the keys version nodes keep in memory (store-state.ts). */
export interface KeysStateTable {
  id: number;
  /** Moves (by trigger) on every change to api_keys. */
  keys_version: number;
}

export interface LocksTable {
  name: string;
  holder: string;
  acquired_at: string;
  expires_at: string;
}

/** One row (id 1): the secret every node signs paging cursors with, 32 random bytes as hex. */
export interface CursorSecretTable {
  id: number;
  secret: string;
}

export interface Database {
  sources: SourcesTable;
  recalls: RecallsTable;
  identifiers: IdentifiersTable;
  revisions: RevisionsTable;
  api_keys: ApiKeysTable;
  usage: UsageTable;
  checks: ChecksTable;
  corpus_state: CorpusStateTable;
  keys_state: KeysStateTable;
  locks: LocksTable;
  set_aside_records: SetAsideRecordsTable;
  cursor_secret: CursorSecretTable;
}
