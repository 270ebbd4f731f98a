/**
 * Weak ETags and conditional answers: corpus-backed tags come from the corpus version (and a key's newest
 * receipt), set at the quota gate; the rest hash their body here. A 304 only ever stands for a 200: the
 * handler's, or at the quota gate one already answered at this version (`CorpusTag.answered`).
 */
import fp from 'fastify-plugin';
import { CacheRegistry, VersionedCache } from '../../domain/caches.ts';
import { sha256 } from '../../domain/sha256.ts';
import { keyRule, type CorpusTag } from '../context.ts';

/** A weak tag from the SHA-256 of its parts (22 base64url characters, 132 bits). */
function weakTag(...parts: (string | number)[]): string {
  return `W/"${sha256(parts.join('\u0000'), 'base64url').slice(0, 22)}"`;
}

/** Corpus tags a node keeps: those of the newest version it has served, at most this many. */
export const CORPUS_TAGS_KEPT = 20_000;

/**
 * `weakTag` of corpus-backed responses, remembered for the newest version asked for: at most `max` (key part,
 * URL) pairs in two generations of `max / 2` (caches.ts). A tag is kept while it is used within the last
 * `max / 2` new pairs. A tag asked for at an older version (a request that read the version before an ingest
 * committed) is made again and not kept, so it is never `answered` early.
 */
export function corpusTagCache(
  max = CORPUS_TAGS_KEPT,
  caches = new CacheRegistry(),
): (version: number, keyPart: string, url: string) => CorpusTag {
  const tags = caches.add(
    new VersionedCache<string, CorpusTag>('corpus-tags', { max, eviction: 'generations' }),
  );
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

/** Tags other 200s to GET/HEAD by body, answers 304 when the request names it, marks keyed ones private. */
export const conditionalAnswers = fp(
  async (app) => {
    app.addHook('onSend', (request, reply, payload, done) => {
      const keyed = keyRule(request) !== undefined;
      if (reply.statusCode === 200 && (request.method === 'GET' || request.method === 'HEAD')) {
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
      if (keyed) {
        reply.header('Vary', VARY);
        reply.header('Cache-Control', reply.hasHeader('ETag') ? 'private, no-cache' : 'private');
      }
      done(null, payload);
    });
  },
  { name: 'conditional-answers' },
);
