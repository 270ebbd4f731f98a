import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createArchive, readMirror, type FetchState } from '../../../src/ingest/archive.ts';
import { createConditionalFetcher } from '../../../src/ingest/conditional-fetcher.ts';
import { createUpstreamClient } from '../../../src/ingest/http-client.ts';
import { scriptedAgency } from '../../support/scripted-agency.ts';

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'recalls-archive-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('write: stores the page as served under <root>/<source>/<run>/<name>, atomically', async (t) => {
  const root = await tempDir(t);
  const archive = createArchive(root);
  const run = archive.startRun('us-cpsc', '20240501T060000Z');
  assert.equal(run.path, join(root, 'us-cpsc', '20240501T060000Z'));
  const body = Buffer.from([0x7b, 0x7d, 0x00, 0xff]); // bytes, not text
  const path = await run.write({ name: 'page-0001.json', body, url: 'https://example.org/x' });
  assert.equal(path, join(run.path, 'page-0001.json'));
  assert.deepEqual(await readFile(path), body);
  await run.write({ name: 'page-0002.json', body: Buffer.from('[]') });
  // no temporary file is left behind
  assert.deepEqual((await readdir(run.path)).sort(), ['page-0001.json', 'page-0002.json']);
  assert.equal(run.ref('page-0001.json'), '20240501T060000Z/page-0001.json');
  assert.deepEqual(await run.readArchived('20240501T060000Z/page-0001.json'), body);
  assert.equal(await run.readArchived('20240401T060000Z/page-0001.json'), undefined);
});

test('write: replaces an existing file whole (rename), never appends or leaves a mix', async (t) => {
  const root = await tempDir(t);
  const archive = createArchive(root);
  const dir = join(root, 'uk-fsa', 'r1');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'page.json'), 'a much longer older content that must disappear');
  await archive.startRun('uk-fsa', 'r1').write({ name: 'page.json', body: Buffer.from('new') });
  assert.equal(await readFile(join(dir, 'page.json'), 'utf8'), 'new');
});

test('write: a page name twice in one run, or an unsafe name, is refused', async (t) => {
  const archive = createArchive(await tempDir(t));
  const run = archive.startRun('us-cpsc', 'r1');
  await run.write({ name: 'p.json', body: Buffer.from('1') });
  await assert.rejects(run.write({ name: 'p.json', body: Buffer.from('2') }), /twice/);
  for (const name of ['../escape.json', 'a/b.json', '..', '', 'fetch-state.json']) {
    await assert.rejects(run.write({ name, body: Buffer.from('x') }), Error, name);
  }
  assert.throws(() => archive.startRun('../x', 'r1'));
  assert.throws(() => archive.startRun('us-cpsc', 'r/1'));
});

test('fetch state: round trip; missing or unreadable state is empty', async (t) => {
  const root = await tempDir(t);
  const archive = createArchive(root);
  assert.deepEqual(await archive.loadFetchState('us-fda-food'), {});
  const state: FetchState = {
    'https://api.example.org/a?page=1': {
      etag: 'W/"abc"',
      lastModified: 'Wed, 01 May 2024 06:00:00 GMT',
      file: 'r1/page-0001.json',
    },
    'https://api.example.org/b': { lastModified: 'Thu, 02 May 2024 06:00:00 GMT', file: 'r2/b.xml' },
  };
  await archive.saveFetchState('us-fda-food', state);
  assert.deepEqual({ ...(await archive.loadFetchState('us-fda-food')) }, state);
  const files = await readdir(join(root, 'us-fda-food'));
  assert.deepEqual(files, ['fetch-state.json'], 'written atomically, no temp file left');

  await writeFile(join(root, 'us-fda-food', 'fetch-state.json'), '{"version":1,"entries":{"x":{"fi');
  assert.deepEqual(await archive.loadFetchState('us-fda-food'), {});
  await writeFile(
    join(root, 'us-fda-food', 'fetch-state.json'),
    JSON.stringify({
      version: 1,
      entries: { good: { etag: '"1"', file: 'r1/a' }, bad: { etag: '"2"', file: '../../etc/passwd' } },
    }),
  );
  assert.deepEqual(
    { ...(await archive.loadFetchState('us-fda-food')) },
    { good: { etag: '"1"', file: 'r1/a' } },
  );
});

test('prune: keeps the newest runs and any run the fetch state points to', async (t) => {
  const root = await tempDir(t);
  const archive = createArchive(root);
  for (const run of ['r1', 'r2', 'r3', 'r4', 'r5']) {
    await archive.startRun('ca-hc', run).write({ name: 'p.json', body: Buffer.from(run) });
  }
  await archive.saveFetchState('ca-hc', { 'https://x/feed': { etag: '"1"', file: 'r2/p.json' } });
  assert.deepEqual((await archive.prune('ca-hc', 2)).sort(), ['r1', 'r3']);
  assert.deepEqual((await readdir(join(root, 'ca-hc'))).sort(), ['fetch-state.json', 'r2', 'r4', 'r5']);
  assert.deepEqual(await archive.prune('ca-hc', 2), [], 'idempotent');
  assert.deepEqual(await archive.prune('no-such-source'), []);
  await assert.rejects(archive.prune('ca-hc', 0), RangeError);
});

test('readMirror: accepted files of DIR/<source>, sorted by name; missing folder is empty', async (t) => {
  const dir = await tempDir(t);
  const folder = join(dir, 'eu-safety-gate');
  await mkdir(join(folder, 'sub'), { recursive: true });
  await writeFile(join(folder, 'b.json'), 'B');
  await writeFile(join(folder, 'a.json'), 'A');
  await writeFile(join(folder, 'notes.txt'), 'ignored');
  await writeFile(join(folder, '.hidden.json'), 'ignored');
  await writeFile(join(folder, 'sub', 'c.json'), 'ignored');
  const pages = await readMirror(dir, 'eu-safety-gate', (name) => name.endsWith('.json'));
  assert.deepEqual(
    pages.map((p) => [p.name, p.body.toString(), p.url]),
    [
      ['a.json', 'A', undefined],
      ['b.json', 'B', undefined],
    ],
  );
  assert.deepEqual(await readMirror(dir, 'au-accc', () => true), []);
});

// --- conditional fetcher, against a real local server ---

const client = createUpstreamClient({ timeoutMs: 2_000, retries: 1, sleep: async () => {} });

test('conditional fetcher: a 304 on the next run returns the archived body; state follows the newest copy', async (t) => {
  const root = await tempDir(t);
  const archive = createArchive(root);
  const s = await scriptedAgency(t, [
    [
      '/feed',
      (_req, res) =>
        res.writeHead(200, { etag: '"v1"', 'last-modified': 'Wed, 01 May 2024 06:00:00 GMT' }).end('{"v":1}'),
    ],
    ['/feed', (_req, res) => res.writeHead(304, { etag: '"v1"' }).end()],
    ['/feed', (_req, res) => res.writeHead(304, { etag: '"v1"' }).end()],
    ['/feed', (_req, res) => res.writeHead(200, { etag: '"v2"' }).end('{"v":2}')],
  ]);
  const feed = s.url('/feed');

  /** One run as the pipeline does it: fetch, archive what the adapter yields, save the state. */
  async function runOnce(runId: string) {
    const run = archive.startRun('us-cpsc', runId);
    const fetcher = createConditionalFetcher({
      client,
      archiveRun: run,
      state: await archive.loadFetchState('us-cpsc'),
    });
    const res = await fetcher.get(feed);
    await fetcher.archive({ name: 'page-0001.json', body: res.body, url: feed });
    await archive.saveFetchState('us-cpsc', fetcher.state());
    return { res, fetcher };
  }

  const first = await runOnce('r1');
  assert.equal(first.res.status, 200);
  assert.equal(first.res.body.toString(), '{"v":1}');
  assert.equal(s.requests[0]?.headers['if-none-match'], undefined);
  assert.deepEqual(
    { ...first.fetcher.state() },
    {
      [feed]: { etag: '"v1"', lastModified: 'Wed, 01 May 2024 06:00:00 GMT', file: 'r1/page-0001.json' },
    },
  );

  const second = await runOnce('r2');
  assert.equal(s.requests[1]?.headers['if-none-match'], '"v1"');
  assert.equal(s.requests[1]?.headers['if-modified-since'], 'Wed, 01 May 2024 06:00:00 GMT');
  assert.equal(second.res.status, 304);
  assert.equal(second.res.body.toString(), '{"v":1}', 'the archived body');
  assert.deepEqual(second.fetcher.pages(), [{ url: feed, status: 304, archivedAs: 'r2/page-0001.json' }]);
  assert.equal(second.fetcher.state()[feed]?.file, 'r2/page-0001.json', 're-archived in this run');
  assert.equal(await readFile(join(root, 'us-cpsc', 'r2', 'page-0001.json'), 'utf8'), '{"v":1}');

  // the archived copy is gone: the 304 cannot be served from the archive, so refetch unconditionally
  await rm(join(root, 'us-cpsc', 'r2'), { recursive: true });
  const third = await runOnce('r3');
  assert.equal(s.requests[2]?.headers['if-none-match'], '"v1"');
  assert.equal(s.requests[3]?.headers['if-none-match'], undefined);
  assert.equal(third.res.status, 200);
  assert.equal(third.res.body.toString(), '{"v":2}');
  assert.deepEqual({ ...third.fetcher.state() }, { [feed]: { etag: '"v2"', file: 'r3/page-0001.json' } });
  await s.finish();
});

test('conditional fetcher: only bodies archived as served get validators; a 304 not re-archived keeps its old file', async (t) => {
  const root = await tempDir(t);
  const archive = createArchive(root);
  const s = await scriptedAgency(t, [
    ['/index', (_req, res) => res.writeHead(200, { etag: '"i1"' }).end('index')],
    ['/data', (_req, res) => res.writeHead(200, { etag: '"d1"' }).end('data')],
    ['/old', (_req, res) => res.writeHead(304).end()],
  ]);
  const old = await archive
    .startRun('us-fsis', 'r1')
    .write({ name: 'old.json', body: Buffer.from('old body') });
  assert.ok(old);
  const run = archive.startRun('us-fsis', 'r2');
  const fetcher = createConditionalFetcher({
    client,
    archiveRun: run,
    state: {
      [s.url('/old')]: { etag: '"o1"', file: 'r1/old.json' },
      [s.url('/gone')]: { etag: '"g1"', file: 'r1/gone.json' }, // not fetched this run: dropped
    },
  });
  await fetcher.get(s.url('/index')); // read but not yielded (e.g. an index of pages)
  const data = await fetcher.get(s.url('/data'));
  await fetcher.archive({
    name: 'data.json',
    body: Buffer.from(data.body.toString().toUpperCase()),
    url: s.url('/data'),
  });
  const unchanged = await fetcher.get(s.url('/old'));
  assert.deepEqual([unchanged.status, unchanged.body.toString()], [304, 'old body']);
  assert.deepEqual({ ...fetcher.state() }, { [s.url('/old')]: { etag: '"o1"', file: 'r1/old.json' } });
  assert.deepEqual(
    fetcher.pages().map((p) => [p.url, p.status, p.archivedAs]),
    [
      [s.url('/index'), 200, undefined],
      [s.url('/data'), 200, undefined],
      [s.url('/old'), 304, undefined],
    ],
  );
  await s.finish();
});

test('conditional fetcher: a query POST is never conditional and leaves no validators', async (t) => {
  const archive = createArchive(await tempDir(t));
  const s = await scriptedAgency(t, [
    ['/search', (_req, res) => res.writeHead(200, { etag: '"p0"' }).end('page 0')],
    ['/search', (_req, res) => res.writeHead(200, { etag: '"p1"' }).end('page 1')],
  ]);
  const search = s.url('/search');
  const fetcher = createConditionalFetcher({
    client,
    archiveRun: archive.startRun('eu-safety-gate', 'r1'),
    // A validator for the address, as a GET of it might have left: a query must not send it.
    state: { [search]: { etag: '"p0"', file: 'r0/list.json' } },
  });
  const post = (page: number) => ({ post: { body: `{"page":"${page}"}`, contentType: 'application/json' } });
  const first = await fetcher.get(search, post(0));
  const second = await fetcher.get(search, post(1));
  assert.deepEqual([first.body.toString(), second.body.toString()], ['page 0', 'page 1']);
  await fetcher.archive({ name: 'list-page-0000.json', body: first.body, url: search });
  assert.equal(s.requests[0]?.headers['if-none-match'], undefined);
  assert.deepEqual(fetcher.pages(), []);
  assert.deepEqual({ ...fetcher.state() }, {});
  await s.finish();
});

test('conditional fetcher: a yielded page without url is linked by its body', async (t) => {
  const archive = createArchive(await tempDir(t));
  const s = await scriptedAgency(t, [
    ['/p', (_req, res) => res.writeHead(200, { 'last-modified': 'Wed, 01 May 2024 06:00:00 GMT' }).end('p')],
  ]);
  const fetcher = createConditionalFetcher({
    client,
    archiveRun: archive.startRun('au-accc', 'r1'),
    state: {},
  });
  const { body } = await fetcher.get(s.url('/p'));
  await fetcher.archive({ name: 'p.json', body });
  assert.deepEqual(
    { ...fetcher.state() },
    {
      [s.url('/p')]: { lastModified: 'Wed, 01 May 2024 06:00:00 GMT', file: 'r1/p.json' },
    },
  );
  await s.finish();
});

test('conditional fetcher: a page archived under the same fingerprint is not asked for; a failure can fall back to the archive', async (t) => {
  const archive = createArchive(await tempDir(t));
  const s = await scriptedAgency(t, [
    ['/n', (_req, res) => res.writeHead(200).end('first')],
    ['/n', (_req, res) => res.writeHead(503).end('down')],
    ['/n', (_req, res) => res.writeHead(503).end('down')], // the client's one retry
  ]);
  const fetcher = (runId: string, state: FetchState) =>
    createConditionalFetcher({ client, archiveRun: archive.startRun('au-accc', runId), state });
  const r1 = fetcher('r1', {});
  const first = await r1.get(s.url('/n'), { unchangedIf: 'A' });
  assert.equal(first.status, 200);
  await r1.archive({ name: 'n.html', body: first.body, url: s.url('/n') });
  assert.deepEqual({ ...r1.state() }, { [s.url('/n')]: { fingerprint: 'A', file: 'r1/n.html' } });

  // Same fingerprint: no request.
  const r2 = fetcher('r2', r1.state());
  const same = await r2.get(s.url('/n'), { unchangedIf: 'A' });
  assert.deepEqual([same.status, same.body.toString(), same.failed], [304, 'first', undefined]);
  await r2.archive({ name: 'n.html', body: same.body, url: s.url('/n') });

  // Another fingerprint: asked for; it fails, and the archived body comes back with the failure, under
  // the old fingerprint, so that the next run asks again. Offline, nothing is asked.
  const r3 = fetcher('r3', r2.state());
  const stale = await r3.get(s.url('/n'), { unchangedIf: 'B', orArchived: true });
  assert.deepEqual([stale.status, stale.body.toString()], [304, 'first']);
  assert.match(stale.failed ?? '', /503/);
  await r3.archive({ name: 'n.html', body: stale.body, url: s.url('/n') });
  assert.equal(r3.state()[s.url('/n')]?.fingerprint, 'A');
  const r4 = fetcher('r4', r3.state());
  await assert.rejects(r4.get(s.url('/n'), { unchangedIf: 'B', offline: 'not asked' }), /not asked/);
  const kept = await r4.get(s.url('/n'), { unchangedIf: 'B', offline: 'not asked', orArchived: true });
  assert.deepEqual([kept.body.toString(), kept.failed], ['first', 'not asked']);
  // Not archived in this run: no fingerprint is kept for it.
  assert.deepEqual({ ...r4.state() }, {});
  await s.finish();
});
