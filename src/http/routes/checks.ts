/** POST /v1/checks, GET /v1/checks, GET /v1/checks/{id}: catalogue checks and their receipts. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { assertWellFormed, CheckService } from '../../checks/check-service.ts';
import type { CheckReceipt } from '../../domain/check.ts';
import { MAX_VALUE_LENGTH } from '../../domain/identifiers/normalise.ts';
import { Ref, Text } from '../../domain/json-schema.ts';
import { monthlyFields } from '../rate-limit-fields.ts';
import { invalidParameter } from '../problems.ts';
import { Walk } from '../paging.ts';
import { ProblemError } from '../problems.ts';
import { corpusVersionOf, type RouteContext } from '../route-context.ts';
import { sourceOfRecallId } from '../source-catalog.ts';
import {
  CheckReceiptSchema,
  CheckReceiptSummarySchema,
  CursorSchema,
  envelope,
  pageEnvelope,
  KEYED_ERRORS,
  LimitSchema,
} from '../schemas.ts';

/** Longest `kind` accepted (the nine kinds are at most 5 characters); longer is 400. */
const MAX_KIND_LENGTH = 32;

/** The body of POST /v1/checks. `value` above the normaliser's 512 characters is 400. */
const CheckBody = Type.Object(
  {
    label: Type.Optional(Text({ maxLength: 200, description: "The caller's own reference; echoed back" })),
    identifiers: Type.Array(
      Type.Object(
        {
          kind: Type.String({
            maxLength: MAX_KIND_LENGTH,
            description: 'Identifier kind (case-insensitive); another string is rejected as unknown_kind',
          }),
          value: Type.String({ maxLength: MAX_VALUE_LENGTH }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 1000 },
    ),
  },
  { additionalProperties: false },
);

/** The Idempotency-Key from raw headers (Node joins repeats `a, b`): 1–255 printable ASCII, sent once. */
export function parseIdempotencyKey(rawHeaders: readonly string[]): string | null {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    if (rawHeaders[i]!.toLowerCase() === 'idempotency-key') values.push(rawHeaders[i + 1]!);
  if (values.length === 0) return null;
  if (values.length > 1 || !/^[\x20-\x7e]{1,255}$/.test(values[0]!)) {
    throw invalidParameter(
      'Idempotency-Key',
      'Idempotency-Key must be 1 to 255 printable ASCII characters, sent once.',
    );
  }
  return values[0]!;
}

const ListQuery = Type.Object({ limit: Type.Optional(LimitSchema), cursor: Type.Optional(CursorSchema) });
const IdParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: 128,
    description: 'The `check_id` of a receipt of the calling key',
  }),
});

/** Read raw by the handler (parseIdempotencyKey: once, 1 to 255 printable ASCII characters), so documented only. */
const DocumentedCheckHeaders = Type.Object({
  'Idempotency-Key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7e]+$',
      description:
        'Makes retries safe: the same key and body from the same API key within 24 hours answers the first receipt ' +
        '(with `Idempotent-Replayed: true`) and is not charged again. 1 to 255 printable ASCII characters, sent once.',
    }),
  ),
});

/** Meta of a single receipt: all enabled sources' freshness, the matched records' attribution. */
function receiptMeta(ctx: RouteContext, receipt: CheckReceipt, dataAsOf: string | null) {
  const attribution = ctx.catalog.attribution(receipt.matches.map((m) => sourceOfRecallId(m.recall_id)));
  return { count: 1, data_as_of: dataAsOf, ...(attribution.length > 0 ? { attribution } : {}) };
}

export const checkRoutes: FastifyPluginAsyncTypebox<RouteContext> = async (app, ctx) => {
  const { deps, catalog, now } = ctx;
  const service = new CheckService(deps.store, deps.caches);

  app.post(
    '/checks',
    {
      schema: {
        operationId: 'runCheck',
        summary: 'Check up to 1000 identifiers and keep a receipt',
        description:
          'Identifiers are normalised and matched; those that cannot be normalised are listed in `rejected`. ' +
          'Duplicates are checked once. The receipt is immutable and recorded against the calling key. ' +
          'Send `Idempotency-Key` to make retries safe (24 hours; a replay answers `Idempotent-Replayed: true`).',
        tags: ['identifiers'],
        body: CheckBody,
        response: {
          201: {
            ...envelope(
              Ref(CheckReceiptSchema),
              "The check's receipt, with its matches; a replayed Idempotency-Key answers the first receipt",
            ),
            headers: {
              'Idempotent-Replayed': {
                type: 'string',
                enum: ['true'],
                description:
                  'Sent when this answer replays the receipt of an earlier use of the Idempotency-Key',
              },
            },
          },
          ...KEYED_ERRORS,
        },
      },
      config: { access: 'key', openapi: { headers: DocumentedCheckHeaders } },
    },
    async (request, reply) => {
      const auth = request.auth;
      if (auth.state !== 'valid' || request.quotaHold === undefined)
        throw new Error('check reached without a key');
      const idempotencyKey = parseIdempotencyKey(request.raw.rawHeaders);
      assertWellFormed(request.body);
      const corpusVersion = await corpusVersionOf(request, deps.store);
      const corpusAsOf = await catalog.dataAsOf(undefined, corpusVersion);
      const outcome = await service.run({
        input: request.body,
        key: { id: auth.key.id, plan: auth.plan },
        hold: request.quotaHold,
        idempotencyKey,
        now: now(),
        corpusVersion,
        corpusAsOf,
      });
      // The client has gone and nothing was recorded: there is no one to answer.
      if (outcome === undefined) return reply.hijack();
      const { identifiers } = outcome;
      if (identifiers !== undefined)
        monthlyFields(reply, 'identifiers', identifiers.limit, identifiers.left, now());
      if (outcome.refused !== undefined) throw outcome.refused;
      const { receipt, replayed } = outcome;
      if (replayed) reply.header('Idempotent-Replayed', 'true');
      return reply.code(201).send({ data: receipt, meta: receiptMeta(ctx, receipt, corpusAsOf) });
    },
  );

  app.get(
    '/checks',
    {
      schema: {
        operationId: 'listChecks',
        summary: "The calling key's receipts, newest first (without matches)",
        description:
          'Only the receipts recorded against the calling API key, newest first, each without its `matches` ' +
          '(read one receipt for them). Keyset paging with `meta.next_cursor`.',
        tags: ['identifiers'],
        querystring: ListQuery,
        response: {
          200: pageEnvelope(
            Ref(CheckReceiptSummarySchema),
            "A page of the calling key's receipts (without matches), newest first",
          ),
          ...KEYED_ERRORS,
        },
      },
      config: { access: 'key', etag: 'corpus-key' },
    },
    async (request) => {
      const auth = request.auth;
      if (auth.state !== 'valid') throw new Error('list reached without a key');
      const q = request.query;
      const walk = new Walk(deps.store.cursorSecret, 'checks', { key: auth.key.id });
      const before = walk.idPosition(q.cursor);
      const limit = q.limit ?? 50;
      const page = await deps.store.checks.list(auth.key.id, limit, before);
      return {
        data: page.rows,
        meta: {
          count: page.rows.length,
          limit,
          next_cursor: walk.next(page.more, page.lastCheckId === null ? undefined : [page.lastCheckId]),
          data_as_of: await catalog.dataAsOf(undefined, await corpusVersionOf(request, deps.store)),
        },
      };
    },
  );

  app.get(
    '/checks/:id',
    {
      schema: {
        operationId: 'getCheck',
        summary: 'One receipt, with its matches frozen as at check time',
        description: "Another key's receipt gives 404, exactly as a missing one does.",
        tags: ['identifiers'],
        params: IdParams,
        response: {
          200: envelope(Ref(CheckReceiptSchema), 'The receipt, with its matches as at check time'),
          ...KEYED_ERRORS,
        },
      },
      config: { access: 'key', etag: 'corpus-key' },
    },
    async (request) => {
      const auth = request.auth;
      if (auth.state !== 'valid') throw new Error('receipt reached without a key');
      const { id } = request.params;
      const receipt = await deps.store.checks.get(auth.key.id, id);
      if (receipt === undefined) throw new ProblemError('not-found', `No check "${id}" for this API key.`);
      return {
        data: receipt,
        meta: receiptMeta(
          ctx,
          receipt,
          await catalog.dataAsOf(undefined, await corpusVersionOf(request, deps.store)),
        ),
      };
    },
  );
};
