/**
 * One schema source per shape: these TypeBox schemas validate requests, serialise responses
 * (which also keeps undeclared fields off the wire) and make up the OpenAPI document.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { IDENTIFIER_KINDS, REJECTION_REASONS, CONFIDENCES } from '../domain/identifiers/kinds.ts';
import { HAZARD_CATEGORIES, HAZARD_CATEGORY_DESCRIPTIONS, REMEDIES, SEVERITIES } from '../domain/taxonomy.ts';
import { PROBLEM_TYPES } from './problems.ts';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const StringEnum = <T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

export const HazardCategorySchema = StringEnum(HAZARD_CATEGORIES, {
  $id: 'HazardCategory',
  description:
    'Canonical hazard taxonomy of this service.\n\n' +
    HAZARD_CATEGORIES.map((c) => `- \`${c}\`: ${HAZARD_CATEGORY_DESCRIPTIONS[c]}`).join('\n'),
});
export const SeveritySchema = StringEnum(SEVERITIES, { $id: 'Severity' });
export const RemedySchema = StringEnum(REMEDIES, { $id: 'Remedy' });
export const IdentifierKindSchema = StringEnum(IDENTIFIER_KINDS, { $id: 'IdentifierKind' });

export const IdentifierSchema = Type.Object(
  {
    kind: Type.Ref(IdentifierKindSchema),
    value: Type.String({ description: 'Exactly as the agency published it' }),
    normalized: Type.String({ description: 'Canonical form used for matching' }),
    confidence: StringEnum(CONFIDENCES, {
      description:
        '`exact` from a dedicated field; `extracted` mined from prose and passed a checksum; `inferred` matched on shape only',
    }),
  },
  { $id: 'Identifier' },
);

const recallProperties = {
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
    category: Nullable(Type.Ref(HazardCategorySchema)),
    text: Nullable(Type.String({ description: "The agency's own wording, verbatim" })),
  }),
  product: Type.Object({
    category: Nullable(Type.String()),
    brands: Type.Array(Type.String()),
    models: Type.Array(Type.String()),
  }),
  severity: Nullable(Type.Ref(SeveritySchema)),
  source_classification: Nullable(Type.String({ description: "The agency's own class label, unmapped" })),
  remedy: Nullable(Type.Ref(RemedySchema)),
  recall_date: Nullable(Type.String({ format: 'date' })),
  published_date: Nullable(Type.String({ format: 'date' })),
  countries: Type.Array(Type.String()),
  url: Nullable(Type.String()),
  revision: Type.Integer({
    minimum: 1,
    description: 'Times the record has been observed to change; 1 means never amended',
  }),
  identifiers: Type.Optional(Type.Array(Type.Ref(IdentifierSchema))),
  data_as_of: Type.String(),
  first_seen_at: Type.String({ format: 'date-time' }),
  last_seen_at: Type.String({ format: 'date-time' }),
};

export const RecallSchema = Type.Object(recallProperties, { $id: 'Recall' });

export const RecallMatchSchema = Type.Object(
  {
    ...recallProperties,
    match: Type.Object({
      kind: Type.Ref(IdentifierKindSchema),
      normalized: Type.String(),
      confidence: Type.String(),
    }),
  },
  { $id: 'RecallMatch', description: 'A recall with the stored identifier that matched the lookup' },
);

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

export const SourceSchema = Type.Object(
  {
    id: Type.String(),
    agency: Type.String(),
    jurisdiction: Type.String(),
    licence: Type.Object({ id: Type.String(), url: Type.String(), attribution: Type.String() }),
    homepage: Type.String(),
    cadence: Type.String({ description: 'Free-text observed update cadence' }),
    enabled: Type.Boolean(),
    last_success_at: Nullable(Type.String({ format: 'date-time' })),
    data_as_of: Nullable(Type.String()),
  },
  { $id: 'Source' },
);

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
    rejected: Type.Array(
      Type.Object({ kind: Type.String(), value: Type.String(), reason: StringEnum(REJECTION_REASONS) }),
    ),
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

export const HealthSchema = Type.Object(
  {
    status: StringEnum(['ok', 'degraded', 'unknown'] as const),
    sources: Type.Array(
      Type.Object({
        id: Type.String(),
        cadence: Type.String(),
        last_success_at: Nullable(Type.String()),
        data_as_of: Nullable(Type.String()),
        consecutive_failures: Type.Integer(),
      }),
    ),
    degraded: Type.Array(Type.String()),
  },
  { $id: 'Health' },
);

export const MetaSchema = Type.Object(
  {
    count: Type.Integer({ description: 'Rows in this response' }),
    limit: Type.Optional(Type.Integer()),
    next_cursor: Type.Optional(Nullable(Type.String({ description: 'Pass as `cursor` for the next page' }))),
    total: Type.Optional(
      Type.Integer({ description: 'Present only when `include_total=true` was requested' }),
    ),
    data_as_of: Nullable(
      Type.String({ description: 'Oldest upstream freshness stamp across the backing sources' }),
    ),
    attribution: Type.Optional(
      Type.Array(Type.String(), { description: 'Attribution strings the caller must display' }),
    ),
  },
  { $id: 'Meta' },
);

export const ProblemSchema = Type.Object(
  {
    type: StringEnum(Object.values(PROBLEM_TYPES).map((p) => p.type)),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.Optional(Type.String({ description: 'Request path' })),
    parameter: Type.Optional(Type.String({ description: 'The offending parameter' })),
  },
  { $id: 'Problem' },
);

/** Every shared schema, registered once on the server so that routes and OpenAPI refer to them. */
export const SHARED_SCHEMAS = [
  HazardCategorySchema,
  SeveritySchema,
  RemedySchema,
  IdentifierKindSchema,
  IdentifierSchema,
  RecallSchema,
  RecallMatchSchema,
  RevisionSchema,
  SourceSchema,
  CheckReceiptSchema,
  HealthSchema,
  MetaSchema,
  ProblemSchema,
];

/** `{data, meta}` with the given data schema. */
export const envelope = (data: TSchema) => Type.Object({ data, meta: Type.Ref(MetaSchema) });

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: Type.Ref(ProblemSchema) } },
});

/** The error responses of a keyed endpoint. */
export const KEYED_ERRORS = {
  400: problem(
    'Invalid or unknown parameter (`/problems/invalid-parameter`) or cursor (`/problems/invalid-cursor`)',
  ),
  401: problem('Missing or invalid API key'),
  402: problem('Monthly quota exhausted'),
  403: problem('API key revoked'),
  404: problem('No such resource'),
  429: problem('Burst limit exceeded; see `Retry-After`'),
  500: problem('Internal error'),
};

export const PUBLIC_ERRORS = {
  400: KEYED_ERRORS[400],
  404: KEYED_ERRORS[404],
  500: KEYED_ERRORS[500],
};

export const LimitSchema = Type.Integer({
  minimum: 1,
  maximum: 200,
  default: 50,
  description: 'Page size, 1 to 200',
});
export const CursorSchema = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: "Opaque value from the previous page's `meta.next_cursor`",
});
