import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import type { RecallDraft } from '../../../../src/domain/recall.ts';
import { UpstreamError } from '../../../../src/ingest/errors.ts';
import { createUpstreamClient } from '../../../../src/ingest/http-client.ts';
import type { FetchContext, PageFetcher, RawPage } from '../../../../src/ingest/source.ts';
import { FSA_PAGE_LIMIT, fsaListUrl } from '../../../../src/ingest/sources/uk-fsa/fetch.ts';
import { windowStart } from '../../../../src/ingest/since-window.ts';
import { ukFsa } from '../../../../src/ingest/sources/uk-fsa/index.ts';
import {
  fsaAlertType,
  fsaDate,
  fsaHazard,
  fsaRemedy,
} from '../../../../src/ingest/sources/uk-fsa/normalise.ts';
import { scriptedAgency } from '../../../support/scripted-agency.ts';
import { assertSetAside, type BadRecord } from '../../../support/set-aside.ts';

const FIXTURE = readFileSync(new URL('../../../fixtures/uk-fsa/page-0001.json', import.meta.url));

const FOOD = { category: 'food', brands: [], models: [] };

/** Every fixture alert, as it must normalise (written by hand from the fixture file). */
const EXPECTED: RecallDraft[] = [
  {
    recordId: 'FSA-AA-90-2026',
    title: 'TEST DATA Fictional Bakery (fictional firm) recalls Seeded Loaf because of undeclared sesame',
    summary:
      'TEST DATA. This product contains sesame which is not mentioned on the label. This means the product is a possible health risk for anyone with an allergy to sesame.',
    hazard: {
      category: 'undeclared_allergen',
      text: 'TEST DATA. This product contains sesame which is not mentioned on the label. This means the product is a possible health risk for anyone with an allergy to sesame.',
    },
    product: FOOD,
    severity: 'medium',
    source_classification: 'AA',
    remedy: 'refund',
    recall_date: '2026-03-13',
    published_date: '2026-03-13',
    countries: ['GB'],
    url: 'https://www.food.gov.uk/news-alerts/alert/fsa-aa-90-2026',
    // the best-before description beside the batch code is not an identifier
    identifiers: [{ kind: 'batch', value: 'L1234', normalized: 'L1234', confidence: 'exact' }],
  },
  {
    recordId: 'FSA-PRIN-91-2026',
    title:
      'TEST DATA Fictional Dairy (fictional firm) recalls two soft cheeses because of the presence of Listeria monocytogenes',
    summary:
      'TEST DATA. Fictional Dairy is recalling two soft cheeses because Listeria monocytogenes has been found in the products.',
    hazard: {
      category: 'microbial_contamination',
      text: 'TEST DATA. Listeria monocytogenes has been found in the products listed above. Symptoms caused by this organism can be similar to flu.',
    },
    product: FOOD,
    severity: 'medium',
    source_classification: 'PRIN',
    remedy: 'refund',
    recall_date: '2026-03-12',
    published_date: '2026-03-12',
    countries: ['GB'], // the alert names Northern Ireland
    url: 'https://www.food.gov.uk/news-alerts/alert/fsa-prin-91-2026',
    identifiers: [
      // a list of codes in the field (array form) and "Batch 5521, 5522" in one string
      { kind: 'batch', value: '24123A', normalized: '24123A', confidence: 'exact' },
      { kind: 'batch', value: '24124A', normalized: '24124A', confidence: 'exact' },
      { kind: 'batch', value: '5521', normalized: '5521', confidence: 'exact' },
      { kind: 'batch', value: '5522', normalized: '5522', confidence: 'exact' },
    ],
  },
  {
    recordId: 'FSA-FAFA-92-2026',
    title: 'TEST DATA Food Alert for Action: fictional sesame paste contaminated with ethylene oxide',
    summary:
      'TEST DATA. The products contain elevated levels of ethylene oxide, a substance not authorised for use in food.',
    hazard: {
      category: 'chemical',
      text: 'TEST DATA. The products contain elevated levels of ethylene oxide, a substance not authorised for use in food.',
    },
    product: FOOD,
    severity: 'high',
    source_classification: 'FAFA',
    remedy: 'other', // consumers need do nothing; the authorities withdraw the food
    recall_date: '2026-03-10',
    published_date: '2026-03-10',
    countries: ['GB'],
    url: 'https://www.food.gov.uk/news-alerts/alert/fsa-fafa-92-2026',
    // labelled in the batch prose ("… up to and including lot 7781")
    identifiers: [{ kind: 'lot', value: '7781', normalized: '7781', confidence: 'inferred' }],
  },
  {
    recordId: 'FSA-PRIN-93-2026',
    title:
      'TEST DATA Fictional Foods (fictional firm) recalls Tomato Soup because it may contain small pieces of glass',
    summary: null,
    hazard: { category: 'foreign_matter', text: null }, // no risk statement: classified from the title
    product: FOOD,
    severity: 'medium', // no `type`: PRIN from the notation
    source_classification: 'PRIN',
    remedy: 'unknown',
    recall_date: '2026-03-09',
    published_date: '2026-03-09',
    countries: ['GB'],
    url: 'https://www.food.gov.uk/news-alerts/alert/fsa-prin-93-2026',
    identifiers: [],
  },
];

test('normalises every fixture alert to the draft written by hand', () => {
  const parsed = ukFsa.parse({ name: 'page-0001.json', body: FIXTURE });
  assert.deepEqual(parsed.drafts, EXPECTED);
  assert.equal(parsed.dataAsOf, '2026-03-14T08:30:00Z', 'the newest modification on the first page');
  assert.equal(
    ukFsa.parse({ name: 'page-0002.json', body: FIXTURE }).dataAsOf,
    null,
    'later pages give no stamp',
  );
});

test('reads the alert type from the type URIs, else from the notation', () => {
  assert.equal(
    fsaAlertType({
      notation: 'X',
      type: ['http://data.food.gov.uk/food-alerts/def/Alert', 'http://data.food.gov.uk/food-alerts/def/FAFA'],
    }),
    'FAFA',
  );
  assert.equal(fsaAlertType({ notation: 'FSA-AA-01-2018' }), 'AA');
  assert.equal(
    fsaAlertType({ notation: 'FSA-PRIN-01-2018', type: 'http://data.food.gov.uk/food-alerts/def/Alert' }),
    'PRIN',
  );
  assert.equal(fsaAlertType({ notation: 'FSS-XX-1' }), null);
});

test('classifies hazards and remedies', () => {
  assert.equal(fsaHazard('AA', 'The product contains milk.', null), 'undeclared_allergen');
  assert.equal(fsaHazard('AA', null, null), 'undeclared_allergen');
  assert.equal(
    fsaHazard('PRIN', 'Salmonella has been found in the product.', null),
    'microbial_contamination',
  );
  assert.equal(fsaHazard('PRIN', null, null), null);
  assert.equal(fsaRemedy('Do not eat it. Return it to the store for a full refund.', null), 'refund');
  assert.equal(fsaRemedy('If you have an allergy to milk do not eat it.', null), 'dispose');
  assert.equal(fsaRemedy('No action is required by consumers.', 'The product will be replaced.'), 'replace');
  assert.equal(fsaRemedy(null, 'The business is recalling the product.'), 'other');
  assert.equal(fsaRemedy(null, null), 'unknown');
});

test('reads dates and date-times, refusing impossible days', () => {
  assert.equal(fsaDate('2026-02-16'), '2026-02-16');
  assert.equal(fsaDate('2026-02-16T21:14:53.556Z'), '2026-02-16');
  assert.equal(fsaDate('2026-02-30'), null);
  assert.equal(fsaDate(undefined), null);
});

function page(items: unknown[]): Buffer {
  return Buffer.from(JSON.stringify({ meta: { publisher: 'TEST' }, items }));
}

test('fails loudly with a format error when the page shape drifts', () => {
  const bad: [string, Buffer][] = [
    ['not JSON', Buffer.from('<html>')],
    ['no items', Buffer.from(JSON.stringify({ meta: {} }))],
    ['items not an array', Buffer.from(JSON.stringify({ items: {} }))],
  ];
  for (const [why, body] of bad) {
    assert.throws(
      () => ukFsa.parse({ name: 'page-0001.json', body, url: 'https://fsa.test/x' }),
      (e: unknown) =>
        e instanceof UpstreamError && e.failure === 'format' && e.details.url === 'https://fsa.test/x',
      why,
    );
  }
});

test('sets aside an alert that drifted, with its place and reason, and reads the rest', () => {
  const bad: BadRecord[] = [
    ['an alert without a notation', { title: 'x' }, 'items[0]', /notation/],
    ['an empty notation', { notation: '' }, 'items[1]', /notation/],
    [
      'a title of the wrong type',
      { notation: 'FSA-AA-1-2026', title: 42 },
      'items[2] (FSA-AA-1-2026)',
      /title/,
    ],
    [
      'a batch code of the wrong type',
      { notation: 'FSA-AA-2-2026', productDetails: [{ batchDescription: [{ batchCode: 5 }] }] },
      'items[3] (FSA-AA-2-2026)',
      /batchCode/,
    ],
    [
      'problem of the wrong type',
      { notation: 'FSA-AA-3-2026', problem: 'milk' },
      'items[4] (FSA-AA-3-2026)',
      /problem/,
    ],
    [
      'type of the wrong type',
      { notation: 'FSA-AA-4-2026', type: { '@id': 'AA' } },
      'items[5] (FSA-AA-4-2026)',
      /type/,
    ],
  ];
  const parsed = ukFsa.parse({
    name: 'page-0001.json',
    body: page([...bad.map(([, item]) => item), { notation: 'FSA-AA-5-2026', title: 'A good alert' }]),
  });
  assertSetAside(parsed, ['FSA-AA-5-2026'], bad);
});

test('reads labels given as lists, as real alerts give country[].label', () => {
  const [draft] = ukFsa.parse({
    name: 'page-0001.json',
    body: page([
      {
        notation: 'FSA-PRIN-98-2026',
        country: [
          {
            '@id': 'http://data.food.gov.uk/codes/geographies/countries/GB-ENG',
            label: ['England', 'England'],
          },
        ],
        consumerAdvice: {
          label: [{ '@value': 'Do not eat it; return it for a full refund.', '@language': 'en' }],
        },
      },
    ]),
  }).drafts;
  assert.equal(draft?.recordId, 'FSA-PRIN-98-2026');
  assert.equal(draft?.remedy, 'refund');
  assert.deepEqual(draft?.countries, ['GB']);
});

test('accepts an empty page, unknown properties and labelled values in either shape', () => {
  assert.deepEqual(ukFsa.parse({ name: 'page-0001.json', body: page([]) }), {
    dataAsOf: null,
    drafts: [],
    setAside: [],
  });
  const [draft] = ukFsa.parse({
    name: 'x.json',
    body: page([
      {
        notation: 'FSA-PRIN-99-2026',
        newProperty: { a: 1 },
        consumerAdvice: { label: 'Do not eat it; throw it away.' },
        actionTaken: ['Recalled.', { '@value': 'Notices displayed.' }],
        productDetails: { batchDescription: 'Lot 12345 only' },
      },
    ]),
  }).drafts;
  assert.equal(draft?.remedy, 'dispose');
  assert.deepEqual(draft?.identifiers, [
    { kind: 'lot', value: '12345', normalized: '12345', confidence: 'inferred' },
  ]);
  assert.equal(draft?.recall_date, null);
  assert.equal(draft?.url, null);
});

// --- fetching against a local agency --------------------------------------------------------

function pageFetcher(): PageFetcher {
  const client = createUpstreamClient({ timeoutMs: 2_000, retries: 0, sleep: async () => {} });
  return { get: async (url) => ({ status: 200, body: (await client.get(url)).body }) };
}

async function collect(pages: AsyncIterable<RawPage>): Promise<RawPage[]> {
  const out: RawPage[] = [];
  for await (const p of pages) out.push(p);
  return out;
}

function alerts(from: number, count: number): unknown[] {
  return Array.from({ length: count }, (_, i) => ({
    notation: `FSA-PRIN-${from + i}-2099`,
    title: `TEST DATA alert ${from + i}`,
    created: '2099-01-01',
  }));
}

const json = (body: Buffer) => (_req: unknown, res: ServerResponse) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(body);

const path = (offset: number, since = '') =>
  `/food-alerts/id?_limit=${FSA_PAGE_LIMIT}&_offset=${offset}&_sort=-created&_view=full${since ? `&since=${since}` : ''}`;

test('pages with _limit and _offset, newest first, until a short page', async (t) => {
  const agency = await scriptedAgency(t, [
    [path(0), json(page(alerts(0, FSA_PAGE_LIMIT)))],
    [path(100), json(page(alerts(100, FSA_PAGE_LIMIT)))],
    [path(200), json(page(alerts(200, 3)))],
  ]);
  const ctx: FetchContext = {
    baseUrl: `${agency.base}/`,
    fetcher: pageFetcher(),
    now: new Date(),
    since: null,
  };
  const pages = await collect(ukFsa.fetch(ctx));
  await agency.finish();
  assert.deepEqual(
    pages.map((p) => [p.name, p.url]),
    [
      ['page-0001.json', agency.url(path(0))],
      ['page-0002.json', agency.url(path(100))],
      ['page-0003.json', agency.url(path(200))],
    ],
  );
  const drafts = pages.flatMap((p) => ukFsa.parse(p).drafts);
  assert.equal(drafts.length, 203);
  assert.equal(new Set(drafts.map((d) => d.recordId)).size, 203);
  for (const p of pages) assert.equal(ukFsa.acceptsFile(p.name), true);
});

test('an exactly full last page ends on the empty page after it', async (t) => {
  const agency = await scriptedAgency(t, [
    [path(0), json(page(alerts(0, FSA_PAGE_LIMIT)))],
    [path(100), json(page([]))],
  ]);
  const pages = await collect(
    ukFsa.fetch({ baseUrl: agency.base, fetcher: pageFetcher(), now: new Date(), since: null }),
  );
  await agency.finish();
  assert.deepEqual(
    pages.map((p) => p.name),
    ['page-0001.json'],
  );
});

test('an incremental run asks for changes since the last success minus two days', async (t) => {
  const since = new Date('2026-03-15T06:30:00.250Z');
  assert.equal(windowStart(since), '2026-03-13T06:30:00Z');
  const agency = await scriptedAgency(t, [[path(0, '2026-03-13T06:30:00Z'), json(FIXTURE)]]);
  const pages = await collect(
    ukFsa.fetch({ baseUrl: agency.base, fetcher: pageFetcher(), now: since, since }),
  );
  await agency.finish();
  assert.deepEqual(
    pages.map((p) => p.name),
    ['page-0001.json'],
  );
  assert.equal(ukFsa.parse(pages[0]!).drafts.length, 4);
});

test('when nothing changed, an incremental run observes the newest page instead', async (t) => {
  const since = new Date('2026-03-15T06:30:00Z');
  const agency = await scriptedAgency(t, [
    [path(0, '2026-03-13T06:30:00Z'), json(page([]))],
    [path(0), json(FIXTURE)],
  ]);
  const pages = await collect(
    ukFsa.fetch({ baseUrl: agency.base, fetcher: pageFetcher(), now: since, since }),
  );
  await agency.finish();
  assert.deepEqual(
    pages.map((p) => [p.name, p.url]),
    [['page-0001.json', agency.url(path(0))]],
  );
});

test('a server that ignores _offset is a format error, not an endless loop', async (t) => {
  const full = page(alerts(0, FSA_PAGE_LIMIT));
  const agency = await scriptedAgency(t, [
    [path(0), json(full)],
    [path(100), json(full)],
  ]);
  await assert.rejects(
    collect(ukFsa.fetch({ baseUrl: agency.base, fetcher: pageFetcher(), now: new Date(), since: null })),
    (e: unknown) => e instanceof UpstreamError && e.failure === 'format',
  );
  await agency.finish();
});

test('builds the documented list address', () => {
  assert.equal(
    fsaListUrl('https://data.food.gov.uk/', 200, null),
    'https://data.food.gov.uk/food-alerts/id?_limit=100&_offset=200&_sort=-created&_view=full',
  );
});

test('describes the feed: meta and licence', () => {
  const { meta } = ukFsa;
  assert.equal(meta.id, 'uk-fsa');
  assert.equal(meta.agency, 'Food Standards Agency');
  assert.equal(meta.jurisdiction, 'GB');
  assert.equal(meta.licence.id, 'OGL-UK-3.0');
  assert.equal(
    meta.licence.url,
    'https://www.nationalarchives.gov.uk/doc/open-government-licence/version/3/',
  );
  assert.equal(
    meta.licence.attribution,
    'Contains public sector information licensed under the Open Government Licence v3.0.',
  );
  assert.equal(meta.defaultBaseUrl, 'https://data.food.gov.uk');
  assert.equal(ukFsa.acceptsFile('notes.txt'), false);
});
