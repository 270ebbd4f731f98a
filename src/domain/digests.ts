/** Receipt digests callers can reproduce: hex SHA-256 of distinct entries, UTF-16 sorted, joined by "\n". */
import { sha256 } from './sha256.ts';

function digestOfLines(lines: Iterable<string>): string {
  const sorted = [...new Set(lines)].sort();
  return sha256(sorted.join('\n'));
}

/** Digest of the checked identifiers: `kind:normalized` pairs, kind as submitted, lower-cased. */
export function submittedDigest(pairs: Iterable<{ kind: string; normalized: string }>): string {
  return digestOfLines([...pairs].map((p) => `${p.kind.toLowerCase()}:${p.normalized}`));
}

/** Digest of the matched recall ids (the digest of the empty string when nothing matched). */
export function resultDigest(recallIds: Iterable<string>): string {
  return digestOfLines(recallIds);
}
