/**
 * Weak ETags. Corpus-backed responses take theirs from the corpus version (and, for a key's own
 * receipts, its newest receipt), so an unchanged request is answered 304 before any query runs;
 * the rest hash their body.
 */
import { createHash } from 'node:crypto';

export function weakTag(...parts: (string | number)[]): string {
  return `W/"${createHash('sha1').update(parts.join('\u0000')).digest('base64url').slice(0, 22)}"`;
}

/** Whether an If-None-Match header names this tag (weak comparison, lists and `*` allowed). */
export function matchesIfNoneMatch(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const bare = (t: string) => t.trim().replace(/^W\//, '');
  const wanted = bare(tag);
  return header.split(',').some((t) => t.trim() === '*' || bare(t) === wanted);
}
