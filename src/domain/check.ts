/** A catalogue check as pure steps: plan (normalise, reject, deduplicate, probe keys), then the receipt. */
import { Type, type Static } from '@sinclair/typebox';
import { lookupKeys } from './identifiers/match-keys.ts';
import { normaliseIdentifier } from './identifiers/normalise.ts';
import { REJECTION_REASONS } from './identifiers/kinds.ts';
import { resultDigest, submittedDigest } from './digests.ts';
import { Nullable, StringEnum } from './json-schema.ts';

const MatchEntrySchema = Type.Object({
  recall_id: Type.String(),
  matched_on: Type.Object({ kind: Type.String(), normalized: Type.String() }),
  revision_at_check: Type.Integer({ description: 'The recall revision current when the check ran' }),
  title: Nullable(Type.String()),
  jurisdiction: Nullable(Type.String()),
  recall_date: Nullable(Type.String()),
  severity: Nullable(Type.String()),
  url: Nullable(Type.String()),
});
/** One (checked identifier, matching recall) pair of a receipt. */
export type MatchEntry = Static<typeof MatchEntrySchema>;

const RejectedEntrySchema = Type.Object({
  kind: Type.String(),
  value: Type.String(),
  reason: StringEnum(REJECTION_REASONS),
});
/** A submitted identifier that could not be normalised, and why. */
export type RejectedEntry = Static<typeof RejectedEntrySchema>;

export const CheckReceiptSchema = Type.Object(
  {
    check_id: Type.String(),
    label: Nullable(Type.String()),
    performed_at: Type.String({ format: 'date-time' }),
    submitted_count: Type.Integer({ description: 'Distinct identifiers checked; excludes `rejected`' }),
    submitted_digest: Type.String({
      description:
        'Lowercase hex SHA-256 over the distinct `kind:normalized` pairs (kind as submitted, lower-cased), sorted by code unit, joined with "\\n", no trailing newline',
    }),
    rejected_count: Type.Integer(),
    rejected: Type.Array(RejectedEntrySchema),
    match_count: Type.Integer(),
    result_digest: Type.String({
      description: 'Lowercase hex SHA-256 over the distinct matched recall ids, sorted, joined with "\\n"',
    }),
    corpus_as_of: Nullable(Type.String()),
    corpus_size: Type.Integer(),
    matches: Type.Optional(Type.Array(MatchEntrySchema)),
  },
  { $id: 'CheckReceipt' },
);
/** The immutable record of a catalogue check; `matches` is left out of receipt lists. */
export type CheckReceipt = Static<typeof CheckReceiptSchema>;

/** One distinct identifier to check: the kind as submitted (lower-cased) and its canonical form. */
export interface PlannedIdentifier {
  kind: string;
  normalized: string;
  matchKeys: string[];
  productKeys: string[];
}

export interface CheckPlan {
  checked: PlannedIdentifier[];
  rejected: RejectedEntry[];
}

/** Longest rejected `value` kept, in UTF-16 units (then `…`, no split surrogate): bounds a receipt's size. */
export const REJECTED_VALUE_LENGTH = 64;

/** `value` as a rejected entry keeps it (see {@link REJECTED_VALUE_LENGTH}). */
export function rejectedValue(value: string): string {
  if (value.length <= REJECTED_VALUE_LENGTH) return value;
  let end = REJECTED_VALUE_LENGTH - 1;
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${value.slice(0, end)}…`;
}

/** Normalises every submitted identifier; duplicates (kind and canonical form) are checked once. */
export function planCheck(items: { kind: string; value: string }[]): CheckPlan {
  const checked = new Map<string, PlannedIdentifier>();
  const rejected: RejectedEntry[] = [];
  for (const item of items) {
    const result = normaliseIdentifier(item.kind, item.value);
    if (!result.ok) {
      rejected.push({ kind: item.kind, value: rejectedValue(item.value), reason: result.reason });
      continue;
    }
    const kind = item.kind.trim().toLowerCase();
    const pairKey = `${kind}:${result.normalized}`;
    if (checked.has(pairKey)) continue;
    const keys = lookupKeys(result.kind, result.normalized);
    checked.set(pairKey, { kind, normalized: result.normalized, ...keys });
  }
  return { checked: [...checked.values()], rejected };
}

/** A stored identifier hit, with the recall fields a receipt freezes. */
export interface Hit {
  matchKey: string;
  productKey: string | null;
  recallId: string;
  revision: number;
  title: string | null;
  jurisdiction: string;
  recallDate: string | null;
  severity: string | null;
  url: string | null;
}

/** The receipt: one match per (distinct identifier, recall), by identifier then recall id; both digests. */
export function buildReceipt(
  plan: CheckPlan,
  hits: Hit[],
  context: {
    checkId: string;
    label: string | null;
    performedAt: string;
    corpusAsOf: string | null;
    corpusSize: number;
  },
): CheckReceipt {
  const byMatchKey = new Map<string, Hit[]>();
  const byProductKey = new Map<string, Hit[]>();
  const add = (index: Map<string, Hit[]>, key: string, h: Hit) => {
    const list = index.get(key);
    if (list === undefined) index.set(key, [h]);
    else list.push(h);
  };
  for (const h of hits) {
    add(byMatchKey, h.matchKey, h);
    if (h.productKey !== null) add(byProductKey, h.productKey, h);
  }
  const ordered = plan.checked
    .map((item) => ({ item, pair: `${item.kind}:${item.normalized}` }))
    .sort((a, b) => (a.pair < b.pair ? -1 : a.pair > b.pair ? 1 : 0));
  const byRecallId = (a: Hit, b: Hit) => (a.recallId < b.recallId ? -1 : a.recallId > b.recallId ? 1 : 0);
  const matches: MatchEntry[] = [];
  for (const { item } of ordered) {
    const recalls = new Map<string, Hit>();
    for (const k of item.matchKeys) for (const h of byMatchKey.get(k) ?? []) recalls.set(h.recallId, h);
    for (const k of item.productKeys) for (const h of byProductKey.get(k) ?? []) recalls.set(h.recallId, h);
    if (recalls.size === 0) continue;
    for (const h of [...recalls.values()].sort(byRecallId)) {
      matches.push({
        recall_id: h.recallId,
        matched_on: { kind: item.kind, normalized: item.normalized },
        revision_at_check: h.revision,
        title: h.title,
        jurisdiction: h.jurisdiction,
        recall_date: h.recallDate,
        severity: h.severity,
        url: h.url,
      });
    }
  }
  return {
    check_id: context.checkId,
    label: context.label,
    performed_at: context.performedAt,
    submitted_count: plan.checked.length,
    submitted_digest: submittedDigest(plan.checked),
    rejected_count: plan.rejected.length,
    rejected: plan.rejected,
    match_count: matches.length,
    result_digest: resultDigest(matches.map((m) => m.recall_id)),
    corpus_as_of: context.corpusAsOf,
    corpus_size: context.corpusSize,
    matches,
  };
}
