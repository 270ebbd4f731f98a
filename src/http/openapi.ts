/**
 * The OpenAPI 3.1 document's frame; paths come from the route schemas themselves, and what the gates add to
 * every answer (headers, 304, problem types per status) from the route config the gates read (openapi-gates.ts).
 */
import type { SwaggerOptions } from '@fastify/swagger';
import type { AppDeps } from './context.ts';
import { addGateFacts, GATE_COMPONENTS, type OperationGates } from './openapi-gates.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Json = Record<string, any>;

/**
 * The descriptions of a route's `$ref` parameters, which @fastify/swagger drops with every other sibling of a
 * `$ref` (OpenAPI 3.1 allows them): name → description.
 */
function refParameterDescriptions(schema: Json): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of [schema.querystring, schema.params]) {
    for (const [name, property] of Object.entries<Json>(part?.properties ?? {})) {
      if (property.$ref !== undefined && typeof property.description === 'string')
        found.set(name, property.description);
    }
  }
  return found;
}

/** Gives back the descriptions of `$ref` parameters (see {@link refParameterDescriptions}). */
function restoreDescriptions(op: Json, descriptions: Map<string, string> | undefined): void {
  for (const parameter of (op.parameters ?? []) as Json[]) {
    const description = descriptions?.get(parameter.name);
    if (parameter.description === undefined && description !== undefined) parameter.description = description;
  }
}

export function openApiDocumentation(deps: AppDeps): SwaggerOptions {
  const sources = deps.sources.map((s) => `\`${s.id}\` (${s.agency})`).join(', ');
  /** Each documented operation's gate settings, gathered as the routes are read. */
  const gates = new Map<string, OperationGates>();
  const descriptions = new Map<string, Map<string, string>>();
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
          'Errors are RFC 9457 problem documents (`application/problem+json`); branch on `type`.\n\n' +
          'Every 200 to a GET carries a weak `ETag`; sending it back as `If-None-Match` answers 304 while unchanged. ' +
          'Keyed answers carry the burst limit as `RateLimit-Policy` and `RateLimit`; a 429 says when to retry in ' +
          '`Retry-After`.',
        license: {
          name:
            'Service: proprietary, no licence granted (UNLICENSED). Records: each under the licence of its ' +
            'source, listed with the attribution to display by GET /v1/sources',
          url: '/v1/sources',
        },
        contact: { name: 'The operator of this deployment (quote the request id that a 500 names)' },
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer rk_live_…`' },
          apiKeyHeader: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'The key in `X-API-Key`, for clients that cannot set `Authorization`',
          },
        },
        ...GATE_COMPONENTS,
      },
      security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
      tags: [
        { name: 'recalls', description: 'Recall records and their amendment history' },
        { name: 'identifiers', description: 'Lookups and catalogue checks' },
        { name: 'service', description: 'Sources and health' },
      ],
    },
    // Request schemas the handler checks itself replace the route's runtime ones in the document.
    transform: ({ schema, url, route }) => {
      const config = route.config ?? {};
      const documented: Json = { ...schema, ...config.openapi };
      const id = documented.operationId as string | undefined;
      if (id !== undefined) {
        gates.set(id, { access: config.access, etag: config.etag });
        descriptions.set(id, refParameterDescriptions(documented));
      }
      return { schema: documented, url };
    },
    transformObject: (document) => {
      const doc = (document as { openapiObject: { paths?: Record<string, Json> } }).openapiObject;
      for (const [path, item] of Object.entries(doc.paths ?? {})) {
        for (const method of METHODS) {
          const op = item[method];
          const found = op?.operationId === undefined ? undefined : gates.get(op.operationId);
          if (found === undefined) continue;
          restoreDescriptions(op, descriptions.get(op.operationId));
          addGateFacts(op, path, method, found);
        }
      }
      return doc;
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  };
}
