/**
 * Stage 3, conditional GET: every weak ETag and both 304s. A 304 only ever stands for a 200.
 * - Corpus-backed GETs are tagged before the handler from the corpus version (and, for `corpus-key`, the
 *   key's newest receipt): when the request names the tag of an answer already made 200 at this version, it
 *   is answered 304 at once — within the key's monthly quota, but taking none of it.
 * - Other 200s to GET/HEAD are tagged by their body once made; any 200 whose tag the request names becomes a
 *   304 (`tagAnswer`, on the way out, after the answer cache has kept the 200).
 * One plugin (`conditionalGet`) registers both.
 */
import type { onSendHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { CacheRegistry, VersionedCache } from '../../node/caches.ts';
import { usageMonth } from '../../domain/meters.ts';
import { sha256 } from '../../domain/sha256.ts';
import type { QuotaLedger } from '../../quota/ledger.ts';
import { isRead, keyRule, routeConfig, type AppDeps, type CorpusTag } from '../context.ts';
import { corpusVersionOf } from '../route-context.ts';
import { refuseUsedUpMonth } from './quota.ts';

/** A weak tag from the SHA-256 of its parts (22 base64url characters, 132 bits). */
function weakTag(...parts: (string | number)[]): string {
  return `W/"${sha256(parts.join('\u0000'), 'base64url').slice(0, 22)}"`;
}

/** Corpus tags a node keeps: those of the newest version it has served, at most this many. */
export const CORPUS_TAGS_KEPT = 20_000;

/**
 * `weakTag` of corpus-backed responses, remembered for the newest version asked for: at most `max` (key part,
 * URL) pairs, the least recently used dropped first. A tag asked for at an older version (a request that read the version before an ingest
 * committed) is made again and not kept, so it is never `answered` early.
 */
export function corpusTagCache(
  max = CORPUS_TAGS_KEPT,
  caches = new CacheRegistry(),
): (version: number, keyPart: string, url: string) => CorpusTag {
  const tags = caches.add(new VersionedCache<string, CorpusTag>('corpus-tags', { max }));
  return (version, keyPart, url) => {
    const k = keyPart === '' ? url : `${keyPart}\u0000${url}`;
    let entry = tags.get(version, k);
    if (entry === undefined) {
      entry = { tag: weakTag(version, keyPart, url), answered: false };
      tags.set(version, k, entry);
    }
    return entry;
  };
}

function opaque(t: string): string {
  const trimmed = t.trim();
  return trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed;
}

/** Whether an If-None-Match header names this tag (weak comparison, lists and `*` allowed). */
export function matchesIfNoneMatch(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  if (header === tag) return true;
  const wanted = opaque(tag);
  for (const t of header.split(',')) {
    if (t.trim() === '*' || opaque(t) === wanted) return true;
  }
  return false;
}

/** Keyed answers differ by key: a shared cache must not hand one key's answer to another. */
const VARY = 'Authorization, X-API-Key';

/** Tags other 200s to GET/HEAD by body, answers 304 when the request names the tag, marks keyed ones private. */
const tagAnswer: onSendHookHandler = function (request, reply, payload, done) {
  if (reply.statusCode === 200 && isRead(request)) {
    let tag = reply.getHeader('ETag') as string | undefined;
    if (request.corpusTag !== undefined) request.corpusTag.answered = true;
    else if (tag === undefined && (typeof payload === 'string' || Buffer.isBuffer(payload))) {
      tag = weakTag(payload.toString());
      reply.header('ETag', tag);
    }
    if (tag !== undefined && matchesIfNoneMatch(request.headers['if-none-match'], tag)) {
      reply.code(304);
      payload = '';
    }
  }
  if (keyRule(request) !== undefined) {
    reply.header('Vary', VARY);
    reply.header('Cache-Control', reply.hasHeader('ETag') ? 'private, no-cache' : 'private');
  }
  done(null, payload);
};

/**
 * Conditional GET, both ways: before the handler, tags corpus-backed GET/HEAD and answers 304 at once for an
 * answer already made (within the month, else `refuseUsedUpMonth`); on the way out, `tagAnswer` as the
 * route's own onSend, so after every stage's (the answer cache keeps the 200 before it can become a 304) and
 * before HEAD drops the body. Routes added before this plugin is registered are not tagged.
 */
export const conditionalGet = fp<{
  deps: AppDeps;
  ledger: QuotaLedger;
  now: () => Date;
  caches: CacheRegistry;
}>(
  async (app, { deps, ledger, now, caches }) => {
    const corpusTag = corpusTagCache(CORPUS_TAGS_KEPT, caches);
    app.decorateRequest('corpusTag', undefined);
    app.addHook('preHandler', async (request, reply) => {
      const mode = routeConfig(request).etag;
      if ((mode !== 'corpus' && mode !== 'corpus-key') || !isRead(request)) return;
      const { auth } = request;
      const version = await corpusVersionOf(request, deps.store);
      const keyPart =
        mode === 'corpus-key' && auth.state === 'valid'
          ? `${auth.key.id}:${await deps.store.checks.latestCheckId(auth.key.id)}`
          : '';
      const entry = corpusTag(version, keyPart, request.url);
      request.corpusTag = entry;
      reply.header('ETag', entry.tag);
      if (!entry.answered || !matchesIfNoneMatch(request.headers['if-none-match'], entry.tag)) return;
      if (auth.state === 'valid') {
        const month = usageMonth(now());
        if (!(await ledger.wouldAdmit(auth.key.id, auth.plan.perMonth.requests, month)))
          refuseUsedUpMonth(auth.plan, month);
      }
      return reply.code(304).send();
    });
    app.addHook('onRoute', (route) => {
      const own = route.onSend;
      route.onSend = own === undefined ? tagAnswer : [tagAnswer, ...(Array.isArray(own) ? own : [own])];
    });
  },
  { name: 'conditional-get' },
);
