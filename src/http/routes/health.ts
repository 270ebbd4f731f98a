/** GET /v1/health: no key, no envelope. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Ref } from '../../domain/json-schema.ts';
import type { RouteContext } from '../route-context.ts';
import { HealthSchema, PUBLIC_ERRORS } from '../schemas.ts';

export const healthRoutes: FastifyPluginAsyncTypebox<RouteContext> = async (app, { catalog, now }) => {
  app.get(
    '/health',
    {
      schema: {
        operationId: 'getHealth',
        summary: 'Service and per-source health',
        description:
          '`ok`: every enabled source succeeded at its last attempt and is within twice its cadence; `degraded`: at least one failed or is stale; `unknown`: no fetch of any source has been tried yet (every source failed is `degraded`).',
        tags: ['service'],
        security: [],
        querystring: Type.Object({}),
        response: {
          200: Ref(HealthSchema, { description: 'Service and per-source health (no envelope)' }),
          ...PUBLIC_ERRORS,
        },
      },
      config: { access: 'public', etag: 'body' },
    },
    async () => catalog.health(now()),
  );
};
