/** Canonical content (equal content, same observation) and field-level diffs with dot paths. */
import { sha256 } from './sha256.ts';
import type { Identifier, RecallContent } from './recall.ts';

function compareIdentifiers(a: Identifier, b: Identifier): number {
  const ka = `${a.kind}\u0000${a.normalized}\u0000${a.value}\u0000${a.confidence}`;
  const kb = `${b.kind}\u0000${b.normalized}\u0000${b.value}\u0000${b.confidence}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** The content in a canonical order: identifiers sorted and deduplicated, countries sorted. */
export function canonicalContent(content: RecallContent): RecallContent {
  const seen = new Set<string>();
  const identifiers = [...content.identifiers]
    .sort(compareIdentifiers)
    .filter((i) => {
      const key = `${i.kind}\u0000${i.normalized}\u0000${i.value}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .map((i) => ({ kind: i.kind, value: i.value, normalized: i.normalized, confidence: i.confidence }));
  return {
    title: content.title,
    summary: content.summary,
    hazard: { category: content.hazard.category, text: content.hazard.text },
    product: {
      category: content.product.category,
      brands: [...content.product.brands],
      models: [...content.product.models],
    },
    severity: content.severity,
    source_classification: content.source_classification,
    remedy: content.remedy,
    recall_date: content.recall_date,
    published_date: content.published_date,
    countries: [...new Set(content.countries)].sort(),
    url: content.url,
    identifiers,
  };
}

/** SHA-256 (hex) of the canonical content's JSON: equal content, equal hash. */
export function contentHash(canonical: RecallContent): string {
  return contentHashOfJson(JSON.stringify(canonical));
}

/** `contentHash` from the canonical content's JSON, for a caller that keeps the JSON too. */
export function contentHashOfJson(json: string): string {
  return sha256(json);
}

const NESTED = new Set(['hazard', 'product']);

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The public fields that differ between two canonical contents, as `{field: {from, to}}`. */
export function diffContent(
  before: RecallContent,
  after: RecallContent,
): Record<string, { from: unknown; to: unknown }> {
  const changed: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(after) as (keyof RecallContent)[]) {
    const from = before[key];
    const to = after[key];
    if (NESTED.has(key)) {
      const f = (from ?? {}) as Record<string, unknown>;
      const t = (to ?? {}) as Record<string, unknown>;
      for (const sub of new Set([...Object.keys(f), ...Object.keys(t)])) {
        if (!same(f[sub], t[sub])) changed[`${key}.${sub}`] = { from: f[sub] ?? null, to: t[sub] ?? null };
      }
    } else if (!same(from, to)) {
      changed[key] = { from: from ?? null, to: to ?? null };
    }
  }
  return changed;
}
