/** The normalised recall (draft and stored), each shape a TypeBox schema plus its `Static` type. */
import { Type, type Static } from 'typebox';
import { ConfidenceSchema, IdentifierKindSchema } from './identifiers/kinds.ts';
import { Nullable, Ref } from './json-schema.ts';
import { HazardCategorySchema, RemedySchema, SeveritySchema } from './taxonomy.ts';

export const IdentifierSchema = Type.Object(
  {
    kind: Ref(IdentifierKindSchema),
    value: Type.String({ description: 'Exactly as the agency published it' }),
    normalized: Type.String({
      description:
        'Canonical form used for matching. Where the agency named a set of models or lots rather than each ' +
        'one, it is a match rule, with confidence `inferred`: `STEM*`, a prefix holding every value that ' +
        "starts with the stem (`KX2040GC*`), or `FROM..TO`, a range holding every value of the ends' " +
        'length and pattern of letters and digits that lies between them (`40012000..40098999`)',
    }),
    confidence: Ref(ConfidenceSchema),
  },
  { $id: 'Identifier' },
);
/** One product identifier attached to a recall. */
export type Identifier = Static<typeof IdentifierSchema>;

/** The fields of every served recall, in the order they are written. */
const summaryHead = {
  id: Type.String({ description: 'Stable recall id' }),
  source: Type.Object({
    id: Type.String({ description: 'Source feed id' }),
    record_id: Type.String({ description: "The agency's own record id" }),
    agency: Type.String(),
    jurisdiction: Type.String({ description: 'Jurisdiction code as published' }),
  }),
  title: Nullable(Type.String()),
  summary: Nullable(Type.String()),
  hazard: Type.Object({
    category: Nullable(Ref(HazardCategorySchema)),
    text: Nullable(Type.String({ description: "The agency's own wording, verbatim" })),
  }),
  product: Type.Object({
    category: Nullable(Type.String()),
    brands: Type.Array(Type.String()),
    models: Type.Array(Type.String()),
  }),
  severity: Nullable(Ref(SeveritySchema)),
  source_classification: Nullable(Type.String({ description: "The agency's own class label, unmapped" })),
  remedy: Nullable(Ref(RemedySchema)),
  recall_date: Nullable(Type.String({ format: 'date' })),
  published_date: Nullable(Type.String({ format: 'date' })),
  countries: Type.Array(Type.String()),
  url: Nullable(Type.String()),
  revision: Type.Integer({
    minimum: 1,
    description: 'Times the record has been observed to change; 1 means never amended',
  }),
};
const summaryTail = {
  data_as_of: Type.String(),
  first_seen_at: Type.String({ format: 'date-time' }),
  last_seen_at: Type.String({ format: 'date-time' }),
};

/** A recall as one is read: every field, its identifiers always included (written last). */
export const RecallSchema = Type.Object(
  {
    ...summaryHead,
    ...summaryTail,
    identifiers: Type.Array(Ref(IdentifierSchema), {
      description: 'Every extracted product identifier',
    }),
  },
  { $id: 'Recall' },
);

/** A recall as stored and served, with its identifiers. */
export type Recall = Static<typeof RecallSchema>;

/** A recall in a list: every field but its identifiers. */
export const RecallSummarySchema = Type.Object(
  { ...summaryHead, ...summaryTail },
  { $id: 'RecallSummary', description: 'A recall in a list: every field of a Recall but its identifiers' },
);

/** A recall in a list: every field but its identifiers. */
export type RecallSummary = Static<typeof RecallSummarySchema>;

/** Fields the service assigns; everything else is the agency's content. */
type ServiceFields = 'id' | 'source' | 'revision' | 'data_as_of' | 'first_seen_at' | 'last_seen_at';

/** The public, amendable content of a recall: what is compared between observations. */
export type RecallContent = Omit<Recall, ServiceFields>;

/** What a source adapter produces for one agency record. Pure data, no ids assigned by the store. */
export interface RecallDraft extends RecallContent {
  /** The agency's own record id (e.g. an FDA recall number). */
  recordId: string;
  /**
   * Ids the same record had in earlier runs (an ACCC item's UUID, before its notice page gave the PRA
   * number): a record already stored under one of them keeps that id. Never served.
   */
  formerRecordIds?: string[];
}

export const RecallMatchSchema = Type.Object(
  {
    ...summaryHead,
    ...summaryTail,
    match: Type.Object(
      {
        kind: Ref(IdentifierKindSchema),
        normalized: Type.String({
          description: 'As stored: the exact value, or the match rule (`STEM*`, `FROM..TO`) that holds it',
        }),
        confidence: Ref(ConfidenceSchema),
      },
      {
        description:
          'The stored identifier that matched; an exact value wins over a rule on the same recall. A rule ' +
          '(`normalized` `STEM*` or `FROM..TO`, confidence `inferred`) means the agency named a set of values ' +
          'that holds the one looked up, not that value itself: check the product against the notice',
      },
    ),
  },
  { $id: 'RecallMatch', description: 'A recall with the stored identifier that matched the lookup' },
);
/** A recall found by an identifier, with the stored identifier that matched (no identifiers list). */
export type RecallMatch = Static<typeof RecallMatchSchema>;

export const RevisionSchema = Type.Object(
  {
    revision: Type.Integer(),
    observed_at: Type.String({ format: 'date-time', description: 'When the service observed the change' }),
    changed_fields: Type.Record(Type.String(), Type.Object({ from: Type.Unknown(), to: Type.Unknown() }), {
      description: 'Field name (dot paths for nested fields) mapped to its old and new value',
    }),
    data_as_of: Type.Optional(Type.String()),
  },
  { $id: 'Revision' },
);
/** One observed amendment of a recall. */
export type Revision = Static<typeof RevisionSchema>;

/** A record id made only of the characters that pass through unescaped. */
const PLAIN_RECORD_ID = /^[A-Za-z0-9-]*$/;

/** Stable recall id (URL-safe, reversible): letters, digits and `-` pass; other bytes become `_` + 2 hex. */
export function recallId(sourceId: string, recordId: string): string {
  if (PLAIN_RECORD_ID.test(recordId)) return `${sourceId}.${recordId}`; // nothing to escape
  let out = '';
  for (const byte of Buffer.from(recordId, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9-]/.test(c) ? c : `_${byte.toString(16).padStart(2, '0')}`;
  }
  return `${sourceId}.${out}`;
}
