/**
 * A recall's rows as the store writes them, made from a draft without the database: canonical
 * content, its hash, the recalls row with its renderings, the identifiers rows. Pure, so that an
 * ingest can prepare records on another thread while the store writes earlier ones.
 */
import type { Selectable } from 'kysely';
import { canonicalContent, contentHashOfJson } from '../domain/diff.ts';
import { storageKeys } from '../domain/identifiers/match-keys.ts';
import { recallId, type RecallContent, type RecallDraft } from '../domain/recall.ts';
import { renderContentFields, renderIdentifiers } from '../domain/recall-json.ts';
import { allColumns } from './compiled.ts';
import { NO_SORT_DATE, type IdentifiersTable, type RecallsTable } from './schema.ts';

/** The recalls columns that a draft decides: all but the revision and the seen stamps, in insert order. */
export const DRAFT_COLUMNS = [
  'id',
  'source_id',
  'record_id',
  'jurisdiction',
  'title',
  'summary',
  'hazard_category',
  'hazard_text',
  'product_category',
  'brands',
  'models',
  'severity',
  'source_classification',
  'remedy',
  'recall_date',
  'published_date',
  'sort_date',
  'countries',
  'url',
  'content_hash',
  'content',
  'rendered_fields',
  'rendered_identifiers',
] as const satisfies readonly (keyof RecallsTable)[];

/** The recalls columns in insert order: a draft's, then revision and the seen stamps (the benchmark corpus writes the same). */
export const RECALL_COLUMNS = allColumns<RecallsTable>()([
  ...DRAFT_COLUMNS,
  'revision',
  'first_seen_at',
  'last_seen_at',
]);

/** The identifiers columns in insert order. */
export const IDENTIFIER_COLUMNS = allColumns<IdentifiersTable>()([
  'recall_id',
  'kind',
  'value',
  'normalized',
  'confidence',
  'match_key',
  'product_key',
]);

/** Where a record was observed: its source. */
export interface RecordOrigin {
  sourceId: string;
  jurisdiction: string;
}

/** The recalls columns of a draft (everything but revision and the seen stamps), its served JSON rendered. */
export function recallColumns(
  id: string,
  origin: RecordOrigin,
  draft: RecallDraft,
  content: RecallContent,
  hash: string,
  json: string = JSON.stringify(content),
): Pick<RecallsTable, (typeof DRAFT_COLUMNS)[number]> {
  return {
    id,
    source_id: origin.sourceId,
    record_id: draft.recordId,
    jurisdiction: origin.jurisdiction,
    title: content.title,
    summary: content.summary,
    hazard_category: content.hazard.category,
    hazard_text: content.hazard.text,
    product_category: content.product.category,
    brands: JSON.stringify(content.product.brands),
    models: JSON.stringify(content.product.models),
    severity: content.severity,
    source_classification: content.source_classification,
    remedy: content.remedy,
    recall_date: content.recall_date,
    published_date: content.published_date,
    sort_date: content.published_date ?? NO_SORT_DATE,
    countries: JSON.stringify(content.countries),
    url: content.url,
    content_hash: hash,
    content: json,
    rendered_fields: renderContentFields(content),
    rendered_identifiers: renderIdentifiers(content.identifiers),
  };
}

/** The identifiers rows of a recall's canonical content. */
export function identifierRows(id: string, content: RecallContent): Selectable<IdentifiersTable>[] {
  return content.identifiers.map((i) => {
    const keys = storageKeys(i.kind, i.normalized);
    return {
      recall_id: id,
      kind: i.kind,
      value: i.value,
      normalized: i.normalized,
      confidence: i.confidence,
      match_key: keys.matchKey,
      product_key: keys.productKey,
    };
  });
}

/**
 * A record ready to write. Plain strings and arrays only, so that it crosses between threads as it is
 * (structured clone); ~5 KB for a typical record, most of it the content and its two renderings.
 */
export interface PreparedRecall {
  id: string;
  /** SHA-256 of the canonical content's JSON. */
  hash: string;
  /** The recalls row's values in {@link DRAFT_COLUMNS} order. */
  values: unknown[];
  /** The identifiers rows' values, each in {@link IDENTIFIER_COLUMNS} order. */
  identifiers: unknown[][];
  /** The draft's former record ids (`formerRecordIds`), as [recall id, record id] pairs. */
  former?: [string, string][];
}

const CONTENT_AT = DRAFT_COLUMNS.indexOf('content');

/** Prepares one draft of a source's record for the store. */
export function prepareRecall(origin: RecordOrigin, draft: RecallDraft): PreparedRecall {
  const id = recallId(origin.sourceId, draft.recordId);
  const content = canonicalContent(draft);
  const json = JSON.stringify(content);
  const hash = contentHashOfJson(json);
  const row = recallColumns(id, origin, draft, content, hash, json);
  const prepared: PreparedRecall = {
    id,
    hash,
    values: DRAFT_COLUMNS.map((c) => row[c]),
    identifiers: identifierRows(id, content).map((i) => IDENTIFIER_COLUMNS.map((c) => i[c])),
  };
  const former = (draft.formerRecordIds ?? []).filter((r) => r !== draft.recordId);
  if (former.length > 0) prepared.former = former.map((r) => [recallId(origin.sourceId, r), r]);
  return prepared;
}

const ID_AT = DRAFT_COLUMNS.indexOf('id');
const RECORD_ID_AT = DRAFT_COLUMNS.indexOf('record_id');
const RECALL_ID_AT = IDENTIFIER_COLUMNS.indexOf('recall_id');

/** The record as it is written under another of its ids (a former one): content and hash unchanged. */
export function underId(record: PreparedRecall, [id, recordId]: [string, string]): PreparedRecall {
  const values = [...record.values];
  values[ID_AT] = id;
  values[RECORD_ID_AT] = recordId;
  const identifiers = record.identifiers.map((row) => row.map((v, i) => (i === RECALL_ID_AT ? id : v)));
  return { id, hash: record.hash, values, identifiers };
}

/** A prepared record's canonical content, parsed back from its JSON. */
export function preparedContent(record: PreparedRecall): RecallContent {
  return JSON.parse(record.values[CONTENT_AT] as string) as RecallContent;
}

/** A prepared record's recalls columns by name. */
export function preparedColumns(record: PreparedRecall): Pick<RecallsTable, (typeof DRAFT_COLUMNS)[number]> {
  return Object.fromEntries(DRAFT_COLUMNS.map((c, i) => [c, record.values[i]])) as Pick<
    RecallsTable,
    (typeof DRAFT_COLUMNS)[number]
  >;
}
