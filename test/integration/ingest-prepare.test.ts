/**
 * A large source's records are prepared on a worker thread while the store writes earlier pages.
 * Through the real pipeline (`--from` a mirror of project-written openFDA pages) into real databases,
 * the same run prepared inline and on the worker leaves the same rows, byte for byte; a record that
 * comes twice is written once, as its last draft; a page the agency got wrong, a drifted feed and a
 * stopped thread change nothing.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { RecallDraft } from '../../src/domain/recall.ts';
import { recallId } from '../../src/domain/recall.ts';
import { createArchive, readMirror } from '../../src/ingest/archive.ts';
import { UpstreamError } from '../../src/ingest/errors.ts';
import { createUpstreamClient } from '../../src/ingest/http-client.ts';
import { createWorkerPreparer } from '../../src/ingest/page-preparer.ts';
import { runIngest, type IngestResult, type SourceOutcome } from '../../src/ingest/pipeline.ts';
import { PREPARED_PART, preparePageInParts, type PreparedPage } from '../../src/ingest/prepare.ts';
import { SOURCE_ADAPTERS } from '../../src/ingest/registry.ts';
import { usFdaFood } from '../../src/ingest/sources/us-fda-food/index.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import type { Engine } from '../../src/store/engine.ts';
import { prepareRecall } from '../../src/store/recall-rows.ts';
import { TEST_ENGINE, createTestDatabase, openRawEngine, type TestDatabase } from '../support/database.ts';
import { fdaPage, fdaRecord } from '../support/fda-records.ts';
import { draft } from '../support/service.ts';

const SOURCE = 'us-fda-food';

/** Writes a mirror of openFDA food pages, one file per page, and returns its folder. */
function mirror(root: string, name: string, pages: Record<string, unknown>[][]): string {
  const dir = join(root, name);
  mkdirSync(join(dir, SOURCE), { recursive: true });
  pages.forEach((records, i) =>
    writeFileSync(join(dir, SOURCE, `page-${String(i + 1).padStart(4, '0')}.json`), fdaPage(records)),
  );
  return dir;
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);

/** One side of the comparison: a database and its store, written inline or on the worker thread. */
interface Side {
  db: TestDatabase;
  store: Store;
  raw: Engine;
  archive: string;
}

/** Everything a run writes that a served body or a later run reads, as one text. */
async function snapshot(raw: Engine): Promise<string> {
  const recalls = await raw.db.selectFrom('recalls').selectAll().orderBy('id').execute();
  const identifiers = await raw.db
    .selectFrom('identifiers')
    .selectAll()
    .orderBy('recall_id')
    .orderBy('match_key')
    .orderBy('value')
    .execute();
  const revisions = await raw.db
    .selectFrom('revisions')
    .selectAll()
    .orderBy('recall_id')
    .orderBy('revision')
    .execute();
  const sources = await raw.db
    .selectFrom('sources')
    .select(['id', 'data_as_of', 'last_success_at', 'last_error', 'consecutive_failures', 'set_aside'])
    .orderBy('id')
    .execute();
  const setAside = await raw.db.selectFrom('set_aside_records').selectAll().orderBy('position').execute();
  const corpus = await raw.db.selectFrom('corpus_state').select(['version', 'updated_at']).execute();
  return JSON.stringify({ recalls, identifiers, revisions, sources, setAside, corpus });
}

describe('records prepared on a worker thread', () => {
  let root: string;
  let inline: Side;
  let worker: Side;
  let oracle: Side;

  async function side(name: string): Promise<Side> {
    const dir = join(root, name);
    mkdirSync(dir);
    const db = await createTestDatabase(dir);
    return {
      db,
      store: await openStore(db.database),
      raw: openRawEngine(db.database),
      archive: join(dir, 'archive'),
    };
  }

  /** Runs the pipeline over a mirror at a fixed clock; `from` 0 prepares every source on the thread. */
  function ingest(s: Side, dir: string, prepareInWorkerFrom: number, at: string): Promise<IngestResult> {
    return runIngest(
      {
        store: s.store,
        adapters: SOURCE_ADAPTERS,
        archive: createArchive(s.archive),
        client: createUpstreamClient(),
        sourceUrls: {},
        now: () => new Date(at),
      },
      { from: dir, sourceIds: [SOURCE], prepareInWorkerFrom },
    );
  }

  /**
   * What the run must leave: the mirror's drafts parsed here, each record's last draft kept in its first
   * place, given to the store at once, as if the agency had listed each record once.
   */
  async function lastDrafts(dir: string, at: string): Promise<void> {
    const parsed = (await readMirror(dir, SOURCE, (n) => usFdaFood.acceptsFile(n))).map((p) =>
      usFdaFood.parse(p),
    );
    const last = new Map<string, RecallDraft>();
    for (const page of parsed) for (const d of page.drafts) last.set(recallId(SOURCE, d.recordId), d);
    await oracle.store.ingest.apply({
      sourceId: SOURCE,
      jurisdiction: usFdaFood.meta.jurisdiction,
      drafts: [...last.values()],
      dataAsOf: parsed[0]!.dataAsOf,
      observedAt: at,
      setAside: parsed.flatMap((p) => p.setAside),
    });
  }

  /**
   * The same run prepared inline and on the worker thread; both must leave the same rows, and a run that
   * completes the rows of {@link lastDrafts}. Returns the worker side's outcome.
   */
  async function both(dir: string, at: string): Promise<SourceOutcome> {
    const a = await ingest(inline, dir, Number.POSITIVE_INFINITY, at);
    const b = await ingest(worker, dir, 0, at);
    assert.equal(a.status, 'completed');
    assert.equal(b.status, 'completed');
    assert.deepEqual(b, a);
    const [expected, actual] = await Promise.all([snapshot(inline.raw), snapshot(worker.raw)]);
    assert.equal(actual, expected, 'the worker thread wrote other rows than the inline run');
    const outcome = (b as Extract<IngestResult, { status: 'completed' }>).sources[0]!;
    if (outcome.status === 'ok') {
      await lastDrafts(dir, at);
      assert.equal(actual, await snapshot(oracle.raw), 'the run wrote other rows than its last drafts');
    }
    return outcome;
  }

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'recalls-prepare-'));
    inline = await side('inline');
    worker = await side('worker');
    oracle = await side('oracle');
    await oracle.store.sources.register(
      SOURCE_ADAPTERS.map((a) => ({
        id: a.meta.id,
        agency: a.meta.agency,
        jurisdiction: a.meta.jurisdiction,
      })),
    );
  });

  after(async () => {
    for (const s of [inline, worker, oracle]) {
      await s.raw.close();
      await s.store.close();
      await s.db.drop();
    }
    rmSync(root, { recursive: true, force: true });
  });

  test('a first build writes the same rows, the last draft of a repeated record winning', async () => {
    const pages = [
      range(0, 40).map((i) => fdaRecord(i)),
      [...range(40, 80).map((i) => fdaRecord(i)), fdaRecord(80, { recall_number: 80 })],
      [
        ...range(80, 120).map((i) => fdaRecord(i)),
        fdaRecord(5, { product_description: 'TEST DATA repeated later' }),
        // Listed again as it was: written once.
        fdaRecord(7),
      ],
    ];
    const outcome = await both(mirror(root, 'first', pages), '2026-06-10T04:00:00.000Z');
    assert.equal(outcome.status, 'ok');
    assert.equal(outcome.records, 122);
    assert.equal(outcome.inserted, 120);
    assert.equal(outcome.setAside, 1);
    const five = await worker.raw.db
      .selectFrom('recalls')
      .select(['content', 'revision'])
      .where('record_id', '=', String(fdaRecord(5)['recall_number']))
      .executeTakeFirstOrThrow();
    assert.match(five.content, /repeated later/);
    assert.equal(five.revision, 1);
  });

  test('a later run amends, keeps and repeats records the same way on both sides', async () => {
    const changed = (i: number, text: string) => fdaRecord(i, { reason_for_recall: text });
    const pages = [
      [...range(0, 40).map((i) => (i % 10 === 0 ? changed(i, 'Amended: undeclared egg.') : fdaRecord(i)))],
      range(40, 120).map((i) => fdaRecord(i)),
      // Amended, then amended again later in the run: one revision, from the stored draft to the last.
      [changed(41, 'First word of the day.'), changed(41, 'Last word of the day.')],
      // Repeated unchanged after an amendment: it ends as it was stored, with no revision.
      [changed(42, 'Not the last word.'), fdaRecord(42)],
      // Listed unchanged above, amended here: one revision.
      [changed(43, 'A later word on it.')],
    ];
    const outcome = await both(mirror(root, 'second', pages), '2026-06-11T04:00:00.000Z');
    assert.equal(outcome.status, 'ok');
    // Amended: 0, 10, 20, 30, 41, 43, and 5, whose stored draft was the first run's later one.
    assert.deepEqual([outcome.inserted, outcome.amended, outcome.unchanged], [0, 7, 113]);
    const revisions = await worker.raw.db
      .selectFrom('revisions')
      .select(['recall_id', 'changed_fields'])
      .orderBy('recall_id')
      .execute();
    assert.equal(revisions.length, 7);
    const r41 = revisions.find((r) => r.recall_id.endsWith(String(fdaRecord(41)['recall_number'])));
    assert.ok(r41 !== undefined, 'record 41 has its revision');
    assert.match(r41.changed_fields, /Last word of the day/);
    assert.doesNotMatch(r41.changed_fields, /First word of the day/);
    assert.ok(!revisions.some((r) => r.recall_id.endsWith(String(fdaRecord(42)['recall_number']))));
  });

  test('a drifted feed and a page that is not JSON change nothing, on the thread as inline', async () => {
    const before = await snapshot(worker.raw);
    const drifted = [range(0, 10).map((i) => fdaRecord(i, i < 3 ? { recall_number: i } : {}))];
    const outcome = await both(mirror(root, 'drifted', drifted), '2026-06-12T04:00:00.000Z');
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.defect, false);
    assert.match(outcome.reason ?? '', /drifted: 3 of 10 records could not be read/);

    const broken = mirror(root, 'broken', [range(0, 10).map((i) => fdaRecord(i))]);
    writeFileSync(join(broken, SOURCE, 'page-0002.json'), '{"meta": {}, "results": [');
    const failed = await both(broken, '2026-06-13T04:00:00.000Z');
    assert.equal(failed.status, 'failed');
    assert.equal(failed.defect, false, 'an agency page that does not parse is its failure, not our defect');

    const after = JSON.parse(await snapshot(worker.raw)) as Record<string, unknown>;
    const was = JSON.parse(before) as Record<string, unknown>;
    for (const table of ['recalls', 'identifiers', 'revisions', 'setAside', 'corpus'])
      assert.deepEqual(after[table], was[table], `${table} changed after a failed run`);
  });
});

describe('the page preparation thread', () => {
  const page = { name: 'page-0001.json', body: Buffer.from(fdaPage(range(0, 50).map((i) => fdaRecord(i)))) };

  test('prepares the rows that the calling thread prepares', async () => {
    const preparer = createWorkerPreparer();
    try {
      assert.deepEqual(await preparer.prepare(usFdaFood, page), preparePageInParts(usFdaFood, page));
    } finally {
      await preparer.close();
    }
  });

  /** A page's rows, its parts joined. */
  async function allRows(prepared: PreparedPage) {
    const parts = [prepared.records.length];
    const rows = [...prepared.records];
    for await (const part of prepared.more ?? []) {
      parts.push(part.length);
      rows.push(...part);
    }
    return { parts, rows };
  }

  test('a large page comes in parts, the same rows on either thread; a consumer that stops early cancels the rest', async () => {
    const big = {
      name: 'page-0002.json',
      body: Buffer.from(fdaPage(range(0, 2 * PREPARED_PART + 500).map((i) => fdaRecord(i)))),
    };
    const preparer = createWorkerPreparer();
    try {
      const inWorker = await allRows(await preparer.prepare(usFdaFood, big));
      const inline = await allRows(preparePageInParts(usFdaFood, big));
      assert.deepEqual(inWorker.parts, [PREPARED_PART, PREPARED_PART, 500]);
      assert.deepEqual(inWorker, inline);
      // Stop after the first further part: the thread drops the page and prepares the next one.
      const stopped = await preparer.prepare(usFdaFood, big);
      for await (const part of stopped.more!) {
        assert.equal(part.length, PREPARED_PART);
        break;
      }
      assert.equal((await preparer.prepare(usFdaFood, page)).records.length, 50);
    } finally {
      await preparer.close();
    }
  });

  test("refuses an agency's bad page as the agency's failure, and goes on", async () => {
    const preparer = createWorkerPreparer();
    try {
      const bad = preparer.prepare(usFdaFood, { name: 'page-0002.json', body: Buffer.from('[not json') });
      await assert.rejects(bad, (e: unknown) => e instanceof UpstreamError && e.failure === 'format');
      assert.equal((await preparer.prepare(usFdaFood, page)).records.length, 50);
    } finally {
      await preparer.close();
    }
  });

  test('refuses the pages it holds when stopped, and knows only the registered adapters', async () => {
    const preparer = createWorkerPreparer();
    const held = assert.rejects(preparer.prepare(usFdaFood, page), /the page preparation thread was stopped/);
    await preparer.close();
    await held;
    assert.equal(preparer.accepts(usFdaFood), true);
    assert.equal(preparer.accepts({ ...usFdaFood }), false);
  });
});

describe('a source written while another connection writes', () => {
  test('holds the write lock from its start: a commit elsewhere while pages are prepared fails nothing', async () => {
    const root = mkdtempSync(join(tmpdir(), 'recalls-prepare-lock-'));
    const db = await createTestDatabase(root);
    const store = await openStore(db.database);
    const other = openRawEngine(db.database);
    try {
      await store.sources.register([{ id: SOURCE, agency: 'FDA', jurisdiction: 'US' }]);
      const origin = { sourceId: SOURCE, jurisdiction: 'US' };
      let otherWrote: boolean | undefined;
      async function* batches() {
        // While the first page is still being prepared, another connection (an API node recording a
        // receipt or its quota) commits. Given a moment only, not the 30 s busy timeout.
        try {
          if (TEST_ENGINE === 'sqlite') await sql`PRAGMA busy_timeout = 50`.execute(other.db);
          await other.db
            .updateTable('corpus_state')
            .set({ updated_at: '2026-06-09T00:00:00.000Z' })
            .execute();
          otherWrote = true;
        } catch (error) {
          assert.match(String(error), /SQLITE_BUSY|database is locked/);
          otherWrote = false;
        }
        yield [prepareRecall(origin, draft('F-0001-2026'))];
      }
      const result = await store.ingest.applyStream(
        { ...origin, observedAt: '2026-06-10T04:00:00.000Z' },
        batches(),
        () => ({ dataAsOf: '2026-06-10', setAside: [] }),
      );
      assert.equal(result.inserted, 1);
      // SQLite: the other writer waited on the source's transaction; PostgreSQL: its row was not locked.
      assert.equal(otherWrote, TEST_ENGINE === 'postgres');
    } finally {
      await other.close();
      await store.close();
      await db.drop();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
