/** GET /v1/sources: every source with its licence, attribution and freshness. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Ref } from '../../domain/json-schema.ts';
import { corpusVersionOf, type RouteContext } from '../route-context.ts';
import { envelope, KEYED_ERRORS, SourceSchema } from '../schemas.ts';

export const sourceRoutes: FastifyPluginAsyncTypebox<RouteContext> = async (app, { catalog, deps }) => {
  app.get(
    '/sources',
    {
      schema: {
        operationId: 'listSources',
        summary: 'Sources, licences and required attribution',
        description: 'Served without a key; a key that is sent must be valid (401) and not revoked (403).',
        tags: ['service'],
        querystring: Type.Object({}),
        response: {
          200: envelope(
            Type.Array(Ref(SourceSchema)),
            'Every source with its licence, required attribution and freshness',
          ),
          ...KEYED_ERRORS,
        },
      },
      config: { access: 'optional-key', etag: 'corpus' },
    },
    async (request) => {
      const version = await corpusVersionOf(request, deps.store);
      const views = await catalog.views(version);
      return {
        data: views.map(({ meta, state }) => ({
          id: meta.id,
          agency: meta.agency,
          jurisdiction: meta.jurisdiction,
          licence: meta.licence,
          homepage: meta.homepage,
          cadence: meta.cadence,
          enabled: state.enabled,
          last_success_at: state.last_success_at,
          data_as_of: state.data_as_of,
        })),
        meta: {
          count: views.length,
          data_as_of: await catalog.dataAsOf(undefined, version),
          attribution: catalog.attribution(views.map((v) => v.meta.id)),
        },
      };
    },
  );
};
