/**
 * Weak ETags. Corpus-backed responses take theirs from the corpus version (and, for a key's own
 * receipts, its newest receipt), so an unchanged request is answered 304 at the quota gate
 * before any query runs; the rest hash their body here, once answered.
 */
import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import { LRUCache } from 'lru-cache';

function weakTag(...parts: (string | number)[]): string {
  return `W/"${createHash('sha1').update(parts.join('\u0000')).digest('base64url').slice(0, 22)}"`;
}

/**
 * `weakTag` for the corpus-backed responses, remembered for the last 20,000 (version, key part,
 * URL): the same request at the same version is answered without hashing again.
 */
export function corpusTagCache(): (version: number, keyPart: string, url: string) => string {
  const cache = new LRUCache<string, string>({ max: 20_000 });
  return (version, keyPart, url) => {
    const k = `${version}\u0000${keyPart}\u0000${url}`;
    let tag = cache.get(k);
    if (tag === undefined) {
      tag = weakTag(version, keyPart, url);
      cache.set(k, tag);
    }
    return tag;
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

/** Tags every other 200 GET answer (health, the OpenAPI document) by its body, and answers 304 on a match. */
export const bodyTags = fp(
  async (app) => {
    app.addHook('onSend', (request, reply, payload, done) => {
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
  },
  { name: 'body-tags' },
);
