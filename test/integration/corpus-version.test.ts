/**
 * The corpus version moves only when a corpus-backed body would change: a record, a revision, a record's
 * last_seen_at, a source's served state (freshness, last success, agency). A failed run changes only what
 * /v1/health shows, so every other answer keeps its ETag (and its bytes). On the test engine.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../support/cli.ts';
import { databaseUrl } from '../support/database.ts';
import { draft, json, startService, type TestService } from '../support/service.ts';

const lot = { kind: 'lot' as const, value: 'Lot 4242', normalized: '4242', confidence: 'inferred' as const };
const FIRST_SEEN = '2026-06-17T04:00:00.000Z';

interface Seen {
  status: number;
  etag: string | null;
  body: string;
}

async function get(s: TestService, path: string, key?: string): Promise<Seen> {
  const r = await s.request(path, { key });
  return { status: r.status, etag: r.headers.get('etag'), body: await r.text() };
}

describe('a failed run', () => {
  let s: TestService;
  let key: string;
  let paths: string[];
  before(async () => {
    s = await startService();
    await s.seed([draft('F-1-2024', { identifiers: [lot] }), draft('F-2-2024')], { observedAt: FIRST_SEEN });
    await s.seed([draft('F-1-2024', { title: 'Amended', identifiers: [lot] }), draft('F-2-2024')], {
      observedAt: '2026-06-18T04:00:00.000Z',
    });
    key = await s.key('growth');
    const check = await s.request('/v1/checks', {
      key,
      body: { identifiers: [{ kind: 'lot', value: '4242' }] },
    });
    assert.equal(check.status, 201);
    const checkId = (await json(check)).data.check_id as string;
    paths = [
      '/v1/recalls',
      '/v1/recalls?limit=1&include_total=true',
      '/v1/recalls/us-fda-food.F-1-2024',
      '/v1/recalls/us-fda-food.F-1-2024/revisions',
      '/v1/identifiers/lot/4242',
      '/v1/sources',
      '/v1/checks',
      `/v1/checks/${checkId}`,
    ];
  });
  after(() => s.close());

  test('an ingest whose only source fails offline keeps every ETag and body but /v1/health', async () => {
    const before = new Map<string, Seen>();
    for (const p of paths) before.set(p, await get(s, p, key));
    const unkeyedSources = await get(s, '/v1/sources');
    const health = await get(s, '/v1/health');
    const version = await s.store.corpusVersion();

    const run = await runCli(['ingest', '--source', 'us-fda-food', '--force'], {
      DATABASE_URL: databaseUrl(s.config.database),
      RECALLS_ARCHIVE_DIR: `${s.dir}/archive`,
      RECALLS_SOURCE_US_FDA_FOOD_URL: 'http://127.0.0.1:9', // nothing listens: the agency is offline
      RECALLS_UPSTREAM_RETRIES: '0',
    });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /us-fda-food: failed/);

    assert.equal(await s.store.corpusVersion(), version, 'the corpus version stays');
    for (const p of paths) {
      const was = before.get(p)!;
      const now = await get(s, p, key);
      assert.equal(was.status, 200, p);
      assert.equal(now.status, 200, p);
      assert.equal(now.etag, was.etag, `${p} keeps its ETag`);
      assert.equal(now.body, was.body, `${p} keeps its bytes`);
      const revalidated = await s.request(p, { key, headers: { 'if-none-match': was.etag! } });
      assert.equal(revalidated.status, 304, `${p} revalidates`);
    }
    assert.equal((await get(s, '/v1/sources')).etag, unkeyedSources.etag, '/v1/sources without a key too');

    // What did change is the source's health: its failure is shown, so that body (and its tag) moves.
    const now = await get(s, '/v1/health');
    assert.notEqual(now.etag, health.etag);
    const fda = (
      JSON.parse(now.body) as { sources: { id: string; consecutive_failures: number }[] }
    ).sources.find((x) => x.id === 'us-fda-food');
    assert.equal(fda?.consecutive_failures, 1);
    assert.ok((JSON.parse(now.body) as { degraded: string[] }).degraded.includes('us-fda-food'));
  });
});

describe('runs that change something, or nothing', () => {
  let s: TestService;
  let key: string;
  before(async () => {
    s = await startService();
    key = await s.key('growth');
  });
  after(() => s.close());

  const observe = (drafts: ReturnType<typeof draft>[], observedAt: string, dataAsOf = '2026-06-17') =>
    s.store.ingest.apply({ sourceId: 'us-fda-food', jurisdiction: 'US', drafts, dataAsOf, observedAt });

  test('the same observation again keeps the version; one record amended moves it', async () => {
    const drafts = [draft('F-1-2024'), draft('F-2-2024')];
    assert.equal((await observe(drafts, FIRST_SEEN)).moved, true, 'new records');
    const version = await s.store.corpusVersion();
    const recall = await get(s, '/v1/recalls/us-fda-food.F-2-2024', key);
    const sources = await get(s, '/v1/sources', key);

    const again = await observe(drafts, FIRST_SEEN);
    assert.deepEqual(again, { inserted: 0, amended: 0, unchanged: 2, moved: false });
    assert.equal(await s.store.corpusVersion(), version);
    assert.equal((await get(s, '/v1/recalls/us-fda-food.F-2-2024', key)).etag, recall.etag);
    assert.equal((await get(s, '/v1/sources', key)).etag, sources.etag);

    const amended = await observe([draft('F-1-2024', { title: 'Amended' }), draft('F-2-2024')], FIRST_SEEN);
    assert.deepEqual(amended, { inserted: 0, amended: 1, unchanged: 1, moved: true });
    assert.equal(await s.store.corpusVersion(), version + 1);
    const one = await get(s, '/v1/recalls/us-fda-food.F-1-2024', key);
    assert.equal(JSON.parse(one.body).data.title, 'Amended');
  });

  test('a later run that only sees the records again moves it: last_seen_at and last_success_at are served', async () => {
    const version = await s.store.corpusVersion();
    const later = '2026-06-19T04:00:00.000Z';
    const result = await observe([draft('F-1-2024', { title: 'Amended' }), draft('F-2-2024')], later);
    assert.deepEqual(result, { inserted: 0, amended: 0, unchanged: 2, moved: true });
    assert.equal(await s.store.corpusVersion(), version + 1);
    const recall = JSON.parse((await get(s, '/v1/recalls/us-fda-food.F-2-2024', key)).body);
    assert.equal(recall.data.last_seen_at, later);
    const sources = JSON.parse((await get(s, '/v1/sources', key)).body);
    assert.equal(sources.data.find((x: { id: string }) => x.id === 'us-fda-food').last_success_at, later);
  });

  test('a new freshness stamp alone moves it (meta.data_as_of serves it)', async () => {
    const version = await s.store.corpusVersion();
    const last = '2026-06-19T04:00:00.000Z';
    const drafts = [draft('F-1-2024', { title: 'Amended' }), draft('F-2-2024')];
    assert.equal((await observe(drafts, last)).moved, false, 'nothing new');
    assert.equal((await observe(drafts, last, '2026-06-18')).moved, true);
    assert.equal(await s.store.corpusVersion(), version + 1);
    assert.equal(JSON.parse((await get(s, '/v1/recalls', key)).body).meta.data_as_of, '2026-06-18');
  });

  test('registering the sources moves it only when an agency or jurisdiction that recalls show changes', async () => {
    const version = await s.store.corpusVersion();
    const fda = {
      id: 'us-fda-food',
      agency: 'U.S. Food and Drug Administration (openFDA)',
      jurisdiction: 'US',
    };
    const shown = JSON.parse((await get(s, '/v1/recalls/us-fda-food.F-2-2024', key)).body).data.source.agency;
    await s.store.sources.register([{ ...fda, agency: shown }]);
    assert.equal(await s.store.corpusVersion(), version, 'the same names');
    await s.store.sources.register([{ ...fda, agency: 'Renamed agency' }]);
    assert.equal(await s.store.corpusVersion(), version + 1, 'the agency alone changed');
    const recall = JSON.parse((await get(s, '/v1/recalls/us-fda-food.F-2-2024', key)).body);
    assert.equal(recall.data.source.agency, 'Renamed agency');
    const sources = await get(s, '/v1/sources', key);
    await s.store.sources.register([{ ...fda, agency: 'Renamed agency', jurisdiction: 'CA' }]);
    assert.equal(await s.store.corpusVersion(), version + 2, 'the jurisdiction alone changed');
    assert.notEqual((await get(s, '/v1/sources', key)).etag, sources.etag);
  });
});
