/**
 * Ingest throughput through the real pipeline (`runIngest --from` an openFDA-format mirror):
 * a full build into an empty database, then a no-change re-ingest, which must write no row but
 * `last_seen_at`. Run by bench/run.ts in a child process; prints one JSON line.
 *
 *   node --import tsx bench/ingest.ts --database URL --from DIR
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { parseDatabaseUrl } from '../src/config.ts';
import { canonicalContent, contentHashOfJson } from '../src/domain/diff.ts';
import type { RecallDraft } from '../src/domain/recall.ts';
import { createArchive, readMirror } from '../src/ingest/archive.ts';
import { createUpstreamClient } from '../src/ingest/http-client.ts';
import { runIngest, type IngestDeps } from '../src/ingest/pipeline.ts';
import { SOURCE_ADAPTERS } from '../src/ingest/registry.ts';
import { openStore } from '../src/store/database.ts';
import { openRawEngine } from './lib/raw-engine.ts';

const { values } = parseArgs({ options: { database: { type: 'string' }, from: { type: 'string' } } });
const database = parseDatabaseUrl(values.database);
const store = await openStore(database);
const raw = openRawEngine(database);
const archiveDir = mkdtempSync(join(tmpdir(), 'recalls-bench-archive-'));
const deps: IngestDeps = {
  store,
  adapters: SOURCE_ADAPTERS,
  archive: createArchive(archiveDir),
  client: createUpstreamClient({ timeoutMs: 60_000, retries: 0, maxBytes: 1 << 30 }),
  sourceUrls: {},
};

/** A digest of everything stored for the corpus except `last_seen_at`, and the changed-row counters. */
async function snapshot() {
  const hash = createHash('sha256');
  const recalls = await raw.db
    .selectFrom('recalls')
    .select(['id', 'content_hash', 'content', 'revision', 'first_seen_at', 'sort_date'])
    .orderBy('id')
    .execute();
  for (const r of recalls)
    hash.update(`${r.id}|${r.content_hash}|${r.revision}|${r.first_seen_at}|${r.sort_date}\n`);
  const identifiers = await raw.db
    .selectFrom('identifiers')
    .select(['recall_id', 'match_key', 'value'])
    .orderBy('recall_id')
    .orderBy('match_key')
    .orderBy('value')
    .execute();
  for (const i of identifiers) hash.update(`${i.recall_id}|${i.match_key}|${i.value}\n`);
  const revisions = await raw.db
    .selectFrom('revisions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const seen = await raw.db
    .selectFrom('recalls')
    .select((eb) => [eb.fn.min('last_seen_at').as('min'), eb.fn.max('last_seen_at').as('max')])
    .executeTakeFirstOrThrow();
  return {
    digest: hash.digest('hex'),
    recalls: recalls.length,
    identifiers: identifiers.length,
    revisions: Number(revisions.n),
    lastSeen: seen,
  };
}

/** Rows written by the store's connection, per table where the engine can say. */
async function writes(): Promise<Record<string, number>> {
  if (raw.name === 'postgres') {
    await new Promise((r) => setTimeout(r, 1200)); // statistics reach other sessions within ~1 s
    const rows = await sql<{ relname: string; n: string }>`
      SELECT relname, (n_tup_ins + n_tup_upd + n_tup_del)::text AS n FROM pg_stat_user_tables`.execute(
      raw.db,
    );
    return Object.fromEntries(rows.rows.map((r) => [r.relname, Number(r.n)]));
  }
  return {};
}

function rss(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : process.memoryUsage().rss;
}

async function timed(label: string) {
  const before = await writes();
  const t0 = process.hrtime.bigint();
  const result = await runIngest(deps, { from: values.from!, sourceIds: ['us-fda-food'], force: true });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (result.status !== 'completed') throw new Error(`${label}: ingest locked`);
  const outcome = result.sources[0]!;
  if (outcome.status !== 'ok') throw new Error(`${label}: ${outcome.status} ${outcome.reason}`);
  const after = await writes();
  const written = Object.fromEntries(
    Object.keys(after)
      .map((t) => [t, after[t]! - (before[t] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
  return { seconds, records: outcome.records!, rate: outcome.records! / seconds, outcome, written };
}

/** The adapter's share alone: parse + normalise + extract every page, then canonical content and hash. */
async function parseOnly() {
  const adapter = SOURCE_ADAPTERS.find((a) => a.meta.id === 'us-fda-food')!;
  const pages = await readMirror(values.from!, 'us-fda-food', (n) => adapter.acceptsFile(n));
  let t0 = process.hrtime.bigint();
  const drafts: RecallDraft[] = [];
  for (const page of pages) drafts.push(...adapter.parse(page).drafts);
  const parseSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  t0 = process.hrtime.bigint();
  for (const d of drafts) contentHashOfJson(JSON.stringify(canonicalContent(d)));
  const hashSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return { parseRate: drafts.length / parseSeconds, hashRate: drafts.length / hashSeconds };
}

const parts = await parseOnly();
const full = await timed('full build');
const afterFull = await snapshot();
const again = await timed('no-change re-ingest');
const afterAgain = await snapshot();
const noChangeHolds =
  afterFull.digest === afterAgain.digest &&
  afterAgain.lastSeen.min === afterAgain.lastSeen.max &&
  afterAgain.lastSeen.min !== afterFull.lastSeen.max &&
  again.outcome.inserted === 0 &&
  again.outcome.amended === 0;
process.stdout.write(
  `${JSON.stringify({
    engine: raw.name,
    full: {
      seconds: full.seconds,
      records: full.records,
      rate: full.rate,
      inserted: full.outcome.inserted,
      written: full.written,
    },
    noChange: {
      seconds: again.seconds,
      records: again.records,
      rate: again.rate,
      unchanged: again.outcome.unchanged,
      written: again.written,
      contentUnchanged: afterFull.digest === afterAgain.digest,
      everyLastSeenMoved: afterAgain.lastSeen.min === afterAgain.lastSeen.max,
      holds: noChangeHolds,
    },
    parts,
    corpus: {
      recalls: afterAgain.recalls,
      identifiers: afterAgain.identifiers,
      revisions: afterAgain.revisions,
    },
    peakRssBytes: rss(),
  })}\n`,
);
await store.close();
await raw.close();
rmSync(archiveDir, { recursive: true, force: true });
