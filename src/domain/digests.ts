/** Receipt digests callers can reproduce: hex SHA-256 of distinct entries, UTF-16 sorted, joined by "\n". */
import { sha256 } from './sha256.ts';

function digestOfLines(lines: Iterable<string>): string {
  const list = [...lines];
  // Lines already distinct and in order (a receipt's sorted pairs) need no set and no second sort.
  const sorted = isStrictlyAscending(list) ? list : [...new Set(list)].sort();
  return sha256(sorted.join('\n'));
}

/** Whether every line is above the one before it, in UTF-16 order (so distinct and sorted). */
function isStrictlyAscending(lines: readonly string[]): boolean {
  for (let i = 1; i < lines.length; i++) if (!(lines[i - 1]! < lines[i]!)) return false;
  return true;
}

/** Digest of the checked identifiers: `kind:normalized` pairs, kind as submitted, lower-cased. */
export function submittedDigest(pairs: Iterable<{ kind: string; normalized: string }>): string {
  return digestOfLines([...pairs].map((p) => `${p.kind.toLowerCase()}:${p.normalized}`));
}

/** Digest of the matched recall ids (the digest of the empty string when nothing matched). */
export function resultDigest(recallIds: Iterable<string>): string {
  return digestOfLines(recallIds);
}
