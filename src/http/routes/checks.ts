/** POST /v1/checks, GET /v1/checks, GET /v1/checks/{id}: catalogue checks and their receipts. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { CheckReceipt } from '../../domain/check.ts';
import { assertWellFormed, CheckBody, CheckService, parseIdempotencyKey } from '../check-service.ts';
import { Walk } from '../paging.ts';
import { ProblemError } from '../problems.ts';
import { corpusVersionOf, type RouteContext } from '../route-context.ts';
import { sourceOfRecallId } from '../source-catalog.ts';
import { CheckReceiptSchema, CursorSchema, envelope, KEYED_ERRORS, LimitSchema } from '../schemas.ts';

const ListQuery = Type.Object({ limit: Type.Optional(LimitSchema), cursor: Type.Optional(CursorSchema) });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });

/** Meta of a single receipt: all enabled sources' freshness, the matched records' attribution. */
async function receiptMeta(ctx: RouteContext, receipt: CheckReceipt, version: number) {
  const attribution = ctx.catalog.attribution(
    (receipt.matches ?? []).map((m) => sourceOfRecallId(m.recall_id)),
  );
  return {
    count: 1,
    data_as_of: await ctx.catalog.dataAsOf(undefined, version),
    ...(attribution.length > 0 ? { attribution } : {}),
  };
}

export const checkRoutes: FastifyPluginAsyncTypebox<RouteContext> = async (app, ctx) => {
  const { deps, catalog, now } = ctx;
  const service = new CheckService(deps.store, catalog);

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
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ description: '1 to 255 printable characters' })),
        }),
        body: CheckBody,
        response: { 201: envelope(Type.Ref(CheckReceiptSchema)), ...KEYED_ERRORS },
      },
      config: { access: 'key' },
    },
    async (request, reply) => {
      const auth = request.auth;
      if (auth.state !== 'valid' || request.quotaHold === undefined)
        throw new Error('check reached without a key');
      const idempotencyKey = parseIdempotencyKey(request.raw.rawHeaders);
      assertWellFormed(request.body);
      const version = await corpusVersionOf(request, deps.store);
      const { receipt, replayed } = await service.run(
        request.body,
        { id: auth.key.id, plan: auth.plan },
        request.quotaHold,
        idempotencyKey,
        now(),
        version,
      );
      if (replayed) reply.header('Idempotent-Replayed', 'true');
      return reply.code(201).send({
        data: receipt,
        meta: await receiptMeta(ctx, receipt, version),
      });
    },
  );

  app.get(
    '/checks',
    {
      schema: {
        operationId: 'listChecks',
        summary: "The calling key's receipts, newest first (without matches)",
        tags: ['identifiers'],
        querystring: ListQuery,
        response: { 200: envelope(Type.Array(Type.Ref(CheckReceiptSchema))), ...KEYED_ERRORS },
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
        response: { 200: envelope(Type.Ref(CheckReceiptSchema)), ...KEYED_ERRORS },
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
        meta: await receiptMeta(ctx, receipt, await corpusVersionOf(request, deps.store)),
      };
    },
  );
};
