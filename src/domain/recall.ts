/**
 * The normalised recall record, as adapters produce it (a draft) and as the store keeps it.
 * Field names follow the public contract; `RecallContent` is the part whose change is an
 * amendment (first/last seen and freshness are not).
 */
import type { Confidence, IdentifierKind } from './identifiers/kinds.ts';
import type { HazardCategory, Remedy, Severity } from './taxonomy.ts';

/** One product identifier attached to a recall. */
export interface Identifier {
  kind: IdentifierKind;
  /** Exactly as the agency published it. */
  value: string;
  /** Canonical form used for matching. */
  normalized: string;
  confidence: Confidence;
}

/** The public, amendable content of a recall: what is compared between observations. */
export interface RecallContent {
  title: string | null;
  summary: string | null;
  hazard: { category: HazardCategory | null; text: string | null };
  product: { category: string | null; brands: string[]; models: string[] };
  severity: Severity | null;
  source_classification: string | null;
  remedy: Remedy | null;
  recall_date: string | null;
  published_date: string | null;
  countries: string[];
  url: string | null;
  identifiers: Identifier[];
}

/** What a source adapter produces for one agency record. Pure data, no ids assigned by the store. */
export interface RecallDraft extends RecallContent {
  /** The agency's own record id (e.g. an FDA recall number). */
  recordId: string;
}

/** A recall as stored and served. */
export interface Recall extends RecallContent {
  id: string;
  source: { id: string; record_id: string; agency: string; jurisdiction: string };
  revision: number;
  data_as_of: string;
  first_seen_at: string;
  last_seen_at: string;
}

/** One observed amendment of a recall. */
export interface Revision {
  revision: number;
  observed_at: string;
  changed_fields: Record<string, { from: unknown; to: unknown }>;
  data_as_of?: string;
}

/** A record id made only of the characters that pass through unescaped. */
const PLAIN_RECORD_ID = /^[A-Za-z0-9-]*$/;

/**
 * Derives the stable recall id from the source id and the agency's record id: URL-safe, no
 * `/`, reversible, and the same on every rebuild. Letters, digits and `-` pass through; every
 * other byte becomes `_` and two hex digits.
 */
export function recallId(sourceId: string, recordId: string): string {
  if (PLAIN_RECORD_ID.test(recordId)) return `${sourceId}.${recordId}`; // nothing to escape
  let out = '';
  for (const byte of Buffer.from(recordId, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9-]/.test(c) ? c : `_${byte.toString(16).padStart(2, '0')}`;
  }
  return `${sourceId}.${out}`;
}
