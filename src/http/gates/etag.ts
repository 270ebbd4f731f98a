/**
 * Weak ETags. Corpus-backed responses take theirs from the corpus version (and, for a key's own
 * receipts, its newest receipt), so an unchanged request is answered 304 before any query runs;
 * the rest hash their body.
 */
import { createHash } from 'node:crypto';

export function weakTag(...parts: (string | number)[]): string {
  return `W/"${createHash('sha1').update(parts.join('\u0000')).digest('base64url').slice(0, 22)}"`;
}

/**
 * `weakTag` for the corpus-backed responses, remembered per (version, key part, URL): the same
 * request at the same version is answered without hashing again.
 */
export function corpusTagCache(): (version: number, keyPart: string, url: string) => string {
  let cache = new Map<string, string>();
  return (version, keyPart, url) => {
    const k = `${version}\u0000${keyPart}\u0000${url}`;
    let tag = cache.get(k);
    if (tag === undefined) {
      if (cache.size >= 20_000) cache = new Map();
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
