/**
 * A catalogue check, as pure steps: plan (normalise, reject, deduplicate, derive probe keys),
 * then build the receipt from the stored identifiers the probes hit.
 */
import { lookupKeys } from './identifiers/match-keys.ts';
import { normaliseIdentifier } from './identifiers/normalise.ts';
import type { RejectionReason } from './identifiers/kinds.ts';
import { resultDigest, submittedDigest } from './digests.ts';

export interface MatchEntry {
  recall_id: string;
  matched_on: { kind: string; normalized: string };
  revision_at_check: number;
  title: string | null;
  jurisdiction: string | null;
  recall_date: string | null;
  severity: string | null;
  url: string | null;
}

export interface RejectedEntry {
  kind: string;
  value: string;
  reason: RejectionReason;
}

export interface CheckReceipt {
  check_id: string;
  label: string | null;
  performed_at: string;
  submitted_count: number;
  submitted_digest: string;
  rejected_count: number;
  rejected: RejectedEntry[];
  match_count: number;
  result_digest: string;
  corpus_as_of: string | null;
  corpus_size: number;
  matches?: MatchEntry[];
}

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

/** Normalises every submitted identifier; duplicates (same kind and canonical form) are checked once. */
export function planCheck(items: { kind: string; value: string }[]): CheckPlan {
  const checked = new Map<string, PlannedIdentifier>();
  const rejected: RejectedEntry[] = [];
  for (const item of items) {
    const result = normaliseIdentifier(item.kind, item.value);
    if (!result.ok) {
      rejected.push({ kind: item.kind, value: item.value, reason: result.reason });
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

/**
 * Builds the receipt: one match entry per (distinct checked identifier, matching recall),
 * ordered by the identifier then the recall id, and both digests.
 */
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
