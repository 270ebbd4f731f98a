/**
 * The API's schemas: they validate requests, serialise responses (which also keeps undeclared
 * fields off the wire) and make up the OpenAPI document. The shapes the domain also uses are
 * defined beside their types in src/domain and re-exported here.
 */
import { Type, type Static, type TSchema } from 'typebox';
import {
  CheckMatchSchema,
  CheckReceiptSchema,
  CheckReceiptSummarySchema,
  RejectedIdentifierSchema,
} from '../domain/check.ts';
import { ConfidenceSchema, IdentifierKindSchema } from '../domain/identifiers/kinds.ts';
import { Nullable, Ref, StringEnum } from '../domain/json-schema.ts';
import {
  IdentifierSchema,
  RecallMatchSchema,
  RecallSchema,
  RecallSummarySchema,
  RevisionSchema,
} from '../domain/recall.ts';
import { HazardCategorySchema, RemedySchema, SeveritySchema } from '../domain/taxonomy.ts';
import { PROBLEM_TYPES } from './problems.ts';

export {
  CheckReceiptSchema,
  CheckReceiptSummarySchema,
  HazardCategorySchema,
  IdentifierKindSchema,
  IdentifierSchema,
  RecallMatchSchema,
  RecallSchema,
  RecallSummarySchema,
  RemedySchema,
  RevisionSchema,
  SeveritySchema,
};

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

export const HealthSchema = Type.Object(
  {
    status: StringEnum(['ok', 'degraded', 'unknown'] as const),
    sources: Type.Array(
      Type.Object({
        id: Type.String(),
        cadence: Type.String(),
        last_success_at: Nullable(Type.String({ format: 'date-time' })),
        data_as_of: Nullable(Type.String()),
        consecutive_failures: Type.Integer({ minimum: 0 }),
      }),
    ),
    degraded: Type.Array(Type.String()),
  },
  { $id: 'Health' },
);
/** GET /v1/health's body. */
export type Health = Static<typeof HealthSchema>;

const COUNT = Type.Integer({ minimum: 0, description: 'Rows in this response' });
const DATA_AS_OF = Nullable(
  Type.String({ description: 'Oldest upstream freshness stamp across the backing sources' }),
);
const ATTRIBUTION = Type.Optional(
  Type.Array(Type.String(), { description: 'Attribution strings the caller must display; absent when none' }),
);

/** `meta` of a single object and of the unpaged source list. */
export const MetaSchema = Type.Object(
  { count: COUNT, data_as_of: DATA_AS_OF, attribution: ATTRIBUTION },
  { $id: 'Meta' },
);

/** `meta` of the four paged lists: `limit` and `next_cursor` always, `total` when asked for. */
export const PageMetaSchema = Type.Object(
  {
    count: COUNT,
    data_as_of: DATA_AS_OF,
    limit: Type.Integer({ minimum: 1, maximum: 200, description: 'Page size' }),
    next_cursor: Nullable(
      Type.String({ description: 'Pass as `cursor` for the next page; null when the walk is complete' }),
    ),
    total: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Present only when `include_total=true` was requested' }),
    ),
    attribution: ATTRIBUTION,
  },
  { $id: 'PageMeta' },
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
  ConfidenceSchema,
  IdentifierSchema,
  RecallSchema,
  RecallSummarySchema,
  RecallMatchSchema,
  RevisionSchema,
  SourceSchema,
  CheckMatchSchema,
  RejectedIdentifierSchema,
  CheckReceiptSchema,
  CheckReceiptSummarySchema,
  HealthSchema,
  MetaSchema,
  PageMetaSchema,
  ProblemSchema,
];

/** `{data, meta}` with one object as data; `description` says what the answer is (the response's, in OpenAPI). */
export const envelope = (data: TSchema, description: string) =>
  Type.Object({ data, meta: Ref(MetaSchema) }, { description });

/** `{data, meta}` of a paged list of `item`. */
export const pageEnvelope = (item: TSchema, description: string) =>
  Type.Object({ data: Type.Array(item), meta: Ref(PageMetaSchema) }, { description });

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: Ref(ProblemSchema) } },
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
