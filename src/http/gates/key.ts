/**
 * Gate 2, the key (401 / 403). The key is read before the burst gate without refusing anything,
 * because the burst limit is measured against the plan of the key on the request; this gate
 * then refuses what the route's access rule does not accept.
 */
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config, PlanId } from '../../config.ts';
import type { Store } from '../../store/database.ts';
import { keyRule, type AppDeps, type AuthState } from '../context.ts';
import { ProblemError } from '../problems.ts';

/** The key presented by a request, or undefined; a malformed Authorization header counts as a bad key. */
function presentedKey(request: FastifyRequest): string | undefined | null {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    return m?.[1] ?? null;
  }
  const header = request.headers['x-api-key'];
  if (typeof header === 'string') return header.trim();
  if (Array.isArray(header)) return null;
  return undefined;
}

/**
 * The request's key state, and the corpus version when it was read with the key (one probe for
 * both, so a keyed request reads nothing else before its own query).
 */
async function resolveAuth(
  request: FastifyRequest,
  store: Store,
  config: Config,
): Promise<{ auth: AuthState; corpusVersion?: number }> {
  const key = presentedKey(request);
  if (key === undefined) return { auth: { state: 'missing' } };
  if (key === null || key === '') return { auth: { state: 'invalid' } };
  const { record, corpusVersion } = await store.keys.authenticate(key);
  if (record === undefined) return { auth: { state: 'invalid' }, corpusVersion };
  const plan = config.plans[record.plan as PlanId] ?? config.plans.free;
  return {
    auth:
      record.revoked_at !== null
        ? { state: 'revoked', key: record, plan }
        : { state: 'valid', key: record, plan },
    corpusVersion,
  };
}

/** Reads the key of every keyed request into `request.auth`, refusing nothing. */
export const keyReading = fp<{ deps: AppDeps }>(
  async (app, { deps }) => {
    app.decorateRequest('auth', null as never);
    app.decorateRequest('corpusVersion', undefined);
    app.addHook('onRequest', async (request) => {
      if (keyRule(request) === undefined) {
        request.auth = { state: 'missing' };
        return;
      }
      const resolved = await resolveAuth(request, deps.store, deps.config);
      request.auth = resolved.auth;
      request.corpusVersion = resolved.corpusVersion;
    });
  },
  { name: 'key-reading' },
);

/** Refuses a request whose key the route's access rule does not accept. */
export const keyGate = fp(
  async (app) => {
    app.addHook('onRequest', async (request) => {
      const access = keyRule(request);
      if (access === undefined) return;
      const { auth } = request;
      if (auth.state === 'revoked') throw new ProblemError('forbidden', 'This API key has been revoked.');
      if (auth.state === 'invalid') throw new ProblemError('unauthorized', 'The API key is not valid.');
      if (auth.state === 'missing' && access === 'key') {
        throw new ProblemError(
          'unauthorized',
          'An API key is required: send "Authorization: Bearer <key>" or "X-API-Key: <key>".',
        );
      }
    });
  },
  { name: 'key-gate', dependencies: ['key-reading', 'burst-gate'] },
);
