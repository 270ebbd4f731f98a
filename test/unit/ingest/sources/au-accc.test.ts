import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createArchive } from '../../../../src/ingest/archive.ts';
import { createConditionalFetcher } from '../../../../src/ingest/conditional-fetcher.ts';
import { UpstreamError } from '../../../../src/ingest/errors.ts';
import { createUpstreamClient } from '../../../../src/ingest/http-client.ts';
import type { FetchContext, PageFetcher, RawPage } from '../../../../src/ingest/source.ts';
import {
  ACCC_FEED_PATH,
  FEED_MAX_BYTES,
  MAX_NOTICE_REQUESTS,
  acccFeedUrl,
  auAccc,
  noticeName,
  noticeUrl,
} from '../../../../src/ingest/sources/au-accc/index.ts';
import { acccDate } from '../../../../src/ingest/sources/au-accc/dates.ts';
import { normaliseItem } from '../../../../src/ingest/sources/au-accc/normalise.ts';
import { htmlText } from '../../../../src/ingest/sources/au-accc/notice-html.ts';
import { NOTICE_MAX_BYTES, readNoticePage } from '../../../../src/ingest/sources/au-accc/notice-page.ts';
import { parseRecallFeed } from '../../../../src/ingest/sources/au-accc/schema.ts';
import { scriptedAgency } from '../../../support/scripted-agency.ts';
import { requireShared, sharedPath } from '../../../support/shared.ts';
import { fictionalNotice } from '../../../support/accc-notice.ts';

/** Project-written, in the shape of the real feed (fictional products and codes). */
const SHAPE = readFileSync(new URL('../../../fixtures/shapes/au-accc-2026-08.xml', import.meta.url));
const EXCERPT = (i: number) =>
  sharedPath('upstream-samples', '_reference', `accc-notice-page-${i}-fields.html`);
const REAL_FEED = sharedPath('upstream-samples', 'au-accc', 'psa_recall-fetched-2026-08-31-first7.xml');
const EMPTY = sharedPath('upstream-samples', '_reference', 'accc-unknown-feed-name-empty-channel.xml');

const ids = (d: { identifiers: { kind: string; value: string; confidence: string }[] }) =>
  d.identifiers.map((i) => [i.kind, i.value, i.confidence]);

test('reads every field of the real Triumph notice page (PRA 2026/21039)', (t) => {
  const path = EXCERPT(0);
  if (!requireShared(t, path, 'upstream-samples/_reference/accc-notice-page-0-fields.html')) return;
  const page = readNoticePage(readFileSync(path));
  assert.equal(page.praNumber, '2026/21039');
  assert.equal(page.published, '2026-09-29');
  assert.deepEqual(page.categories, [
    'Vehicles (unregistered or off-road)',
    'Dirt bikes and miniature motorbikes',
  ]);
  assert.equal(page.brand, 'Triumph Motorcycles');
  assert.equal(page.model, 'TF450-RC & TF450 X');
  assert.equal(page.supplier, 'TRIUMPH MOTORCYCLES AUSTRALIA');
  assert.deepEqual(page.traders, ['Authorised Triumph Motorcycles dealers']);
  assert.deepEqual(page.saleDates, { from: '2025-01-08', to: '2026-09-22' });
  assert.deepEqual(page.whereSold, ['Nationally']);
  assert.deepEqual(page.originCountries, ['TH']);
  assert.equal(page.otherIdentifying, null, 'an attached VIN list, no other-identify block');
  assert.match(page.hazards ?? '', /^Risk of serious injury or death/);
  const draft = normaliseItem({ title: 'TEST', link: 'https://psa.test/x', guid: 'uuid-0' }, page);
  assert.equal(draft.recordId, '2026/21039');
  assert.deepEqual(draft.formerRecordIds, ['uuid-0']);
  assert.deepEqual(draft.product.brands, ['Triumph Motorcycles']);
  assert.deepEqual(draft.product.models, ['TF450-RC', 'TF450 X'], 'split at "&"');
  assert.deepEqual(draft.product.category, 'Vehicles (unregistered or off-road)');
  assert.deepEqual(ids(draft), [
    ['model', 'TF450-C', 'inferred'], // the description's list of affected models
    ['model', 'TF450-E', 'inferred'],
    ['model', 'TF450-RC', 'exact'],
    ['model', 'TF450 X', 'exact'],
  ]);
});

test('reads every field of the real Yoyo notice page (PRA 2026/21040): three EAN/UPC pairs, no serial format', (t) => {
  const path = EXCERPT(1);
  if (!requireShared(t, path, 'upstream-samples/_reference/accc-notice-page-1-fields.html')) return;
  const page = readNoticePage(readFileSync(path));
  assert.equal(page.praNumber, '2026/21040');
  assert.equal(page.brand, 'Cambridge Audio');
  assert.equal(page.model, 'C10930 (Light Grey), C10931 (Dark Grey), C10965 (Blue)');
  assert.equal(page.supplier, 'Cambridge Audio');
  assert.deepEqual(page.traders, ['Synergy Audio Visual Pty Ltd']);
  assert.deepEqual(page.saleDates, { from: '2016-01-01', to: '2024-12-31' });
  assert.deepEqual(page.whereSold, ['Nationally', 'Online']);
  assert.deepEqual(page.originCountries, ['CN']);
  assert.equal(page.categories.length, 4);
  const draft = normaliseItem({ title: 'TEST', link: 'https://psa.test/y', guid: 'uuid-1' }, page);
  assert.equal(draft.recordId, '2026/21040');
  assert.deepEqual(draft.product.models, ['C10930', 'C10931', 'C10965'], 'colours left out');
  assert.deepEqual(ids(draft), [
    ['ean', '5055300413055', 'extracted'],
    ['ean', '5055300413062', 'extracted'],
    ['ean', '5055300413406', 'extracted'],
    ['model', 'C10930', 'exact'],
    ['model', 'C10931', 'exact'],
    ['model', 'C10965', 'exact'],
    ['upc', '813371022959', 'extracted'],
    ['upc', '813371022966', 'extracted'],
    ['upc', '813371024922', 'extracted'],
  ]);
  assert.ok(!JSON.stringify(draft).includes('C109XX'), 'the serial-number format is no identifier');
  assert.equal(draft.remedy, 'refund');
  assert.equal(draft.hazard.category, 'fire');
  assert.ok(!JSON.stringify(draft).includes('@'), 'no contact e-mail');
  assert.ok(!JSON.stringify(draft).includes('1300 888'), 'no contact phone');
});

test('the 7 real feed items: all read, keyed by their UUID, identifiers from the prose', (t) => {
  if (!requireShared(t, REAL_FEED, 'upstream-samples/au-accc/psa_recall-fetched-2026-08-31-first7.xml'))
    return;
  const { drafts, setAside, dataAsOf } = auAccc.parse({ name: 'feed.xml', body: readFileSync(REAL_FEED) });
  assert.deepEqual(setAside, []);
  assert.equal(dataAsOf, '2026-08-27', 'no lastBuildDate: the newest recall');
  assert.equal(drafts.length, 7);
  for (const d of drafts) assert.match(d.recordId, /^[0-9a-f]{8}-[0-9a-f-]{27}$/);
  assert.deepEqual(
    drafts.map((d) => [d.title?.slice(0, 12), d.published_date, ids(d).map(([k, v]) => `${k} ${v}`)]),
    [
      [
        'Basco BFO-15',
        '2026-08-27',
        ['gtin 9356247149707', 'gtin 9356247157535', 'model BFO-15671', 'model BUNF5'],
      ],
      ['GASGAS Motoc', '2026-08-27', []],
      ['Husqvarna Cr', '2026-08-27', ['model FX350', 'model TX300']],
      ['Tea infuser', '2026-08-21', ['model D21S30']],
      ['Babybee todd', '2026-08-21', ['batch X-001', 'batch X-002', 'batch X-012A', 'batch X-015D']],
      ['Weet-Bix Wea', '2026-08-20', []],
      ['ORBEA Optima', '2026-08-19', []], // "a VIN containing SNKIN19A": a fragment, no VIN
    ],
  );
});

test('an empty channel (the answer to an unknown feed name) is an empty failure, not an empty feed', (t) => {
  if (!requireShared(t, EMPTY, 'upstream-samples/_reference/accc-unknown-feed-name-empty-channel.xml'))
    return;
  assert.deepEqual(parseRecallFeed(readFileSync(EMPTY)).items, []);
  assert.throws(
    () => auAccc.parse({ name: 'feed.xml', body: readFileSync(EMPTY) }),
    (e: unknown) => e instanceof UpstreamError && e.failure === 'empty' && /channel is empty/.test(e.message),
  );
});

test('reads the shape fixture: no PRA number, escaped HTML, lists of codes', () => {
  const { drafts, setAside, dataAsOf } = auAccc.parse({ name: 'feed.xml', body: SHAPE });
  assert.deepEqual(setAside, []);
  assert.equal(dataAsOf, '2026-08-27');
  const [filter, bike] = drafts;
  assert.equal(filter?.recordId, '00000000-0000-4000-8000-000000000001');
  assert.equal(filter?.product.category, 'Vehicles & accessories');
  assert.deepEqual(ids(filter!), [
    ['gtin', '2600000001458', 'extracted'],
    ['gtin', '2600000001526', 'extracted'], // "Barcode&nbsp;2600000001526"
    ['model', 'TDF-10001', 'inferred'],
  ]);
  assert.deepEqual(
    bike?.identifiers.map((i) => [i.kind, i.value]),
    [
      ['batch', 'X-901'],
      ['batch', 'X-902'],
      ['batch', 'X-912A'],
      ['model', '9011414'],
    ],
  );
  assert.equal(bike?.hazard.category, 'fall');
  assert.equal(bike?.remedy, 'repair');
});

test('a companion notice page enriches its item; one that does not read leaves the feed version', () => {
  const feedOnly = auAccc.parse({ name: 'feed.xml', body: SHAPE }).drafts;
  const item = parseRecallFeed(SHAPE).items;
  const good: RawPage = {
    name: noticeName(item[0]!),
    body: Buffer.from(
      fictionalNotice({ pra: '2026/99001', brand: 'TEST DATA Brand', model: 'TDF-1 & TDF-2' }),
    ),
  };
  const bad: RawPage = {
    name: noticeName(item[1]!),
    body: Buffer.from('<html><body>Access denied</body></html>'),
  };
  const { drafts } = auAccc.parse({ name: 'feed.xml', body: SHAPE, companions: [good, bad] });
  assert.equal(drafts[0]?.recordId, '2026/99001');
  assert.deepEqual(drafts[0]?.formerRecordIds, ['00000000-0000-4000-8000-000000000001']);
  assert.deepEqual(drafts[0]?.product.models, ['TDF-1', 'TDF-2']);
  assert.deepEqual(drafts[1], feedOnly[1]);
});

test('reads the dates the site prints', () => {
  assert.equal(acccDate('2026-03-12T12:00:00Z'), '2026-03-12');
  assert.equal(acccDate('Tue, 10 Mar 2026 09:00:00 +1100'), '2026-03-10');
  assert.equal(acccDate('12 March 2026'), '2026-03-12');
  assert.equal(acccDate('31 February 2026'), null);
  assert.equal(acccDate('soon'), null);
  assert.equal(htmlText('<p>Risk &amp; more&nbsp;risk</p><p>b<br>c</p>'), 'Risk & more risk\nb\nc');
});

test('fails loudly with a format error when the feed or a notice page drifts', () => {
  const bad: [string, Buffer][] = [
    ['not XML', Buffer.from('{"items":[]}')],
    ['malformed XML', Buffer.from('<rss><channel><item></channel></rss>')],
    ['an HTML page', Buffer.from('<html><body>Page not found</body></html>')],
    [
      'an Atom feed',
      Buffer.from('<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>x</title></entry></feed>'),
    ],
  ];
  for (const [why, body] of bad) {
    assert.throws(
      () => auAccc.parse({ name: 'feed.xml', body, url: 'https://psa.test/x' }),
      (e: unknown) => e instanceof UpstreamError && ['format', 'empty'].includes(e.failure),
      why,
    );
  }
  assert.throws(
    () => readNoticePage('<html><body><h1>Page not found</h1></body></html>', 'https://psa.test/n'),
    (e: unknown) =>
      e instanceof UpstreamError && e.failure === 'format' && e.details.url === 'https://psa.test/n',
  );
});

test('sets aside an item that drifted, with its place and reason, and reads the rest', () => {
  const good = auAccc.parse({ name: 'feed.xml', body: SHAPE }).drafts;
  const body = Buffer.from(SHAPE.toString('utf8').replace('<item>', '<item><title>x</title></item><item>'));
  const parsed = auAccc.parse({ name: 'feed.xml', body });
  assert.deepEqual(parsed.drafts, good);
  assert.deepEqual(
    parsed.setAside.map((s) => s.record),
    ['item[0]'],
  );
});

function pageFetcher(): PageFetcher {
  const client = createUpstreamClient({ timeoutMs: 2_000, retries: 0, sleep: async () => {} });
  return {
    get: async (url, init) => ({
      status: 200,
      body: (await client.get(url, init?.maxBytes === undefined ? {} : { maxBytes: init.maxBytes })).body,
    }),
  };
}

async function collect(pages: AsyncIterable<RawPage>): Promise<RawPage[]> {
  const out: RawPage[] = [];
  for await (const p of pages) out.push(p);
  return out;
}

test('fetches the feed, then each notice page at its link path on the base address; a failing one is reported', async (t) => {
  const paths = parseRecallFeed(SHAPE).items.map((i) => new URL(i.link).pathname);
  const agency = await scriptedAgency(t, [
    [ACCC_FEED_PATH, (_q, res) => res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(SHAPE)],
    [
      paths[0]!,
      (_q, res) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end(fictionalNotice({ pra: '2026/99001' })),
    ],
    // Over the page cap: refused while streaming, the item kept as the feed gives it.
    [
      paths[1]!,
      (_q, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('x'.repeat(NOTICE_MAX_BYTES + 1)),
    ],
  ]);
  const skipped: string[] = [];
  const ctx: FetchContext = {
    baseUrl: `${agency.base}/`,
    fetcher: pageFetcher(),
    now: new Date(),
    since: null,
    skipped: (url, reason) => skipped.push(`${url}: ${reason}`),
  };
  const pages = await collect(auAccc.fetch(ctx));
  await agency.finish();
  assert.deepEqual(
    pages.map((p) => [p.name, p.url]),
    [['feed.xml', agency.url(ACCC_FEED_PATH)]],
  );
  assert.deepEqual(
    pages[0]!.companions?.map((c) => [c.name, c.url]),
    [['notice-00000000-0000-4000-8000-000000000001.html', agency.url(paths[0]!)]],
  );
  assert.equal(skipped.length, 1);
  assert.match(skipped[0]!, new RegExp(`^${agency.url(paths[1]!)}: .*${NOTICE_MAX_BYTES}`));
  const drafts = auAccc.parse(pages[0]!).drafts;
  assert.deepEqual(
    drafts.map((d) => d.recordId),
    ['2026/99001', '00000000-0000-4000-8000-000000000002'],
  );
  assert.equal(
    acccFeedUrl('https://www.productsafety.gov.au/'),
    'https://www.productsafety.gov.au/rss/feed.xml/psa_recall',
  );
  assert.equal(
    noticeUrl('http://127.0.0.1:9/', 'https://www.productsafety.gov.au/a/b?c=1'),
    'http://127.0.0.1:9/a/b?c=1',
  );
  assert.equal(noticeUrl('http://127.0.0.1:9', 'javascript:alert(1)'), null);
  assert.equal(auAccc.acceptsFile('feed.xml'), true);
  assert.equal(auAccc.acceptsFile('notice-x.html'), false, 'a mirror is read as the feed alone');
});

test(`asks for ${MAX_NOTICE_REQUESTS} notice pages in a run at most, and reads no feed over ${FEED_MAX_BYTES} bytes`, async (t) => {
  const n = MAX_NOTICE_REQUESTS + 1;
  const items = Array.from(
    { length: n },
    (_, i) =>
      `<item><title>TEST DATA ${i}</title><link>https://www.productsafety.gov.au/p/${i}</link><guid>g-${i}</guid></item>`,
  ).join('');
  const feed = `<rss version="2.0"><channel><title>t</title>${items}</channel></rss>`;
  const page = (res: ServerResponse) => res.writeHead(200).end(fictionalNotice({ pra: '2026/99000' }));
  const agency = await scriptedAgency(t, [
    [ACCC_FEED_PATH, (_q, res) => res.writeHead(200).end(feed)],
    ...Array.from(
      { length: MAX_NOTICE_REQUESTS },
      (_, i): [string, (q: unknown, r: ServerResponse) => void] => [`/p/${i}`, (_q, res) => page(res)],
    ),
    [ACCC_FEED_PATH, (_q, res) => res.writeHead(200).end(Buffer.alloc(FEED_MAX_BYTES + 1, 0x20))],
  ]);
  const skipped: string[] = [];
  // The real conditional fetcher: once stopped, no request is made (`offline`).
  const dir = mkdtempSync(join(tmpdir(), 'recalls-accc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fetcher = createConditionalFetcher({
    client: createUpstreamClient({ timeoutMs: 2_000, retries: 0 }),
    archiveRun: createArchive(dir).startRun('au-accc', 'r1'),
    state: {},
  });
  const ctx: FetchContext = {
    baseUrl: agency.base,
    fetcher,
    now: new Date(),
    since: null,
    skipped: (u, r) => skipped.push(`${u}: ${r}`),
  };
  const [first] = await collect(auAccc.fetch(ctx));
  assert.equal(first?.companions?.length, MAX_NOTICE_REQUESTS);
  assert.deepEqual(skipped, [
    `${agency.base}/p/${MAX_NOTICE_REQUESTS}: not asked: over the run's ${MAX_NOTICE_REQUESTS} notice page requests`,
  ]);
  await assert.rejects(
    collect(auAccc.fetch(ctx)),
    (e: unknown) => e instanceof UpstreamError && e.failure === 'too_large',
  );
  await agency.finish();
});

test('a feed address that serves an HTML page is a format error before anything is yielded', async (t) => {
  const agency = await scriptedAgency(t, [
    [
      ACCC_FEED_PATH,
      (_q, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Moved</body></html>'),
    ],
  ]);
  const ctx: FetchContext = { baseUrl: agency.base, fetcher: pageFetcher(), now: new Date(), since: null };
  await assert.rejects(
    collect(auAccc.fetch(ctx)),
    (e: unknown) => e instanceof UpstreamError && e.failure === 'format',
  );
  await agency.finish();
});

test('describes the feed: meta and licence', () => {
  const { meta } = auAccc;
  assert.equal(meta.id, 'au-accc');
  assert.equal(meta.jurisdiction, 'AU');
  assert.equal(meta.licence.id, 'CC-BY-4.0');
  assert.match(meta.licence.attribution, /ACCC © Commonwealth of Australia/);
  assert.equal(meta.defaultBaseUrl, 'https://www.productsafety.gov.au');
});
