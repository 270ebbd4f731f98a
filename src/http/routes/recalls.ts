/** GET /v1/recalls, /v1/recalls/{id}, /v1/recalls/{id}/revisions. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Ref } from '../../domain/json-schema.ts';
import { isCalendarDate } from '../../domain/dates.ts';
import type { RecallFilters } from '../../store/recalls-store.ts';
import { Walk } from '../paging.ts';
import { ProblemError, invalidParameter } from '../problems.ts';
import { jsonArray, sendRendered } from '../rendered-answer.ts';
import { corpusVersionOf, type RouteContext } from '../route-context.ts';
import {
  CursorSchema,
  envelope,
  pageEnvelope,
  HazardCategorySchema,
  KEYED_ERRORS,
  LimitSchema,
  RecallSchema,
  RecallSummarySchema,
  RemedySchema,
  RevisionSchema,
  SeveritySchema,
} from '../schemas.ts';

const ListQuery = Type.Object({
  jurisdiction: Type.Optional(
    Type.String({ minLength: 1, maxLength: 16, description: 'Jurisdiction code as published' }),
  ),
  source: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'One source feed id (see /v1/sources)' }),
  ),
  hazard_category: Type.Optional(
    Ref(HazardCategorySchema, { description: 'Only recalls of this canonical hazard category' }),
  ),
  severity: Type.Optional(Ref(SeveritySchema, { description: 'Only recalls of this severity' })),
  remedy: Type.Optional(Ref(RemedySchema, { description: 'Only recalls with this remedy' })),
  from: Type.Optional(
    Type.String({ format: 'date', description: 'Earliest recall_date, inclusive, YYYY-MM-DD' }),
  ),
  to: Type.Optional(
    Type.String({ format: 'date', description: 'Latest recall_date, inclusive, YYYY-MM-DD' }),
  ),
  limit: Type.Optional(LimitSchema),
  cursor: Type.Optional(CursorSchema),
  include_total: Type.Optional(
    Type.Boolean({ default: false, description: 'When true, meta.total is present' }),
  ),
});

const IdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 512, description: 'Stable recall id' }),
});

function checkDates(from: string | undefined, to: string | undefined): void {
  if (from !== undefined && !isCalendarDate(from))
    throw invalidParameter('from', `"from" must be a real date as YYYY-MM-DD, got "${from}".`);
  if (to !== undefined && !isCalendarDate(to))
    throw invalidParameter('to', `"to" must be a real date as YYYY-MM-DD, got "${to}".`);
  if (from !== undefined && to !== undefined && from > to)
    throw invalidParameter('from', `"from" (${from}) is later than "to" (${to}).`);
}

export const recallRoutes: FastifyPluginAsyncTypebox<RouteContext> = async (app, { deps, catalog }) => {
  const { store } = deps;

  app.get(
    '/recalls',
    {
      schema: {
        operationId: 'listRecalls',
        summary: 'List recalls, newest first',
        description:
          'Newest publication first; records with no publication date come last in the same walk. Keyset paging.',
        tags: ['recalls'],
        querystring: ListQuery,
        response: {
          200: pageEnvelope(
            Ref(RecallSummarySchema),
            'A page of recalls (without their identifiers), newest publication first; `meta.next_cursor` continues the walk',
          ),
          ...KEYED_ERRORS,
        },
      },
      config: { access: 'key', etag: 'corpus' },
    },
    async (request, reply) => {
      const q = request.query;
      checkDates(q.from, q.to);
      if (q.source !== undefined && !catalog.isKnown(q.source)) {
        throw invalidParameter('source', `Unknown source "${q.source}"; see /v1/sources for the source ids.`);
      }
      const filters: RecallFilters = {
        jurisdiction: q.jurisdiction,
        source: q.source,
        hazard_category: q.hazard_category,
        severity: q.severity,
        remedy: q.remedy,
        from: q.from,
        to: q.to,
      };
      const walk = new Walk(store.cursorSecret, 'recalls', { ...filters });
      const limit = q.limit ?? 50;
      const after = walk.recallPosition(q.cursor);
      const page = await store.recalls.list(filters, limit, after);
      const last = page.rows[page.rows.length - 1];
      const next = walk.next(
        page.more,
        last === undefined ? undefined : [last.position.sortDate, last.position.id],
      );
      const attribution = catalog.attribution(page.rows.map((r) => r.sourceId));
      return sendRendered(reply, jsonArray(page.rows), {
        count: page.rows.length,
        limit,
        next_cursor: next,
        ...(q.include_total === true ? { total: await store.recalls.count(filters) } : {}),
        data_as_of: await catalog.dataAsOf(
          (m) =>
            (q.source === undefined || m.id === q.source) &&
            (q.jurisdiction === undefined || m.jurisdiction === q.jurisdiction),
          await corpusVersionOf(request, store),
        ),
        ...(attribution.length > 0 ? { attribution } : {}),
      });
    },
  );

  app.get(
    '/recalls/:id',
    {
      schema: {
        operationId: 'getRecall',
        summary: 'One recall with every extracted identifier',
        description:
          'The current state of one record, by its stable id, with every product identifier extracted from it. ' +
          '`revision` counts its observed amendments (see the revisions list). No such id gives 404.',
        tags: ['recalls'],
        params: IdParams,
        response: {
          200: envelope(Ref(RecallSchema), 'The recall, with every extracted identifier'),
          ...KEYED_ERRORS,
        },
      },
      config: { access: 'key', etag: 'corpus' },
    },
    async (request, reply) => {
      const { id } = request.params;
      const recall = await store.recalls.get(id);
      if (recall === undefined) throw new ProblemError('not-found', `No recall with id "${id}".`);
      return sendRendered(reply, recall.json, {
        count: 1,
        data_as_of: await catalog.dataAsOf(
          (m) => m.id === recall.sourceId,
          await corpusVersionOf(request, store),
        ),
        attribution: catalog.attribution([recall.sourceId]),
      });
    },
  );

  const RevisionsQuery = Type.Object({
    limit: Type.Optional(LimitSchema),
    cursor: Type.Optional(CursorSchema),
  });
  app.get(
    '/recalls/:id/revisions',
    {
      schema: {
        operationId: 'listRecallRevisions',
        summary: "A recall's amendment history, oldest first",
        description: 'Amendments only: a record never amended returns an empty list.',
        tags: ['recalls'],
        params: IdParams,
        querystring: RevisionsQuery,
        response: {
          200: pageEnvelope(
            Ref(RevisionSchema),
            "A page of the recall's amendments, oldest first (empty when never amended)",
          ),
          ...KEYED_ERRORS,
        },
      },
      config: { access: 'key', etag: 'corpus' },
    },
    async (request, reply) => {
      const { id } = request.params;
      const q = request.query;
      const walk = new Walk(store.cursorSecret, 'revisions', { id });
      const afterRevision = walk.numberPosition(q.cursor) ?? 0;
      const sourceId = await store.recalls.sourceOf(id);
      if (sourceId === undefined) throw new ProblemError('not-found', `No recall with id "${id}".`);
      const limit = q.limit ?? 50;
      const page = await store.recalls.revisions(id, limit, afterRevision);
      const last = page.rows[page.rows.length - 1];
      return sendRendered(reply, jsonArray(page.rows), {
        count: page.rows.length,
        limit,
        next_cursor: walk.next(page.more, last === undefined ? undefined : [last.revision]),
        data_as_of: await catalog.dataAsOf((m) => m.id === sourceId, await corpusVersionOf(request, store)),
        attribution: catalog.attribution([sourceId]),
      });
    },
  );
};
