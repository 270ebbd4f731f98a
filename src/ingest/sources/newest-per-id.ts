/**
 * One record per id, in the order ids are first served: a later record with the same id replaces the one kept
 * only when `supersedes(later, kept)`; on a tie the first served stays. Feeds that serve a notice more than once
 * (versions, languages, updates) read through it.
 */
export function newestPerId<T>(
  records: readonly T[],
  idOf: (record: T) => string,
  supersedes: (later: T, kept: T) => boolean,
): T[] {
  const chosen = new Map<string, T>();
  for (const record of records) {
    const id = idOf(record);
    const kept = chosen.get(id);
    if (kept === undefined || supersedes(record, kept)) chosen.set(id, record);
  }
  return [...chosen.values()];
}
