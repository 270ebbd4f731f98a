/**
 * A recall's public JSON from one list of its fields: RecallSummarySchema's properties, in the order the
 * serialiser writes them (`servedOrder`), each with its writer below. The agency's content (title … url)
 * changes only when the record does: ingestion renders it (`renderContentFields`, and the identifiers list
 * with `renderIdentifiers`) and the store keeps the text. An answer writes the other fields around it from
 * the recall's row and its source, which can move without the record changing, and ends it with what the
 * answer adds (`assembleRecall`): a Recall's identifiers, a lookup's `match`. The bytes are those the
 * response schemas serialise (`JSON.stringify` escaping); test/integration/rendered-answers.test.ts compares
 * them.
 */
import type { Confidence, IdentifierKind } from './identifiers/kinds.ts';
import { servedOrder } from './json-schema.ts';
import type { JsonText } from './json-text.ts';
import { RecallSummarySchema, type Identifier, type RecallContent, type RecallSummary } from './recall.ts';

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

/** The agency's content fields, rendered once into the stored text. */
type ContentField = Exclude<keyof RecallContent, 'identifiers'>;

/** Each content field's value, from the record's content (nested objects in their schema's order). */
const CONTENT: { [F in ContentField]: (c: RecallContent) => RecallSummary[F] } = {
  title: (c) => c.title ?? null,
  summary: (c) => c.summary ?? null,
  hazard: (c) => ({ category: c.hazard.category ?? null, text: c.hazard.text ?? null }),
  product: (c) => ({
    category: c.product.category ?? null,
    brands: c.product.brands,
    models: c.product.models,
  }),
  severity: (c) => c.severity ?? null,
  source_classification: (c) => c.source_classification ?? null,
  remedy: (c) => c.remedy ?? null,
  recall_date: (c) => c.recall_date ?? null,
  published_date: (c) => c.published_date ?? null,
  countries: (c) => c.countries,
  url: (c) => c.url ?? null,
};

/** The parts written into a served field: strings, JSON-quoted, and the revision, a whole number. */
export type SlotName =
  'revision' | { [K in keyof RecallParts]-?: RecallParts[K] extends string ? K : never }[keyof RecallParts];

/** A value written into a served field, by name. */
export interface Slot {
  slot: SlotName;
}

/**
 * Each other field's JSON as literal text and the values written into it, per answer, from the recall's row and
 * its source: by `assembleRecall` here, and by the database for list pages (store/recall-pages.ts).
 */
const SERVED: { [F in Exclude<keyof RecallSummary, ContentField>]: readonly (string | Slot)[] } = {
  id: [{ slot: 'id' }],
  source: [
    '{"id":',
    { slot: 'sourceId' },
    ',"record_id":',
    { slot: 'recordId' },
    ',"agency":',
    { slot: 'agency' },
    ',"jurisdiction":',
    { slot: 'jurisdiction' },
    '}',
  ],
  revision: [{ slot: 'revision' }],
  data_as_of: [{ slot: 'dataAsOf' }],
  first_seen_at: [{ slot: 'firstSeenAt' }],
  last_seen_at: [{ slot: 'lastSeenAt' }],
};

/** RecallSummarySchema's fields as served: those written before the stored text, its own, those after. */
const ORDER = servedOrder(RecallSummarySchema) as (keyof RecallSummary)[];
const isContent = (field: keyof RecallSummary): field is ContentField => field in CONTENT;
const STORED = ORDER.filter(isContent);
const BEFORE = ORDER.slice(0, ORDER.indexOf(STORED[0]!)) as (keyof typeof SERVED)[];
const AFTER = ORDER.slice(BEFORE.length + STORED.length) as (keyof typeof SERVED)[];
if (BEFORE.length === 0 || [...BEFORE, ...AFTER].some(isContent))
  throw new Error('the content fields must be one run of RecallSummarySchema, after its first field');

/** `"field":…` of each of `fields`, comma-separated, as literal text and slots, adjacent text merged. */
function template(fields: readonly (keyof typeof SERVED)[], open: string, close: string): (string | Slot)[] {
  const out: (string | Slot)[] = [];
  const text = (t: string) => {
    if (t === '') return;
    if (typeof out[out.length - 1] === 'string') out[out.length - 1] += t;
    else out.push(t);
  };
  text(open);
  fields.forEach((field, i) => {
    text(`${i === 0 && open === '{' ? '' : ','}"${field}":`);
    for (const part of SERVED[field])
      if (typeof part === 'string') text(part);
      else out.push(part);
  });
  text(close);
  return out;
}

/**
 * A recall's JSON as it is written: the text and slots before the stored content fields, and those after them
 * up to what ends it (`}` for a RecallSummary). The database writes list pages from it (store/recall-pages.ts).
 */
export const RECALL_TEMPLATE = { head: template(BEFORE, '{', ','), tail: template(AFTER, '', '') };

const writeSlot = ({ slot }: Slot, p: RecallParts) =>
  slot === 'revision' ? String(p.revision) : str(p[slot]);

/** The served fields of a template part, written from `p`. */
function write(parts: readonly (string | Slot)[], p: RecallParts): string {
  let out = '';
  for (const part of parts) out += typeof part === 'string' ? part : writeSlot(part, p);
  return out;
}

/** The content fields in their served order, as `"title":…,"url":…` (no braces): stored per record. */
export function renderContentFields(content: RecallContent): string {
  const fields: Record<string, unknown> = {};
  for (const field of STORED) fields[field] = CONTENT[field](content);
  return str(fields).slice(1, -1);
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
  return str(
    ordered.map((i) => ({
      kind: i.kind,
      value: i.value,
      normalized: i.normalized,
      confidence: i.confidence,
    })),
  );
}

/**
 * One recall's JSON: a RecallSummary, a Recall (with `identifiers`, its schema's last field) or a RecallMatch
 * (with `match`, its schema's last field). Pieces around the stored text, joined once when the answer is sent
 * (json-text.ts).
 */
export function assembleRecall(p: RecallParts): JsonText {
  const head = write(RECALL_TEMPLATE.head, p);
  const tail = write(RECALL_TEMPLATE.tail, p);
  if (p.identifiers !== undefined)
    return [head, p.contentFields, `${tail},"identifiers":`, p.identifiers, '}'];
  if (p.match === undefined) return [head, p.contentFields, `${tail}}`];
  const { kind, normalized, confidence } = p.match;
  return [
    head,
    p.contentFields,
    `${tail},"match":{"kind":${str(kind)},"normalized":${str(normalized)},"confidence":${str(confidence)}}}`,
  ];
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
