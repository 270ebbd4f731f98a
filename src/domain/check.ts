/** A catalogue check as pure steps: plan (normalise, reject, deduplicate, probe keys), then the receipt. */
import { Type, type Static } from 'typebox';
import { lookupKeys } from './identifiers/match-keys.ts';
import { ruleMatches } from './identifiers/match-rules.ts';
import { normaliseIdentifier } from './identifiers/normalise.ts';
import { IdentifierKindSchema, REJECTION_REASONS, type IdentifierKind } from './identifiers/kinds.ts';
import { resultDigest, submittedDigest } from './digests.ts';
import { Nullable, Ref, StringEnum } from './json-schema.ts';
import { SeveritySchema, type Severity } from './taxonomy.ts';

/** Lowercase hex SHA-256. */
const Digest = (description: string) => Type.String({ pattern: '^[0-9a-f]{64}$', description });

export const CheckMatchSchema = Type.Object(
  {
    recall_id: Type.String(),
    matched_on: Type.Object(
      {
        kind: Ref(IdentifierKindSchema),
        normalized: Type.String(),
      },
      {
        description:
          'The submitted identifier as checked: its kind (lower-cased) and normalised value, also when the ' +
          'recall names it by a match rule (a prefix `STEM*` or a range `FROM..TO` of models or lots)',
      },
    ),
    revision_at_check: Type.Integer({
      minimum: 1,
      description: 'The recall revision current when the check ran',
    }),
    title: Nullable(Type.String()),
    jurisdiction: Nullable(Type.String()),
    recall_date: Nullable(Type.String({ format: 'date' })),
    severity: Nullable(Ref(SeveritySchema)),
    url: Nullable(Type.String()),
  },
  { $id: 'CheckMatch', description: 'One (checked identifier, matching recall) pair, frozen at check time' },
);
/** One (checked identifier, matching recall) pair of a receipt. */
export type MatchEntry = Static<typeof CheckMatchSchema>;

export const RejectedIdentifierSchema = Type.Object(
  {
    kind: Type.String({ description: 'As submitted' }),
    value: Type.String({ description: 'As submitted (longer than 64 characters: cut, ending in `…`)' }),
    reason: StringEnum(REJECTION_REASONS),
  },
  { $id: 'RejectedIdentifier', description: 'A submitted identifier that could not be normalised, and why' },
);
/** A submitted identifier that could not be normalised, and why. */
export type RejectedEntry = Static<typeof RejectedIdentifierSchema>;

/** The fields of every receipt, in the order they are written (`matches` comes last, where it is served). */
const receiptProperties = {
  check_id: Type.String(),
  label: Nullable(Type.String()),
  performed_at: Type.String({ format: 'date-time' }),
  submitted_count: Type.Integer({ description: 'Distinct identifiers checked; excludes `rejected`' }),
  submitted_digest: Digest(
    'Lowercase hex SHA-256 over the distinct `kind:normalized` pairs (kind as submitted, lower-cased), sorted by code unit, joined with "\\n", no trailing newline',
  ),
  rejected_count: Type.Integer(),
  rejected: Type.Array(Ref(RejectedIdentifierSchema)),
  match_count: Type.Integer(),
  result_digest: Digest(
    'Lowercase hex SHA-256 over the distinct matched recall ids, sorted, joined with "\\n"',
  ),
  corpus_as_of: Nullable(Type.String()),
  corpus_size: Type.Integer(),
};

/** A receipt as one is read or made: with its matches. */
export const CheckReceiptSchema = Type.Object(
  { ...receiptProperties, matches: Type.Array(Ref(CheckMatchSchema)) },
  { $id: 'CheckReceipt', description: 'An immutable catalogue-check receipt, with its matches' },
);
/** The immutable record of a catalogue check, with its matches. */
export type CheckReceipt = Static<typeof CheckReceiptSchema>;

/** A receipt in a list: every field but its matches. */
export const CheckReceiptSummarySchema = Type.Object(receiptProperties, {
  $id: 'CheckReceiptSummary',
  description: 'A receipt in a list: every field of a CheckReceipt but its matches',
});
/** A receipt in a list: every field but its matches. */
export type CheckReceiptSummary = Static<typeof CheckReceiptSummarySchema>;

/** A submitted list as its receipt records it: the distinct canonical pairs checked and the values refused. */
export interface SubmittedList {
  /** Distinct (kind, canonical form) pairs, in first-seen order; the kind is lower-cased. */
  checked: { kind: IdentifierKind; normalized: string }[];
  /** Every value that could not be normalised, in submitted order (duplicates included). */
  rejected: RejectedEntry[];
}

/** One distinct identifier to check: the kind as submitted (lower-cased), its canonical form and probe keys. */
export interface PlannedIdentifier {
  kind: IdentifierKind;
  normalized: string;
  matchKeys: string[];
  productKeys: string[];
  /** Buckets of the match rules that may hold the identifier: a rule found there is confirmed by `ruleMatches`. */
  ruleKeys: string[];
}

export interface CheckPlan extends SubmittedList {
  checked: PlannedIdentifier[];
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

/**
 * Normalises every submitted identifier with the one shared normaliser; duplicates (kind and canonical form)
 * are kept once. The service plans each check with this, and the client reproduces receipts with it.
 */
export function normaliseSubmitted(items: readonly { kind: string; value: string }[]): SubmittedList {
  const checked: SubmittedList['checked'] = [];
  // The canonical forms seen, per kind (no `kind:value` string made per item to find a duplicate).
  const seen = new Map<IdentifierKind, Set<string>>();
  const rejected: RejectedEntry[] = [];
  for (const item of items) {
    const result = normaliseIdentifier(item.kind, item.value);
    if (!result.ok) {
      rejected.push({ kind: item.kind, value: rejectedValue(item.value), reason: result.reason });
      continue;
    }
    let forms = seen.get(result.kind);
    if (forms === undefined) seen.set(result.kind, (forms = new Set()));
    if (forms.has(result.normalized)) continue;
    forms.add(result.normalized);
    checked.push({ kind: result.kind, normalized: result.normalized });
  }
  return { checked, rejected };
}

/** The receipt fields that describe the submitted list: what a caller reproduces from their own list. */
export function submittedFields(
  list: SubmittedList,
): Pick<CheckReceipt, 'submitted_count' | 'submitted_digest' | 'rejected_count' | 'rejected'> {
  return {
    submitted_count: list.checked.length,
    submitted_digest: submittedDigest(list.checked),
    rejected_count: list.rejected.length,
    rejected: list.rejected,
  };
}

/** The submitted list with each distinct identifier's probe keys: what the matching step needs. */
export function planCheck(items: readonly { kind: string; value: string }[]): CheckPlan {
  const { checked, rejected } = normaliseSubmitted(items);
  // Written out, not spread: two spreads into a literal take V8's slow path (~2 µs an item).
  const planned = checked.map(({ kind, normalized }): PlannedIdentifier => {
    const { matchKeys, productKeys, ruleKeys } = lookupKeys(kind, normalized);
    return { kind, normalized, matchKeys, productKeys, ruleKeys };
  });
  return { checked: planned, rejected };
}

/** A stored identifier hit, with the recall fields a receipt freezes. */
export interface Hit {
  matchKey: string;
  productKey: string | null;
  /** The stored identifier's normalised form: a match rule (`STEM*`, `FROM..TO`) holds only some values. */
  normalized: string;
  recallId: string;
  revision: number;
  title: string | null;
  jurisdiction: string;
  recallDate: string | null;
  severity: Severity | null;
  url: string | null;
}

const byRecallId = (a: Hit, b: Hit) => (a.recallId < b.recallId ? -1 : a.recallId > b.recallId ? 1 : 0);

/** One hit per recall (the last found), by recall id. */
function distinctByRecall(found: Hit[]): Hit[] {
  if (found.length === 1) return found;
  const byRecall = new Map<string, Hit>();
  for (const h of found) byRecall.set(h.recallId, h);
  return [...byRecall.values()].sort(byRecallId);
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
  const matches: MatchEntry[] = [];
  for (const { item } of ordered) {
    // Most identifiers of a list match nothing: an empty list, no map, for them.
    const found: Hit[] = [];
    for (const k of item.matchKeys) found.push(...(byMatchKey.get(k) ?? []));
    for (const k of item.productKeys) found.push(...(byProductKey.get(k) ?? []));
    for (const k of item.ruleKeys)
      for (const h of byMatchKey.get(k) ?? []) if (ruleMatches(h.normalized, item.normalized)) found.push(h);
    if (found.length === 0) continue;
    for (const h of distinctByRecall(found)) {
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
  // The pairs in the order just sorted: the submitted digest then neither dedupes nor sorts them again.
  const submitted = submittedFields({ checked: ordered.map((o) => o.item), rejected: plan.rejected });
  return {
    check_id: context.checkId,
    label: context.label,
    performed_at: context.performedAt,
    submitted_count: submitted.submitted_count,
    submitted_digest: submitted.submitted_digest,
    rejected_count: submitted.rejected_count,
    rejected: submitted.rejected,
    match_count: matches.length,
    result_digest: resultDigest(matches.map((m) => m.recall_id)),
    corpus_as_of: context.corpusAsOf,
    corpus_size: context.corpusSize,
    matches,
  };
}
