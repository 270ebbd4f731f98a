/**
 * A recall's public JSON, rendered once and assembled per answer. The agency's content (title … url) and the
 * identifiers list change only when the record does, so ingestion renders them and the store keeps the text;
 * an answer adds what can move without the record changing (the source's agency and freshness, the seen
 * stamps) and what belongs to the request (a lookup's `match`) around them. The bytes are those the response
 * schemas (RecallSchema, RecallMatchSchema) serialise: their field order (required fields first, then the
 * optional ones, each in schema order: `identifiers` comes last), `JSON.stringify` escaping.
 */
import type { Confidence, IdentifierKind } from './identifiers/kinds.ts';
import type { JsonText } from './json-text.ts';
import type { Identifier, RecallContent } from './recall.ts';

/** The content fields in RecallSchema's order, as `"title":…,"url":…` (no braces): stored per record. */
export function renderContentFields(content: RecallContent): string {
  const json = JSON.stringify({
    title: content.title ?? null,
    summary: content.summary ?? null,
    hazard: { category: content.hazard.category ?? null, text: content.hazard.text ?? null },
    product: {
      category: content.product.category ?? null,
      brands: content.product.brands,
      models: content.product.models,
    },
    severity: content.severity ?? null,
    source_classification: content.source_classification ?? null,
    remedy: content.remedy ?? null,
    recall_date: content.recall_date ?? null,
    published_date: content.published_date ?? null,
    countries: content.countries,
    url: content.url ?? null,
  });
  return json.slice(1, -1);
}

/** A UTF-16 code unit mapped so that comparing the results orders by code point (UTF-8 byte order). */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000; // surrogates (astral code points) after the BMP
}

/** Byte order of the strings' UTF-8: the order both engines' text columns sort in ("C" / BINARY). */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** The identifiers as one recall lists them (by kind, normalized, value, in byte order), as a JSON array. */
export function renderIdentifiers(identifiers: readonly Identifier[]): string {
  const ordered = [...identifiers].sort(
    (a, b) =>
      compareUtf8(a.kind, b.kind) || compareUtf8(a.normalized, b.normalized) || compareUtf8(a.value, b.value),
  );
  return JSON.stringify(
    ordered.map((i) => ({
      kind: i.kind,
      value: i.value,
      normalized: i.normalized,
      confidence: i.confidence,
    })),
  );
}

/** The stored identifier a lookup matched. */
export interface RecallMatchPart {
  kind: IdentifierKind;
  normalized: string;
  confidence: Confidence;
}

/** Everything a recall's JSON is assembled from: stored text and the fields read with it. */
export interface RecallParts {
  id: string;
  sourceId: string;
  recordId: string;
  /** The source's agency, as the sources table holds it now. */
  agency: string;
  jurisdiction: string;
  /** `renderContentFields` of the record's content, as stored (its text or its UTF-8 bytes). */
  contentFields: string | Uint8Array;
  revision: number;
  /** `renderIdentifiers` of the record's identifiers, where one recall is read (text or UTF-8 bytes). */
  identifiers?: string | Uint8Array;
  dataAsOf: string;
  firstSeenAt: string;
  lastSeenAt: string;
  /** The identifier a lookup matched. */
  match?: RecallMatchPart;
}

const str = JSON.stringify;

/** What ends a RecallMatch: its `match` and the closing brace. */
function renderMatchEnd(match: RecallMatchPart): string {
  return `,"match":{"kind":${str(match.kind)},"normalized":${str(match.normalized)},"confidence":${str(match.confidence)}}}`;
}

/**
 * One recall's JSON (a Recall, or a RecallMatch with `match`): pieces around the stored text, joined once
 * when the answer is sent (json-text.ts).
 */
export function assembleRecall(p: RecallParts): JsonText {
  const head = `{"id":${str(p.id)},"source":{"id":${str(p.sourceId)},"record_id":${str(p.recordId)},"agency":${str(p.agency)},"jurisdiction":${str(p.jurisdiction)}},`;
  let tail = `,"revision":${p.revision},"data_as_of":${str(p.dataAsOf)},"first_seen_at":${str(p.firstSeenAt)},"last_seen_at":${str(p.lastSeenAt)}`;
  const match = p.match === undefined ? '}' : renderMatchEnd(p.match);
  if (p.identifiers === undefined) return [head, p.contentFields, tail + match];
  tail += ',"identifiers":';
  return [head, p.contentFields, tail, p.identifiers, match];
}

/** One revision's JSON around its stored `changed_fields` text (written once, with `JSON.stringify`). */
export function assembleRevision(r: {
  revision: number;
  observedAt: string;
  changedFields: string;
  dataAsOf: string | null;
}): string {
  const tail = r.dataAsOf === null ? '' : `,"data_as_of":${str(r.dataAsOf)}`;
  return `{"revision":${r.revision},"observed_at":${str(r.observedAt)},"changed_fields":${r.changedFields}${tail}}`;
}
