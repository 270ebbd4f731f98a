import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { RecallDraft } from '../../../../src/domain/recall.ts';
import { UpstreamError } from '../../../../src/ingest/errors.ts';
import { createUpstreamClient } from '../../../../src/ingest/http-client.ts';
import type { FetchContext, PageFetcher, RawPage } from '../../../../src/ingest/source.ts';
import { ACCC_FEED_PATH, acccFeedUrl, auAccc } from '../../../../src/ingest/sources/au-accc/index.ts';
import { acccDate } from '../../../../src/ingest/sources/au-accc/normalise.ts';
import { htmlText, noticeFields } from '../../../../src/ingest/sources/au-accc/notice-html.ts';
import { scriptedAgency } from '../../../support/scripted-agency.ts';

const FIXTURE = readFileSync(new URL('../../../fixtures/au-accc/feed.xml', import.meta.url));
const RECALLS = 'https://www.productsafety.gov.au/recalls/';

/** Every fixture item, as it must normalise (written by hand from the fixture file). */
const EXPECTED: RecallDraft[] = [
  {
    recordId: 'PRA 2026/90001',
    title: 'TEST DATA Fictional Appliances electric kettle',
    summary: 'TEST DATA. The connector in the base may overheat during use.',
    hazard: {
      category: 'fire',
      text: 'TEST DATA. If the connector overheats, there is a risk of fire, property damage and serious injury.',
    },
    product: {
      category: 'Home electrical appliances',
      brands: ['Fictional Appliances (fictional brand)'],
      models: [],
    },
    severity: 'unknown',
    source_classification: null,
    remedy: 'refund',
    recall_date: '2026-03-12',
    published_date: '2026-03-12',
    countries: ['AU'],
    url: `${RECALLS}test-data-fictional-appliances-electric-kettle`,
    // labelled prose in "Identifying features": a checked barcode is extracted, a model inferred
    identifiers: [
      { kind: 'gtin', value: '2600000000130', normalized: '02600000000130', confidence: 'extracted' },
      { kind: 'model', value: 'KT-2000', normalized: 'KT2000', confidence: 'inferred' },
    ],
  },
  {
    recordId: 'PRA 2026/90002',
    title: 'TEST DATA Fictional Toys stacking rings',
    summary: 'TEST DATA. The rings can break into small parts.',
    hazard: { category: 'choking', text: 'TEST DATA. Small parts pose a choking hazard to young children.' },
    product: { category: 'Toys for babies and toddlers', brands: [], models: ['FT-33', 'FT-34'] },
    severity: 'unknown',
    source_classification: null,
    remedy: 'replace',
    recall_date: '2026-03-11',
    published_date: '2026-03-11',
    countries: ['AU'],
    url: `${RECALLS}test-data-fictional-toys-stacking-rings`,
    // dedicated fields: exact; "2001234567894" fails its check digit and is dropped
    identifiers: [
      { kind: 'gtin', value: '2001234567909', normalized: '02001234567909', confidence: 'exact' },
      { kind: 'model', value: 'FT-33', normalized: 'FT33', confidence: 'exact' },
      { kind: 'model', value: 'FT-34', normalized: 'FT34', confidence: 'exact' },
    ],
  },
  {
    recordId: 'PRA 2026/90003', // the field holds the number without "PRA"
    title: 'TEST DATA Fictional Outdoors folding camping chair',
    summary: 'TEST DATA. The rivets on the leg joints may shear.',
    hazard: { category: 'fall', text: 'TEST DATA. The chair may collapse, posing a fall hazard.' },
    product: { category: 'Camping', brands: [], models: [] },
    severity: 'unknown',
    source_classification: null,
    remedy: 'stop_use',
    recall_date: '2026-03-10', // no published-date field: the day written in pubDate
    published_date: '2026-03-10',
    countries: ['AU'],
    url: `${RECALLS}test-data-fictional-outdoors-folding-camping-chair`,
    identifiers: [], // "batch numbers in the photos" names no code
  },
];

test('normalises every fixture item to the draft written by hand', () => {
  const parsed = auAccc.parse({ name: 'feed.xml', body: FIXTURE });
  assert.deepEqual(parsed.drafts, EXPECTED);
  assert.equal(parsed.dataAsOf, '2026-03-13', 'the feed build date');
});

test('falls back to the guid, then the link, when a notice carries no PRA number', () => {
  const feed = (item: string) =>
    Buffer.from(`<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>${item}</channel></rss>`);
  const [byGuid] = auAccc.parse({
    name: 'feed.xml',
    body: feed(
      '<item><title>TEST DATA lamp</title><link>https://x.test/lamp</link><guid isPermaLink="false">77 at https://x.test</guid><pubDate>Mon, 02 Mar 2026 10:00:00 +1100</pubDate></item>',
    ),
  }).drafts;
  assert.equal(byGuid?.recordId, '77 at https://x.test');
  assert.equal(byGuid?.published_date, '2026-03-02');
  assert.deepEqual(byGuid?.hazard, { category: null, text: null });
  assert.equal(byGuid?.remedy, 'unknown');
  const [byLink] = auAccc.parse({
    name: 'feed.xml',
    body: feed('<item><title>TEST DATA lamp</title><link>https://x.test/lamp</link></item>'),
  }).drafts;
  assert.equal(byLink?.recordId, 'https://x.test/lamp');
  assert.equal(byLink?.published_date, null);
  const [byText] = auAccc.parse({
    name: 'feed.xml',
    body: feed(
      '<item><title>TEST DATA lamp</title><link>https://x.test/lamp</link><description>&lt;p&gt;PRA number: 2026/12345&lt;/p&gt;</description></item>',
    ),
  }).drafts;
  assert.equal(byText?.recordId, 'PRA 2026/12345');
});

test('reads notice fields from the CMS markup, nested blocks included', () => {
  const html =
    '<div class="field field--name-field-psa-recall-traders"><h3 class="field__label">Where sold</h3>' +
    '<div class="field__items"><div class="field__item"><p>Shop A</p></div><div class="field__item"><div>Shop B</div></div></div></div>' +
    '<div class="field field--name-field-psa-recall-hazards"><p>Risk &amp; more&nbsp;risk</p></div>';
  const fields = noticeFields(html);
  assert.deepEqual(fields.get('traders')?.map(htmlText), ['Shop A', 'Shop B']);
  assert.equal(htmlText(fields.get('hazards')?.[0] ?? ''), 'Risk & more risk');
});

test('reads the dates the site prints', () => {
  assert.equal(acccDate('2026-03-12T12:00:00Z'), '2026-03-12');
  assert.equal(acccDate('Tue, 10 Mar 2026 09:00:00 +1100'), '2026-03-10');
  assert.equal(acccDate('12 March 2026'), '2026-03-12');
  assert.equal(acccDate('31 February 2026'), null);
  assert.equal(acccDate('soon'), null);
});

test('fails loudly with a format error when the feed drifts', () => {
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
      (e: unknown) =>
        e instanceof UpstreamError && e.failure === 'format' && e.details.url === 'https://psa.test/x',
      why,
    );
  }
});

test('sets aside an item that drifted, with its place and reason, and reads the rest', () => {
  const good = auAccc.parse({ name: 'feed.xml', body: FIXTURE }).drafts;
  const bad = [
    '<item><title>x</title></item>',
    '<item><link>https://x.test/a</link></item>',
    '<item><title>x</title><link>https://x.test/b</link><description><p>x</p></description></item>',
  ];
  const body = Buffer.from(FIXTURE.toString('utf8').replace('<item>', `${bad.join('')}<item>`));
  const parsed = auAccc.parse({ name: 'feed.xml', body });
  assert.deepEqual(parsed.drafts, good);
  assert.deepEqual(
    parsed.setAside.map((s) => s.record),
    ['item[0]', 'item[1] (https://x.test/a)', 'item[2] (https://x.test/b)'],
  );
  assert.match(parsed.setAside[0]!.reason, /\/link/);
  assert.match(parsed.setAside[1]!.reason, /\/title/);
  assert.match(parsed.setAside[2]!.reason, /\/description/);
});

test('accepts an empty feed', () => {
  assert.deepEqual(
    auAccc.parse({
      name: 'feed.xml',
      body: Buffer.from('<rss version="2.0"><channel><title>t</title></channel></rss>'),
    }),
    { dataAsOf: null, drafts: [], setAside: [] },
  );
});

function pageFetcher(): PageFetcher {
  const client = createUpstreamClient({ timeoutMs: 2_000, retries: 0, sleep: async () => {} });
  return { get: async (url) => ({ status: 200, body: (await client.get(url)).body }) };
}

async function collect(pages: AsyncIterable<RawPage>): Promise<RawPage[]> {
  const out: RawPage[] = [];
  for await (const p of pages) out.push(p);
  return out;
}

test('fetches the recalls feed from a local agency, in one request', async (t) => {
  const agency = await scriptedAgency(t, [
    [
      ACCC_FEED_PATH,
      (_req, res) => res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(FIXTURE),
    ],
  ]);
  const ctx: FetchContext = {
    baseUrl: `${agency.base}/`,
    fetcher: pageFetcher(),
    now: new Date(),
    since: null,
  };
  const pages = await collect(auAccc.fetch(ctx));
  await agency.finish();
  assert.deepEqual(
    pages.map((p) => [p.name, p.url]),
    [['feed.xml', agency.url(ACCC_FEED_PATH)]],
  );
  assert.equal(auAccc.parse(pages[0]!).drafts.length, 3);
  assert.equal(auAccc.acceptsFile('feed.xml'), true);
  assert.equal(auAccc.acceptsFile('feed.json'), false);
  assert.equal(
    acccFeedUrl('https://www.productsafety.gov.au/'),
    'https://www.productsafety.gov.au/rss/feed.xml/psa_recall',
  );
});

test('a feed address that serves an HTML page is a format error before anything is yielded', async (t) => {
  const agency = await scriptedAgency(t, [
    [
      ACCC_FEED_PATH,
      (_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Moved</body></html>'),
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
  assert.equal(meta.agency, 'Australian Competition and Consumer Commission (Product Safety Australia)');
  assert.equal(meta.jurisdiction, 'AU');
  assert.equal(meta.licence.id, 'CC-BY-4.0');
  assert.match(meta.licence.attribution, /ACCC © Commonwealth of Australia/);
  assert.equal(meta.defaultBaseUrl, 'https://www.productsafety.gov.au');
});

test('reads the feed in the shape served in August 2026: no PRA number, escaped HTML, lists of codes', () => {
  // test/fixtures/shapes/au-accc-2026-08.xml: project-written, in the shape of the real feed.
  const body = readFileSync(new URL('../../../fixtures/shapes/au-accc-2026-08.xml', import.meta.url));
  const { drafts, setAside, dataAsOf } = auAccc.parse({ name: 'feed.xml', body });
  assert.deepEqual(setAside, []);
  assert.equal(dataAsOf, '2026-08-27');
  const [filter, bike] = drafts;
  // With no PRA number, the record id is the item's guid.
  assert.equal(filter?.recordId, '00000000-0000-4000-8000-000000000001');
  assert.equal(filter?.recall_date, '2026-08-27');
  assert.equal(filter?.product.category, 'Vehicles & accessories');
  assert.deepEqual(
    filter?.identifiers.map((i) => [i.kind, i.value, i.confidence]),
    [
      ['gtin', '2600000001458', 'extracted'],
      ['gtin', '2600000001526', 'extracted'], // "Barcode&nbsp;2600000001526"
      ['model', 'TDF-10001', 'inferred'], // "Part number TDF-10001 (found on packaging …)"
    ],
  );
  // "a VIN containing TDX9Z19A" is a fragment of VINs, not a code; batches and a SKU are.
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
