/**
 * Builds the HTTP server from its dependencies, without listening. The gates run in the
 * contract's order on every keyed route: burst limit → key → request validation → monthly
 * quota → handler. A conditional GET whose corpus ETag still matches is answered 304 at the
 * quota gate: it must be within the quota (checked by a read) but takes nothing from it.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { randomBase62 } from '../domain/api-keys.ts';
import { AnswerCache } from './answer-cache.ts';
import type { AppDeps } from './context.ts';
import { handleError, PROBLEM_CONTENT_TYPE, sendProblem, instanceOf } from './error-handler.ts';
import { enforceAuth, resolveAuth } from './gates/auth.ts';
import { corpusTagCache, matchesIfNoneMatch, weakTag } from './gates/etag.ts';
import { admitRequest, releaseQuota, wouldAdmit } from './gates/quota.ts';
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
import { UsageRecorder } from './usage-recorder.ts';

/** What every route module receives. */
export interface RouteContext {
  deps: AppDeps;
  catalog: SourceCatalog;
  now: () => Date;
}

/** The corpus version this request reads everything at (read once, with the key where there is one). */
export async function corpusVersionOf(request: FastifyRequest, store: AppDeps['store']): Promise<number> {
  request.corpusVersion ??= await store.corpusVersion();
  return request.corpusVersion;
}

export type App = FastifyInstance;

/** The media type of every JSON answer, as Fastify writes it. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

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

/**
 * Request ids `req_` + 16 base62 characters: 8 random per process, then a counter (unique in
 * the logs without drawing random bytes per request).
 */
function requestIds(): () => string {
  const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const prefix = `req_${randomBase62(8)}`;
  let n = 0;
  return () => {
    let x = n++;
    let tail = '';
    for (let i = 0; i < 8; i++) {
      tail = ALPHABET[x % 62]! + tail;
      x = Math.floor(x / 62);
    }
    return prefix + tail;
  };
}

/** Whether a client address is burst-exempt, remembered per address (a BlockList check allocates). */
function exemptCache(config: AppDeps['config']): (ip: string) => boolean {
  const known = new Map<string, boolean>();
  return (ip) => {
    let exempt = known.get(ip);
    if (exempt === undefined) {
      if (known.size >= 10_000) known.clear();
      exempt = config.burstExempt.check(ip, ip.includes(':') ? 'ipv6' : 'ipv4');
      known.set(ip, exempt);
    }
    return exempt;
  };
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const now = deps.clock ?? (() => new Date());
  const options: FastifyServerOptions = {
    logger: deps.logger ?? false,
    trustProxy: deps.config.trustProxy,
    bodyLimit: BODY_LIMIT,
    routerOptions: { maxParamLength: 4096, ignoreTrailingSlash: false },
    genReqId: requestIds(),
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
  const isExempt = exemptCache(deps.config);
  const corpusTag = corpusTagCache();
  const answers = new AnswerCache(deps.config.answerCacheBytes);
  const context: RouteContext = { deps, catalog, now };

  app.decorateRequest('auth', null as never);
  app.decorateRequest('quotaHold', undefined);
  app.decorateRequest('corpusVersion', undefined);
  app.decorateRequest('cachedAnswer', false);
  const usage = new UsageRecorder(deps.store, (err) => app.log.error({ err }, 'usage recording failed'));
  app.addHook('onClose', () => usage.flush());

  // Gate 1 and 2: burst limit, then key. The key is resolved first (without refusing anything)
  // because the burst limit is measured against the plan of the key on the request.
  app.addHook('onRequest', async (request, reply) => {
    const { access } = request.routeOptions.config;
    if (access === undefined || access === 'public') {
      request.auth = { state: 'missing' };
      return;
    }
    const resolved = await resolveAuth(request, deps.store, deps.config);
    request.auth = resolved.auth;
    request.corpusVersion = resolved.corpusVersion;
    const plan =
      request.auth.state === 'valid' || request.auth.state === 'revoked'
        ? request.auth.plan
        : deps.config.plans.free;
    if (!isExempt(request.ip)) {
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
  app.addHook('preValidation', (request, _reply, done) => {
    const { config, schema } = request.routeOptions;
    if (config.access !== undefined) {
      try {
        enforceStrictQuery(request, declaredQueryParameters(schema?.querystring));
      } catch (error) {
        done(error as Error);
        return;
      }
    }
    done();
  });

  // Gate 4 and 5: the corpus ETag, then the monthly quota. A 304 does not count, so it takes no
  // reservation; it must still pass the quota gate, which it does by a read. A 2xx is reserved
  // by one conditional update (or, on an unmetered request quota, counted once answered). Once
  // admitted, a corpus answer already made at this version is sent as it was serialised.
  app.addHook('preHandler', async (request, reply) => {
    const { auth } = request;
    const mode = request.routeOptions.config.etag;
    let version: number | undefined;
    if (request.method === 'GET' && (mode === 'corpus' || mode === 'corpus-key')) {
      version = await corpusVersionOf(request, deps.store);
      const keyPart =
        mode === 'corpus-key' && auth.state === 'valid'
          ? `${auth.key.id}:${await deps.store.checks.latestSeq(auth.key.id)}`
          : '';
      const tag = corpusTag(version, keyPart, request.url);
      reply.header('ETag', tag);
      if (matchesIfNoneMatch(request.headers['if-none-match'], tag)) {
        if (auth.state === 'valid') await wouldAdmit(deps.store, auth.key.id, auth.plan, now());
        return reply.code(304).send();
      }
    }
    if (auth.state === 'valid')
      request.quotaHold = await admitRequest(deps.store, auth.key.id, auth.plan, now());
    if (mode === 'corpus' && version !== undefined) {
      const answer = answers.get(version, request.url);
      if (answer !== undefined) {
        request.cachedAnswer = true;
        return reply.type(JSON_CONTENT_TYPE).send(answer);
      }
    }
  });

  // Body-derived ETags for the rest (health, the OpenAPI document), and the server's own time.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('Server-Timing', `app;dur=${reply.elapsedTime.toFixed(2)}`);
    if (
      reply.statusCode === 200 &&
      !request.cachedAnswer &&
      request.corpusVersion !== undefined &&
      request.routeOptions.config.etag === 'corpus' &&
      request.method === 'GET' &&
      typeof payload === 'string'
    )
      answers.set(request.corpusVersion, request.url, payload);
    if (reply.statusCode !== 200 || request.method !== 'GET' || reply.hasHeader('ETag'))
      return done(null, payload);
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
    const tag = weakTag(payload.toString());
    reply.header('ETag', tag);
    if (matchesIfNoneMatch(request.headers['if-none-match'], tag)) {
      reply.code(304);
      return done(null, '');
    }
    return done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    const hold = request.quotaHold;
    if (hold === undefined) return done();
    const answered = reply.statusCode >= 200 && reply.statusCode < 300 && !hold.refund;
    if (answered && hold.deferredRequests > 0) usage.record(hold.keyId, hold.month, hold.deferredRequests);
    if (answered || hold.requests + hold.identifiers === 0) return done();
    releaseQuota(deps.store, hold)
      .catch((err: unknown) => request.log.error({ err }, 'quota release failed'))
      .finally(() => done());
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
