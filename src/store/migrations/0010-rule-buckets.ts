/**
 * An index of the match rules' buckets alone (match-rules.ts): a partial index of the identifiers whose
 * `match_key` is a rule's bucket (`model*…`, `model..…`, `lot*…`, `lot..…`; an exact value's key is
 * `<family>:…`). A node reads the buckets that exist once per corpus version from it, so that a catalogue
 * check probes only those (identifiers-store.ts `ruleBuckets`).
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../engine.ts';

/** The identifiers that are match rules, by their bucket key: the index's condition and its query's. */
export const RULE_BUCKET_CONDITION =
  "match_key LIKE 'model*%' OR match_key LIKE 'model..%' OR match_key LIKE 'lot*%' OR match_key LIKE 'lot..%'";

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  // On SQLite an index is created in its table's schema: the corpus file's, once the tables moved there.
  let name = 'identifiers_rule_buckets';
  if (engine.name === 'sqlite') {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*) AS n FROM main.sqlite_master WHERE type = 'table' AND name = 'identifiers'`.execute(db);
    if (Number(rows[0]!.n) === 0) name = `corpus.${name}`;
  }
  await sql.raw(`CREATE INDEX ${name} ON identifiers (match_key) WHERE ${RULE_BUCKET_CONDITION}`).execute(db);
}
