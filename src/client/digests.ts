/** Receipt digests reproduced on the caller's side with the service's own planning code (src/domain/check.ts). */
import { normaliseSubmitted, submittedFields, type RejectedEntry } from '../domain/check.ts';
import { resultDigest } from '../domain/digests.ts';

/** What a receipt will say about a submitted list: its `submitted_digest`, `submitted_count` and `rejected`. */
export interface CheckDigest {
  submittedDigest: string;
  submittedCount: number;
  rejectedCount: number;
  /** Values that cannot be normalised, as the receipt lists them (long values shortened the same way). */
  rejected: RejectedEntry[];
}

/**
 * The digest, count and rejections the service records for `identifiers`, computed offline exactly as the service
 * plans a check: every value normalised, the unnormalisable ones rejected, duplicates (same kind and canonical
 * form) counted once. Equal to the receipt's fields for the same list (of a size and content the service accepts).
 */
export function checkDigestOf(identifiers: readonly { kind: string; value: string }[]): CheckDigest {
  const fields = submittedFields(normaliseSubmitted(identifiers));
  return {
    submittedDigest: fields.submitted_digest,
    submittedCount: fields.submitted_count,
    rejectedCount: fields.rejected_count,
    rejected: fields.rejected,
  };
}

/** A receipt's `result_digest` recomputed from its matches: SHA-256 over the distinct matched recall ids. */
export function resultDigestOf(matches: readonly { recall_id: string }[]): string {
  return resultDigest(matches.map((m) => m.recall_id));
}
