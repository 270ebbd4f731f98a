/**
 * What the gates add to every operation's answers, written into the OpenAPI document from the same route config
 * the gates read (`access`, `etag`): the rate-limit headers of keyed routes (gates/access.ts), the weak `ETag`,
 * `If-None-Match` and `304` of tagged GETs (gates/conditional.ts), `Retry-After` on 429, and each
 * problem response narrowed to the types its status carries, with an example of each (problems.ts).
 */
import { PROBLEM_TYPES, type ProblemKind } from './problems.ts';

/** The gate settings of one operation, as its route declares them. */
export interface OperationGates {
  access: 'key' | 'optional-key' | 'public' | undefined;
  etag: 'corpus' | 'corpus-key' | 'body' | undefined;
}

type Json = Record<string, any>;

const HEADER = '#/components/headers/';

/** Response headers the gates send, and the request header of conditional GETs. */
export const GATE_COMPONENTS = {
  headers: {
    ETag: {
      description:
        'Weak entity tag of this answer: send it back as `If-None-Match` to get 304 while unchanged.',
      required: true,
      schema: { type: 'string', pattern: '^W/"[^"]+"$' },
      example: 'W/"3DS-PuG_tGQS1AOs1EFB8M"',
    },
    'RateLimit-Policy': {
      description:
        'The limits of this request (IETF RateLimit fields), as a list: `"burst"`, the burst limit of this client ' +
        'address, `q` requests per `w` seconds (absent for addresses exempt from burst limits); `"month"`, the ' +
        "key's monthly request quota, `q` requests per calendar month, UTC (absent when unmetered, and on 304s); " +
        '`"identifiers"`, on the answers of `POST /v1/checks`, the identifiers its checks may check per calendar ' +
        'month (absent when unmetered).',
      schema: {
        type: 'string',
        pattern:
          '^(?:"burst";q=[0-9]+;w=[0-9]+|"month";q=[0-9]+|"identifiers";q=[0-9]+)(?:, (?:"month"|"identifiers");q=[0-9]+)*$',
      },
      example: '"burst";q=60;w=60, "month";q=10000',
    },
    RateLimit: {
      description:
        'What is left of each limit: `"burst"`, `r` requests for the next `t` seconds; `"month"`, `r` requests ' +
        'this month as this node knows it (units other nodes hold count as taken) until the quota starts again ' +
        'in `t` seconds; `"identifiers"`, `r` identifiers this month after this check.',
      schema: {
        type: 'string',
        pattern:
          '^(?:"burst";r=[0-9]+;t=[0-9]+|(?:"month"|"identifiers");r=[0-9]+;t=[0-9]+)(?:, (?:"month"|"identifiers");r=[0-9]+;t=[0-9]+)*$',
      },
      example: '"burst";r=59;t=60, "month";r=9412;t=345600',
    },
    'Retry-After': {
      description: 'Whole seconds until the burst window resets.',
      required: true,
      schema: { type: 'integer', minimum: 1 },
      example: 42,
    },
    RetryAfterBusy: {
      description:
        'Sent when the database did not answer within its bound (a lock held elsewhere): whole seconds to wait ' +
        'before retrying.',
      required: false,
      schema: { type: 'integer', minimum: 1 },
      example: 5,
    },
  },
  parameters: {
    IfNoneMatch: {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description:
        'The `ETag` of an earlier 200 answer to the same request: while the corpus (and, for receipts, the ' +
        "key's receipts) is unchanged the answer is 304 with no body.",
      schema: { type: 'string' },
      example: 'W/"3DS-PuG_tGQS1AOs1EFB8M"',
    },
  },
} as const;

const ref = (name: keyof typeof GATE_COMPONENTS.headers) => ({ $ref: `${HEADER}${name}` });

/** What a 404 at `instance` says: which recall or receipt is missing, or that nothing is there. */
function notFoundDetail(method: string, instance: string): string {
  const [, resource, id] = /^\/v1\/(recalls|checks)\/([^/]+)/.exec(instance) ?? [];
  if (resource === 'recalls') return `No recall with id "${decodeURIComponent(id!)}".`;
  if (resource === 'checks') return `No check "${decodeURIComponent(id!)}" for this API key.`;
  return `No resource at ${method.toUpperCase()} ${instance}.`;
}

/** A realistic problem document of `kind` at `instance` (what `detail` says is illustrative). */
function problemExample(kind: ProblemKind, where: { method: string; instance: string }, op: Json): Json {
  const { method, instance } = where;
  const { type, title, status } = PROBLEM_TYPES[kind];
  const query = ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'query').map((p) => p.name);
  const base = { type, title, status, instance };
  switch (kind) {
    case 'invalid-parameter':
      return op.requestBody !== undefined
        ? {
            ...base,
            detail: 'The request body is not valid: "identifiers" is required.',
            parameter: 'identifiers',
          }
        : {
            ...base,
            detail: `Unknown query parameter "colour". ${
              query.length === 0
                ? 'This endpoint takes no query parameters.'
                : `Supported: ${query.join(', ')}.`
            }`,
            parameter: 'colour',
          };
    case 'invalid-cursor':
      return {
        ...base,
        detail: 'Invalid cursor: the cursor was issued for other filters.',
        parameter: 'cursor',
      };
    case 'unauthorized':
      return {
        ...base,
        detail: 'An API key is required: send "Authorization: Bearer <key>" or "X-API-Key: <key>".',
      };
    case 'forbidden':
      return { ...base, detail: 'This API key has been revoked.' };
    case 'quota-exceeded':
      return {
        ...base,
        detail:
          op.requestBody !== undefined
            ? "Monthly quota exhausted: checking 1000 identifiers would exceed the free plan's 5000 identifiers for 2026-11 (UTC)."
            : "Monthly quota exhausted: the free plan's 500 requests are used up for 2026-11 (UTC).",
      };
    case 'rate-limited':
      return {
        ...base,
        detail: 'Burst limit of 10 requests per minute from this address exceeded; retry in 42 s.',
      };
    case 'not-found':
      return { ...base, detail: notFoundDetail(method, instance) };
    case 'internal':
      return {
        ...base,
        detail: 'An internal error occurred; quote request id req_4fT9kQ2b00000001 when reporting it.',
      };
  }
}

/** `path` with its parameters filled in, as a request would name it. */
function examplePath(path: string): string {
  const values: Record<string, string> = {
    id: path.startsWith('/v1/checks') ? 'chk_7Qm2fX9LkPz4RtY8wB3nVc6H' : 'us-fda-food.F-0123-2024',
    kind: 'upc',
    value: '012345678905',
  };
  return path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? name));
}

/** Narrows an error response's problem to the types of its status, with an example of each. */
function exactProblem(
  response: Json,
  status: number,
  where: { method: string; instance: string },
  op: Json,
): void {
  const media = response.content?.['application/problem+json'];
  if (media === undefined) return;
  const takesCursor = ((op.parameters ?? []) as Json[]).some((p) => p.in === 'query' && p.name === 'cursor');
  const kinds = (Object.keys(PROBLEM_TYPES) as ProblemKind[]).filter(
    (k) => PROBLEM_TYPES[k].status === status && (k !== 'invalid-cursor' || takesCursor),
  );
  if (kinds.length === 0) return;
  // Beside the $ref (JSON Schema 2020-12 applies both): validators narrow, generators keep the Problem type.
  media.schema = {
    ...media.schema,
    type: 'object',
    properties: {
      type: { enum: kinds.map((k) => PROBLEM_TYPES[k].type) },
      status: { const: status },
    },
  };
  media.examples = Object.fromEntries(
    kinds.map((k) => [k, { summary: PROBLEM_TYPES[k].title, value: problemExample(k, where, op) }]),
  );
}

/** Adds headers to a response object, after those it declares. */
function withHeaders(response: Json, headers: Json): void {
  response.headers = { ...response.headers, ...headers };
}

/** Writes what the gates add into one operation of the document. */
export function addGateFacts(op: Json, path: string, method: string, gates: OperationGates): void {
  const keyed = gates.access === 'key' || gates.access === 'optional-key';
  const conditional = gates.etag !== undefined && method === 'get';
  const rate = keyed ? { 'RateLimit-Policy': ref('RateLimit-Policy'), RateLimit: ref('RateLimit') } : {};
  const instance = examplePath(path);
  const responses: Json = op.responses;
  for (const [code, response] of Object.entries<Json>(responses)) {
    const status = Number(code);
    if (status === 200 && conditional) withHeaders(response, { ETag: ref('ETag') });
    if (status === 429) withHeaders(response, { 'Retry-After': ref('Retry-After') });
    if (status === 500) withHeaders(response, { 'Retry-After': ref('RetryAfterBusy') });
    if (keyed) withHeaders(response, rate);
    if (status >= 400) exactProblem(response, status, { method, instance }, op);
  }
  if (conditional) {
    op.parameters = [...(op.parameters ?? []), { $ref: '#/components/parameters/IfNoneMatch' }];
    responses['304'] = {
      description: 'Not modified: `If-None-Match` names the tag of this answer, which is unchanged. No body.',
      headers: { ETag: ref('ETag'), ...rate },
    };
  }
  op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}
