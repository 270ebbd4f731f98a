/**
 * Gate 2, the key (401 / 403), around the burst gate: read without the database (keyReading) so a burst
 * refusal costs no query, looked up once burst admits (keyLookup), refused by the route's rule (keyGate).
 */
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config, Plan, PlanId } from '../../config.ts';
import { hashApiKey, looksLikeApiKey } from '../../domain/api-keys.ts';
import { settle } from '../../domain/maybe-promise.ts';
import type { Authentication } from '../../store/keys-store.ts';
import { keyRule, type AppDeps } from '../context.ts';
import { ProblemError } from '../problems.ts';

/** The key presented by a request, or why there is none usable. */
type Presented = { key: string } | { state: 'missing' } | { state: 'invalid'; detail?: string };

/** Whether the request carries Authorization more than once with different values (Node keeps the first). */
function authorizationsDiffer(raw: readonly string[]): boolean {
  let first: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length !== 13 || name.toLowerCase() !== 'authorization') continue;
    if (first === undefined) first = raw[i + 1];
    else if (raw[i + 1] !== first) return true;
  }
  return false;
}

function presentedKey(request: FastifyRequest): Presented {
  const { authorization } = request.headers;
  const header = request.headers['x-api-key'];
  if (Array.isArray(header)) return { state: 'invalid' };
  const other = header?.trim();
  if (authorization === undefined) return other === undefined ? { state: 'missing' } : { key: other };
  if (authorizationsDiffer(request.raw.rawHeaders))
    return {
      state: 'invalid',
      detail: 'Authorization is sent more than once with different values; send one key, in one header.',
    };
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
  if (m === null) return { state: 'invalid' };
  if (other !== undefined && other !== '' && other !== m[1])
    return {
      state: 'invalid',
      detail: 'Authorization and X-API-Key carry different keys; send one key, in either header.',
    };
  return { key: m[1]! };
}

/**
 * Reads the key headers, refusing nothing and asking no database: the key's hash goes to `request.keyHash`;
 * `request.burstPlan` is the free plan without a usable key, else the plan its last lookup on this node found
 * (the keys store's presented keys, KEYS_KEPT). It sets only the burst limit: validity and revocation are
 * always looked up.
 */
export const keyReading = fp<{ deps: AppDeps }>(
  async (app, { deps }) => {
    const { config, store } = deps;
    app.decorateRequest('auth', null as never);
    app.decorateRequest('keyHash', undefined);
    app.decorateRequest('burstPlan', undefined);
    app.decorateRequest('corpusVersion', undefined);
    app.decorateRequest('routeOptionsRead', undefined);
    app.addHook('onRequest', (request, _reply, done) => {
      if (keyRule(request) === undefined) {
        request.auth = { state: 'missing' };
        return done();
      }
      const presented = presentedKey(request);
      if (!('key' in presented) || !looksLikeApiKey(presented.key)) {
        request.auth = 'key' in presented ? { state: 'invalid' } : presented;
        request.burstPlan = config.plans.free;
        return done();
      }
      request.keyHash = hashApiKey(presented.key);
      const plan = store.keys.lastKnownPlan(request.keyHash);
      request.burstPlan = plan === undefined ? undefined : planOf(config, plan ?? 'free');
      done();
    });
  },
  { name: 'key-reading' },
);

function planOf(config: Config, plan: string): Plan {
  return config.plans[plan as PlanId] ?? config.plans.free;
}

/**
 * Looks up the presented key and the corpus version once the burst gate has admitted the request: from the
 * node's memory, read again only after a key or the corpus changed (store-state.ts says how soon it knows).
 */
export const keyLookup = fp<{ deps: AppDeps }>(
  async (app, { deps }) => {
    const { store, config } = deps;
    const adopt = (request: FastifyRequest, { record, corpusVersion }: Authentication) => {
      request.corpusVersion = corpusVersion;
      if (record === undefined) {
        request.auth = { state: 'invalid' };
        return;
      }
      const plan = planOf(config, record.plan);
      request.auth =
        record.revoked_at !== null
          ? { state: 'revoked', key: record, plan }
          : { state: 'valid', key: record, plan };
    };
    // A callback hook: a key and state known in memory are adopted without a promise.
    app.addHook('onRequest', (request, _reply, done) => {
      const hash = request.keyHash;
      if (hash === undefined) return done();
      settle(
        () => store.keys.authenticateHash(hash),
        (authentication) => {
          adopt(request, authentication);
          done();
        },
        done,
      );
    });
  },
  { name: 'key-lookup', dependencies: ['key-reading', 'burst-count'] },
);

/** Refuses a request whose key the route's access rule does not accept. */
export const keyGate = fp(
  async (app) => {
    app.addHook('onRequest', (request, _reply, done) => {
      const access = keyRule(request);
      if (access === undefined) return done();
      const { auth } = request;
      if (auth.state === 'revoked')
        return done(new ProblemError('forbidden', 'This API key has been revoked.'));
      if (auth.state === 'invalid')
        return done(new ProblemError('unauthorized', auth.detail ?? 'The API key is not valid.'));
      if (auth.state === 'missing' && access === 'key') {
        return done(
          new ProblemError(
            'unauthorized',
            'An API key is required: send "Authorization: Bearer <key>" or "X-API-Key: <key>".',
          ),
        );
      }
      done();
    });
  },
  { name: 'key-gate', dependencies: ['key-lookup', 'burst-settle'] },
);
