/** Builds the HTTP server without listening: the request path's stages (gates/), the routes, the reference pages. */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { Server } from 'node:http';
import Fastify, { type FastifyHttpOptions, type FastifyInstance } from 'fastify';
import { LEASE_SHARE } from '../domain/quota-lease.ts';
import { QuotaLedger } from '../quota/ledger.ts';
import { requestIdHeader, requestIdSource, requestLogging } from './access-log.ts';
import { closeAfterAnswer } from './closing.ts';
import type { AppDeps } from './context.ts';
import { handleError, sendProblem, instanceOf } from './error-handler.ts';
import { access } from './gates/access.ts';
import { answerCache } from './gates/answer-cache.ts';
import { conditionalGet } from './gates/conditional.ts';
import { parametersGate } from './gates/parameters.ts';
import { quotaGate } from './gates/quota.ts';
import { openApiDocumentation } from './openapi.ts';
import { ProblemError } from './problems.ts';
import { answerClientError, HEADERS_TIMEOUT_MS, protocolRules, TIMEOUT_CHECK_MS } from './protocol.ts';
import type { RouteContext } from './route-context.ts';
import { checkRoutes } from './routes/checks.ts';
import { problemTypeRoutes } from './routes/problem-types.ts';
import { healthRoutes } from './routes/health.ts';
import { identifierRoutes } from './routes/identifiers.ts';
import { recallRoutes } from './routes/recalls.ts';
import { sourceRoutes } from './routes/sources.ts';
import { SHARED_SCHEMAS } from './schemas.ts';
import { SourceCatalog } from './source-catalog.ts';

export type App = FastifyInstance;

/** Request bodies at most this large; a 1000-identifier check is far below it. */
const BODY_LIMIT = 1024 * 1024;

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

/** The HTTP server, gates, routes and reference pages, ready to listen. */
export async function buildApp(deps: AppDeps): Promise<App> {
  const now = deps.clock ?? (() => new Date());
  const requestIds = requestIdSource();
  const options: FastifyHttpOptions<Server> = {
    logger: deps.logger ?? false,
    ...requestLogging(requestIds),
    trustProxy: deps.config.trustProxy,
    bodyLimit: BODY_LIMIT,
    // A request (headers and body) must arrive within the timeout; Fastify's default is none.
    requestTimeout: deps.config.requestTimeoutMs,
    http: {
      requireHostHeader: false, // refused in protocolRules, as a problem document
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, deps.config.requestTimeoutMs),
      requestTimeout: deps.config.requestTimeoutMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    },
    routerOptions: { maxParamLength: 4096, ignoreTrailingSlash: false },
    return503OnClosing: false,
    clientErrorHandler: (error, socket) => answerClientError(error, socket, requestIds.next),
    // Errors the router raises before any route runs (bad percent-encoding, …) become problems too; no
    // onSend hook runs for them, so their request id is set here.
    frameworkErrors: (error, request, reply) =>
      handleError(error, request, reply.header('X-Request-Id', request.id)),
  };
  const app = Fastify(options).withTypeProvider<TypeBoxTypeProvider>();
  const { coercing, exact } = validators();
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? exact : coercing).compile(schema),
  );
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);

  const { caches } = deps;
  const ledger = new QuotaLedger(deps.store, {
    rule: { maxBlock: deps.config.quota.leaseBlock, share: LEASE_SHARE },
    idleReturnMs: deps.config.quota.idleReturnMs,
    now,
    onError: (err) => app.log.error({ err }, 'usage report failed'),
  });
  app.addHook('onClose', () => ledger.close());
  deps.metrics?.watchLedger(() => ledger.figures());
  // The admin listener's metrics count each answer in its route's own onResponse hook, made from the route's
  // options (its pattern) as the route is added: so before any route is.
  const { metrics } = deps;
  if (metrics !== undefined)
    app.addHook('onRoute', (route) => {
      const own = route.onResponse ?? [];
      route.onResponse = [...(Array.isArray(own) ? own : [own]), metrics.answered(route.url)];
    });
  await app.register(requestIdHeader);
  await app.register(protocolRules, { requestId: requestIds.of });
  // The stages, each a file of gates/, run in the order registered, the contract's: access (burst limit and
  // key) → parameters → conditional GET (a 304 from memory) → quota (admit; settled when the connection closes)
  // → answer cache (replay) → handler; and on the way out: the answer cache keeps the 200, Server-Timing,
  // then conditional GET (the route's own onSend, after every stage's) tags it and makes a 304 of it when the
  // request names the tag.
  await app.register(access, { deps, now, caches });
  await app.register(parametersGate);
  await app.register(conditionalGet, { deps, ledger, now, caches });
  await app.register(quotaGate, { ledger, now });
  await app.register(answerCache, { budget: deps.config.answerCacheBytes, caches });
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('Server-Timing', `app;dur=${reply.elapsedTime.toFixed(2)}`);
    done(null, payload);
  });
  await app.register(closeAfterAnswer);

  app.setErrorHandler((error, request, reply) => handleError(error, request, reply));
  // The router's 404 is no route: its options take the metrics' hook (Fastify takes every request hook
  // there, though its types name two).
  const notFoundOptions = metrics === undefined ? {} : { onResponse: metrics.answered(undefined) };
  app.setNotFoundHandler(notFoundOptions as Parameters<typeof app.setNotFoundHandler>[0], (request, reply) =>
    sendProblem(
      reply,
      new ProblemError(
        'not-found',
        `No resource at ${request.method} ${instanceOf(request)}. The API is under /v1: its reference is at /docs, its OpenAPI document at /v1/openapi.json.`,
      ),
      instanceOf(request),
    ),
  );

  const context: RouteContext = { deps, catalog: new SourceCatalog(deps.store, deps.sources, caches), now };
  await app.register(swagger, openApiDocumentation(deps));
  app.register(
    async (v1) => {
      for (const routes of [recallRoutes, identifierRoutes, checkRoutes, sourceRoutes, healthRoutes])
        await v1.register(routes, context);
      v1.get(
        '/openapi.json',
        { schema: { hide: true }, config: { access: 'public', etag: 'body' } },
        async (_request, reply) => reply.type('application/json').send(app.swagger()),
      );
    },
    { prefix: '/v1' },
  );
  await app.register(problemTypeRoutes);
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, validatorUrl: null, tryItOutEnabled: false },
    // Served from here, no CDN; no upgrade-insecure-requests (breaks plain-HTTP deployments by host name).
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
