/**
 * Builds the HTTP server from its dependencies, without listening. The gates run in the
 * contract's order on every keyed route: burst limit → key → request validation → monthly
 * quota → ETag → handler.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { randomBase62 } from '../domain/api-keys.ts';
import type { AppDeps } from './context.ts';
import { handleError, PROBLEM_CONTENT_TYPE, sendProblem, instanceOf } from './error-handler.ts';
import { enforceAuth, resolveAuth } from './gates/auth.ts';
import { matchesIfNoneMatch, weakTag } from './gates/etag.ts';
import { releaseQuota, reserveQuota } from './gates/quota.ts';
import { declaredQueryParameters, enforceStrictQuery } from './gates/strict-params.ts';
import { ProblemError, invalidParameter } from './problems.ts';
import { registerCheckRoutes } from './routes/checks.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerIdentifierRoutes } from './routes/identifiers.ts';
import { registerRecallRoutes } from './routes/recalls.ts';
import { registerSourceRoutes } from './routes/sources.ts';
import { SHARED_SCHEMAS } from './schemas.ts';
import { SourceCatalog } from './source-catalog.ts';
import { openApiDocumentation } from './openapi.ts';

/** What every route module receives. */
export interface RouteContext {
  deps: AppDeps;
  catalog: SourceCatalog;
  now: () => Date;
}

export type App = FastifyInstance;

/** Request bodies at most this large; a 1000-identifier check is far below it. */
export const BODY_LIMIT = 1024 * 1024;

function validators() {
  const options = { useDefaults: true, removeAdditional: false as const, allErrors: false, strict: false };
  const coercing = addFormats.default(new Ajv.default({ ...options, coerceTypes: true }));
  const exact = addFormats.default(new Ajv.default({ ...options, coerceTypes: false }));
  for (const schema of SHARED_SCHEMAS) {
    coercing.addSchema(schema);
    exact.addSchema(schema);
  }
  return { coercing, exact };
}

/**
 * Requests the HTTP parser itself refuses (oversized request line or headers, broken syntax)
 * never reach a route: answer them on the socket with a problem document too.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable) return;
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW' || error.code === 'HPE_URI_TOO_LONG';
  const body = JSON.stringify({
    type: '/problems/invalid-parameter',
    title: 'Invalid parameter',
    status: 400,
    detail: tooLarge ? 'The request line or headers are too large.' : 'The request is not valid HTTP.',
    parameter: 'request',
  });
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const now = deps.clock ?? (() => new Date());
  const options: FastifyServerOptions = {
    logger: deps.logger ?? false,
    trustProxy: deps.config.trustProxy,
    bodyLimit: BODY_LIMIT,
    routerOptions: { maxParamLength: 4096, ignoreTrailingSlash: false },
    genReqId: () => `req_${randomBase62(16)}`,
    requestIdHeader: false,
    return503OnClosing: false,
    clientErrorHandler: answerClientError,
    // Errors the router raises before any route runs (bad percent-encoding, …) become problems too.
    frameworkErrors: (error, request, reply) => handleError(error, request, reply),
  };
  const app = Fastify(options).withTypeProvider<TypeBoxTypeProvider>();
  const { coercing, exact } = validators();
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? exact : coercing).compile(schema),
  );
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);

  const catalog = new SourceCatalog(deps.store, deps.sources);
  const context: RouteContext = { deps, catalog, now };

  app.decorateRequest('auth', null as never);
  app.decorateRequest('quotaHold', undefined);

  // Gate 1 and 2: burst limit, then key. The key is resolved first (without refusing anything)
  // because the burst limit is measured against the plan of the key on the request.
  app.addHook('onRequest', async (request, reply) => {
    const access = request.routeOptions.config.access;
    if (access === undefined || access === 'public') {
      request.auth = { state: 'missing' };
      return;
    }
    request.auth = await resolveAuth(request, deps.store, deps.config);
    const plan =
      request.auth.state === 'valid' || request.auth.state === 'revoked'
        ? request.auth.plan
        : deps.config.plans.free;
    if (!deps.config.burstExempt.check(request.ip, request.ip.includes(':') ? 'ipv6' : 'ipv4')) {
      const decision = await deps.burstLimiter.hit(request.ip, plan.burstPerMinute, 60, now().getTime());
      reply.header('RateLimit-Policy', `"burst";q=${plan.burstPerMinute};w=60`);
      reply.header('RateLimit', `"burst";r=${decision.remaining};t=${decision.resetSeconds}`);
      if (!decision.allowed) {
        throw new ProblemError(
          'rate-limited',
          `Burst limit of ${plan.burstPerMinute} requests per minute from this address exceeded; retry in ${decision.resetSeconds} s.`,
          { headers: { 'Retry-After': String(decision.resetSeconds) } },
        );
      }
    }
    enforceAuth(request.auth, access);
  });

  // Gate 3: strict query parameters (unknown or repeated), before schema validation.
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config.access === undefined) return;
    enforceStrictQuery(request, declaredQueryParameters(request.routeOptions.schema?.querystring));
  });

  // Gate 4 and 5: monthly quota, then the corpus ETag (a 304 gives its reservation back).
  app.addHook('preHandler', async (request, reply) => {
    const { auth } = request;
    if (auth.state === 'valid') {
      request.quotaHold = await reserveQuota(deps.store, auth.key.id, auth.plan, now(), {
        requests: 1,
        identifiers: 0,
      });
    }
    const mode = request.routeOptions.config.etag;
    if (request.method !== 'GET' || (mode !== 'corpus' && mode !== 'corpus-key')) return;
    const version = await deps.store.corpusVersion();
    const keyPart =
      mode === 'corpus-key' && auth.state === 'valid'
        ? `${auth.key.id}:${await deps.store.checks.latestSeq(auth.key.id)}`
        : '';
    const tag = weakTag(version, keyPart, request.url);
    reply.header('ETag', tag);
    if (matchesIfNoneMatch(request.headers['if-none-match'], tag)) return reply.code(304).send();
  });

  // Body-derived ETags for the rest (health, sources, the OpenAPI document).
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode !== 200 || request.method !== 'GET' || reply.hasHeader('ETag')) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    const tag = weakTag(payload.toString());
    reply.header('ETag', tag);
    if (matchesIfNoneMatch(request.headers['if-none-match'], tag)) {
      reply.code(304);
      return '';
    }
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    const hold = request.quotaHold;
    if (hold === undefined) return;
    if (hold.refund || reply.statusCode < 200 || reply.statusCode >= 300) {
      await releaseQuota(deps.store, hold).catch((err: unknown) =>
        request.log.error({ err }, 'quota release failed'),
      );
    }
  });

  app.setErrorHandler((error, request, reply) => handleError(error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      new ProblemError('not-found', `No resource at ${request.method} ${instanceOf(request)}.`),
      instanceOf(request),
    ),
  );

  await app.register(swagger, openApiDocumentation(deps));
  app.register(
    async (v1) => {
      registerRecallRoutes(v1, context);
      registerIdentifierRoutes(v1, context);
      registerCheckRoutes(v1, context);
      registerSourceRoutes(v1, context);
      registerHealthRoutes(v1, context);
      v1.get(
        '/openapi.json',
        { schema: { hide: true }, config: { access: 'public', etag: 'body' } },
        async (request, reply) => {
          enforceStrictQuery(request, []);
          return reply.type('application/json').send(app.swagger());
        },
      );
    },
    { prefix: '/v1' },
  );
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, validatorUrl: null, tryItOutEnabled: false },
    // Everything is served from here: no CDN, and no upgrade-insecure-requests, which would break
    // the reference for anyone reaching a plain-HTTP deployment by host name.
    staticCSP:
      "default-src 'self'; base-uri 'self'; connect-src 'self'; font-src 'self' data:; frame-ancestors 'self'; " +
      "img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; " +
      // the one inline style Swagger UI writes
      "style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='",
    transformSpecificationClone: true,
    transformSpecification: (spec) => spec,
  });
  return app;
}

export { PROBLEM_CONTENT_TYPE, invalidParameter };
