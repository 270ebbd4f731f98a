/** The OpenAPI 3.1 document's frame; paths come from the route schemas themselves. */
import type { SwaggerOptions } from '@fastify/swagger';
import type { AppDeps } from './context.ts';

export function openApiDocumentation(deps: AppDeps): SwaggerOptions {
  const sources = deps.sources.map((s) => `\`${s.id}\` (${s.agency})`).join(', ');
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Recall and Safety Alert Service',
        version: '1.0.0',
        description:
          'Official product recall and safety-alert records, normalised into one shape, with per-record amendment ' +
          'history, identifier lookups and catalogue checks that leave an immutable receipt.\n\n' +
          `Sources: ${sources}.\n\n` +
          'Errors are RFC 9457 problem documents (`application/problem+json`); branch on `type`.',
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer rk_live_…`' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
      security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
      tags: [
        { name: 'recalls', description: 'Recall records and their amendment history' },
        { name: 'identifiers', description: 'Lookups and catalogue checks' },
        { name: 'service', description: 'Sources and health' },
      ],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  };
}
