import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { recallId, type RecallDraft } from '../../../../src/domain/recall.ts';
import { UpstreamError } from '../../../../src/ingest/errors.ts';
import { createUpstreamClient } from '../../../../src/ingest/http-client.ts';
import type { FetchContext, PageFetcher, RawPage } from '../../../../src/ingest/source.ts';
import { isDateLike } from '../../../../src/ingest/extract/code-shapes.ts';
import { barcodeFieldIdentifiers, codeFieldIdentifiers } from '../../../../src/ingest/extract/field-codes.ts';
import {
  MAX_LIST_PAGES,
  MAX_PAGE_BYTES,
  SAFETY_GATE_API,
  selectNotifications,
} from '../../../../src/ingest/sources/eu-safety-gate/fetch.ts';
import { euSafetyGate } from '../../../../src/ingest/sources/eu-safety-gate/index.ts';
import {
  safetyGateHazard,
  safetyGateRemedy,
  safetyGateSeverity,
} from '../../../../src/ingest/sources/eu-safety-gate/normalise.ts';
import { safetyGateDate } from '../../../../src/ingest/sources/eu-safety-gate/schema.ts';
import { scriptedAgency, type Handler } from '../../../support/scripted-agency.ts';
import { requireShared, sharedPath } from '../../../support/shared.ts';

const FIXTURES = new URL('../../../fixtures/eu-safety-gate/', import.meta.url);
const fixture = (name: string): Buffer => readFileSync(new URL(name, FIXTURES));
const NOTIFICATIONS = ['99900001', '99900002', '99900003', '99900004'];

function parse(name: string, body: Buffer | string) {
  return euSafetyGate.parse({ name, body: typeof body === 'string' ? Buffer.from(body) : body });
}

const ALERT = 'https://ec.europa.eu/safety-gate-alerts/screen/webReport/alertDetail/';

/** Every fixture notification, as it must normalise (written by hand from the fixture files). */
const EXPECTED: RecallDraft[] = [
  {
    recordId: 'SR/90001/26',
    title: 'Fictional Toyworks (fictional brand) TEST DATA Glitter Slime',
    summary:
      'TEST DATA. The product contains an excessive amount of boron (measured value: up to 0.08 % by weight). Exposure to boron may harm the reproductive system.',
    hazard: {
      category: 'chemical',
      text: 'TEST DATA. The product contains an excessive amount of boron (measured value: up to 0.08 % by weight). Exposure to boron may harm the reproductive system.',
    },
    product: {
      category: 'toys',
      brands: ['Fictional Toyworks (fictional brand)'],
      models: ['GS-100', 'GS-200'], // one model field holding two models
    },
    severity: 'serious',
    source_classification: 'A12',
    remedy: 'stop_use',
    recall_date: '2026-02-20', // the measure's entry into force
    published_date: '2026-03-06',
    countries: ['DE', 'AT'], // notifying, then reacting; "Atlantis (fictional)" is no country
    url: `${ALERT}99900001?lang=en`,
    identifiers: [
      { kind: 'batch', value: 'B2301', normalized: 'B2301', confidence: 'exact' },
      { kind: 'batch', value: 'B2302', normalized: 'B2302', confidence: 'exact' },
      // "2001234567894", the second barcode, fails its check digit and is dropped
      { kind: 'gtin', value: '2001234567893', normalized: '02001234567893', confidence: 'exact' },
      { kind: 'model', value: 'GS-100', normalized: 'GS100', confidence: 'exact' },
      { kind: 'model', value: 'GS-200', normalized: 'GS200', confidence: 'exact' },
    ],
  },
  {
    recordId: 'SR/90002/26',
    title: 'TEST DATA Universal travel plug', // brand "Unknown" is no brand; no specific name
    summary:
      'TEST DATA. Live parts are accessible when the plug is partially inserted. The user could touch live parts and suffer an electric shock or burns.',
    hazard: {
      category: 'electrical_shock', // BURNS and ELECTRIC_SHOCK: electric shock comes first in the shared table
      text: 'TEST DATA. Live parts are accessible when the plug is partially inserted. The user could touch live parts and suffer an electric shock or burns.',
    },
    product: { category: 'electrical_appliances', brands: [], models: ['TA-9 (white)'] },
    severity: 'unknown', // a notification type other than A12
    source_classification: 'A11',
    remedy: 'other', // withdrawal and border rejection ask nothing of consumers
    recall_date: '2026-03-01', // the earlier of the two measures
    published_date: '2026-03-13',
    countries: ['CZ'],
    url: `${ALERT}99900002?lang=en`,
    // the barcode is no GTIN; "TA-9 (white)" is no bare code and has no label; batch "Unknown" is a placeholder
    identifiers: [],
  },
  {
    recordId: 'SR/90003/26',
    title: 'Fictional Motors (fictional brand) TEST DATA Roadster',
    summary:
      'TEST DATA. The passenger airbag may not deploy as intended in a crash, increasing the risk of injury.',
    hazard: {
      category: 'injury',
      text: 'TEST DATA. The passenger airbag may not deploy as intended in a crash, increasing the risk of injury.',
    },
    product: {
      category: 'motor_vehicles',
      brands: ['Fictional Motors (fictional brand)'],
      models: ['e9*2007/46*9999*'],
    },
    severity: 'serious',
    source_classification: 'A12',
    remedy: 'other', // a vehicle recall from consumers is a repair campaign the notice does not spell out
    recall_date: '2026-03-13', // no date in force: the publication date
    published_date: '2026-03-13',
    countries: ['NL'],
    url: `${ALERT}99900003?lang=en`,
    // the batch field holds a production period, not batch codes
    identifiers: [
      { kind: 'model', value: 'e9*2007/46*9999*', normalized: 'E92007469999', confidence: 'exact' },
    ],
  },
  {
    recordId: 'SR/90004/26',
    title: 'Fictional Nursery Co. (fictional brand) TEST DATA Snuggle sleeping bag',
    summary: 'TEST DATA. The neck opening is too large, so a baby could slip inside the bag.',
    hazard: {
      category: 'suffocation', // risk type OTHER: its own wording ("Suffocation") decides
      text: 'TEST DATA. The neck opening is too large, so a baby could slip inside the bag.',
    },
    product: { category: 'childcare', brands: ['Fictional Nursery Co. (fictional brand)'], models: [] },
    severity: 'serious',
    source_classification: 'A12',
    remedy: 'replace', // the measure's own wording offers a replacement
    recall_date: '2026-03-12',
    published_date: '2026-03-20',
    countries: ['FR'],
    url: `${ALERT}99900004?lang=en`,
    identifiers: [
      // labelled in the description ("batch number 7731"); the batch field "2025/07, 2025/08" holds dates
      { kind: 'batch', value: '7731', normalized: '7731', confidence: 'inferred' },
      { kind: 'gtin', value: '2 912345 678906', normalized: '02912345678906', confidence: 'exact' },
    ],
  },
];

test('normalises every fixture notification to the draft written by hand', () => {
  const all = NOTIFICATIONS.flatMap((id) => {
    const page = parse(`notification-${id}.json`, fixture(`notification-${id}.json`));
    assert.deepEqual([page.dataAsOf, page.setAside], [null, []], id);
    return page.drafts;
  });
  assert.deepEqual(all, EXPECTED);
});

test('a list page yields no drafts and dates the feed by its newest modification', () => {
  assert.deepEqual(parse('list-page-0000.json', fixture('list-page-0000.json')), {
    dataAsOf: '2026-03-20T12:00:00.000Z',
    drafts: [],
    setAside: [],
  });
  // without modification dates, the newest publication dates it; without either, nothing does
  const page = (entries: object[]) => JSON.stringify({ content: entries, totalPages: 1 });
  assert.equal(
    parse('p.json', page([{ id: 1, publicationDate: '2026-04-01T10:00:00.000+02:00' }])).dataAsOf,
    '2026-04-01T08:00:00.000Z',
  );
  assert.equal(parse('p.json', page([{ id: 1 }])).dataAsOf, null);
});

test('the recall id escapes the slashes of the case number', () => {
  assert.equal(recallId('eu-safety-gate', 'SR/90001/26'), 'eu-safety-gate.SR_2f90001_2f26');
});

test('an Article 12 notification is a serious risk; other types are not graded', () => {
  const cases: [string | null, string][] = [
    ['A12', 'serious'],
    [' a12 ', 'serious'],
    ['A11', 'unknown'],
    ['A23', 'unknown'],
    [null, 'unknown'],
  ];
  for (const [type, severity] of cases) assert.equal(safetyGateSeverity(type), severity, String(type));
});

test('maps risk types to hazard categories, the most specific harm first', () => {
  const cases: [string[], string | null, string | null][] = [
    [['CHOKING'], null, 'choking'],
    [['ELECTRIC_SHOCK'], null, 'electrical_shock'],
    [['CUTS'], null, 'laceration'],
    [['ASPHYXIATION'], null, 'suffocation'],
    [['MICROBIOLOGICAL'], null, 'microbial_contamination'],
    [['DAMAGE_TO_SIGHT'], null, 'injury'],
    [['DAMAGE_TO_HEARING'], null, 'injury'],
    [['MEASUREMENT_INCORRECT'], null, 'quality_defect'],
    [['INJURIES', 'FIRE'], null, 'fire'],
    [['CHOKING', 'CHEMICAL'], null, 'chemical'],
    // a type naming no harm of ours lets the description decide, else it is "other"
    [['ENVIRONMENT'], 'The product contains lead in the solder.', 'chemical'],
    [['ENVIRONMENT'], null, 'other'],
    [['HEALTH_RISK_OTHER'], 'Nothing named.', 'other'],
    // an unknown type is read as words
    [['STRANGULATION_RISK'], null, 'strangulation'],
    [[], 'Small parts can be swallowed.', 'choking'],
    [[], null, null],
  ];
  for (const [types, description, category] of cases)
    assert.equal(safetyGateHazard(types, description), category, `${types.join('+')} / ${description}`);
});

test('maps measures to remedies', () => {
  const m = (category: string | null, wording: string | null = null) => ({ category, wording });
  assert.equal(safetyGateRemedy([m('PRODUCT_RECALL_FROM_CONSUMERS')], 'toys'), 'stop_use');
  assert.equal(safetyGateRemedy([m('PRODUCT_RECALL_FROM_CONSUMERS')], 'motor_vehicles'), 'other');
  assert.equal(safetyGateRemedy([m('PRODUCT_WITHDRAWAL_FROM_MARKET')], 'toys'), 'other');
  assert.equal(
    safetyGateRemedy([m('WARNING_CONSUMERS_OF_RISKS'), m('REMOVAL_FROM_ONLINE_MARKETPLACE')], 'toys'),
    'other',
  );
  assert.equal(
    safetyGateRemedy(
      [m('PRODUCT_WITHDRAWAL_FROM_MARKET'), m('PRODUCT_RECALL_FROM_CONSUMERS', 'Refund offered')],
      'toys',
    ),
    'refund',
  );
  assert.equal(safetyGateRemedy([m(null)], null), 'other');
  assert.equal(safetyGateRemedy([], 'toys'), 'unknown');
});

test('reads multi-valued code fields conservatively', () => {
  const ids = (raw: string, kind: 'model' | 'batch') =>
    codeFieldIdentifiers(raw, kind).identifiers.map((i) => [i.kind, i.value, i.normalized, i.confidence]);
  assert.deepEqual(ids('A1; B22, C333', 'model'), []); // "A1" normalises to 2 characters: a list item needs 3
  assert.deepEqual(ids('AB-123 & CD-456', 'model'), [
    ['model', 'AB-123', 'AB123', 'exact'],
    ['model', 'CD-456', 'CD456', 'exact'],
  ]);
  assert.deepEqual(ids('Art. no. 40512', 'model'), [['model', '40512', '40512', 'exact']]);
  // A product name among the codes, as the Safety Gate API serves some model fields.
  assert.deepEqual(ids('51234-000-0|1030099; FICTIONA ', 'model'), [
    ['model', '1030099', '1030099', 'exact'],
    ['model', '51234-000-0', '512340000', 'exact'],
  ]);
  assert.deepEqual(ids('Model 5, 10 and 20 litres', 'model'), []);
  assert.deepEqual(ids('ALL-IN-ONE 5', 'model'), [['model', 'ALL-IN-ONE 5', 'ALLINONE5', 'exact']]);
  assert.deepEqual(ids('N/A', 'batch'), []);
  assert.deepEqual(ids('All batches', 'batch'), []);
  assert.deepEqual(ids('12/05/2025', 'batch'), []);
  assert.deepEqual(ids('L123456\nL123457', 'batch'), [
    ['batch', 'L123456', 'L123456', 'exact'],
    ['batch', 'L123457', 'L123457', 'exact'],
  ]);
  // prose in a batch field: only a labelled value is taken, at the extractor's confidence
  assert.deepEqual(ids('Batches produced in March, lot 88123 only', 'batch'), [
    ['lot', '88123', '88123', 'inferred'],
  ]);
  assert.equal(isDateLike('2025/07'), true);
  assert.equal(isDateLike('2025/45'), false);
  assert.equal(isDateLike('05MAY25'), true);
});

test('takes valid GTINs from a barcode and nothing from a code that is no GTIN', () => {
  const ids = (raw: string) => barcodeFieldIdentifiers(raw).map((i) => [i.value, i.normalized]);
  assert.deepEqual(ids('2001234567893; 2001234567894'), [['2001234567893', '02001234567893']]);
  assert.deepEqual(ids('EAN: 2001234567893, 2001234567909'), [
    ['EAN: 2001234567893', '02001234567893'],
    ['2001234567909', '02001234567909'],
  ]);
  assert.deepEqual(ids('2001234567893 2001234567909'), [
    ['2001234567893', '02001234567893'],
    ['2001234567909', '02001234567909'],
  ]);
  assert.deepEqual(ids('2001234567893 (blue version)'), [['2001234567893', '02001234567893']]);
  // shapes of the real "barcodes" that are none: letters and digits, 17-18 characters
  assert.deepEqual(ids('TESTBCD0000000001'), []);
  assert.deepEqual(ids('T20010203000400001'), []);
  assert.deepEqual(ids('12345'), []);
  assert.deepEqual(ids('unknown'), []);
});

test('fails loudly with a format error when a page is not JSON or a list page drifts', () => {
  const bad: [string, string][] = [
    ['not JSON', '<html><body>maintenance</body></html>'],
    ['truncated JSON', '{"id": 1, "reference": "SR/1/26"'],
    ['an array', '[]'],
    ['a list whose content is no array', '{"content": {"id": 1}}'],
    ['a list of which no entry has an id', '{"content": [{"reference": "SR/1/26"}, {"id": "x"}]}'],
    ['a list with a wrong totalPages', '{"content": [{"id": 1}], "totalPages": "many"}'],
  ];
  for (const [why, body] of bad) {
    assert.throws(
      () => euSafetyGate.parse({ name: 'x.json', body: Buffer.from(body), url: 'https://sg.test/x' }),
      (e: unknown) =>
        e instanceof UpstreamError && e.failure === 'format' && e.details.url === 'https://sg.test/x',
      why,
    );
  }
});

test('sets aside a notification that drifted, or a list entry without an id, with the reason', () => {
  const good = JSON.parse(fixture('notification-99900001.json').toString()) as Record<string, unknown>;
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['no reference', { ...good, reference: undefined }, 'notification-1.json', /reference/],
    ['an empty reference', { ...good, reference: '' }, 'notification-1.json', /reference/],
    ['a textual id', { ...good, id: 'x' }, 'notification-1.json (SR/90001/26)', /\/id/],
    [
      'brands not a list',
      { ...good, product: { brands: 'x' } },
      'notification-1.json (SR/90001/26)',
      /brands/,
    ],
    [
      'a risk type as text',
      { ...good, risk: { riskType: 'CHOKING' } },
      'notification-1.json (SR/90001/26)',
      /riskType/,
    ],
  ];
  for (const [why, body, record, reason] of cases) {
    const parsed = parse('notification-1.json', JSON.stringify(body));
    assert.deepEqual(parsed.drafts, [], why);
    assert.equal(parsed.setAside.length, 1, why);
    assert.equal(parsed.setAside[0]!.record, record, why);
    assert.match(parsed.setAside[0]!.reason, reason, why);
  }
  const list = parse('list-page-0000.json', JSON.stringify({ content: [{ id: 7 }, { id: -1 }, 'x'] }));
  assert.deepEqual(
    list.setAside.map((s) => s.record),
    ['content[1] (-1)', 'content[2]'],
  );
});

test('unknown fields, nulls where arrays are, and a missing product give a draft, not a guess', () => {
  const [draft] = parse(
    'notification-5.json',
    JSON.stringify({
      id: 5,
      reference: ' SR/90005/26 ',
      product: null,
      risk: { riskType: null },
      extra: [1],
    }),
  ).drafts;
  assert.deepEqual(draft, {
    recordId: 'SR/90005/26',
    title: null,
    summary: null,
    hazard: { category: null, text: null },
    product: { category: null, brands: [], models: [] },
    severity: 'unknown',
    source_classification: null,
    remedy: 'unknown',
    recall_date: null,
    published_date: null,
    countries: [],
    url: `${ALERT}5?lang=en`,
    identifiers: [],
  });
});

test('reads ISO dates as written and refuses impossible ones', () => {
  assert.equal(safetyGateDate('2026-07-01T12:46:08.935Z'), '2026-07-01');
  assert.equal(safetyGateDate('2026-07-02T22:00:00.000+00:00'), '2026-07-02');
  assert.equal(safetyGateDate('2026-03-13'), '2026-03-13');
  assert.equal(safetyGateDate('2026-02-30T00:00:00Z'), null);
  assert.equal(safetyGateDate('13/03/2026'), null);
  assert.equal(safetyGateDate(null), null);
});

test('selects every listed notification on a first run and, later, those modified since, less the margin', () => {
  const listed = [
    { id: '4', modificationDate: '2026-03-20T12:00:00.000Z' },
    { id: '3', modificationDate: '2026-03-16T07:00:00.000Z' },
    { id: '2', modificationDate: null },
    { id: '1', modificationDate: '2026-03-09T08:30:00.000Z' },
    { id: '4', modificationDate: '2026-03-20T12:00:00.000Z' }, // listed twice as pages shifted
  ];
  const ids = (since: string | null) =>
    selectNotifications(listed, since === null ? null : new Date(since)).map((n) => n.id);
  assert.deepEqual(ids(null), ['4', '3', '2', '1']);
  // 2026-03-18 minus two days = 2026-03-16T08:00: 3 was modified an hour before; 2 has no date
  assert.deepEqual(ids('2026-03-18T08:00:00Z'), ['4', '2']);
  assert.deepEqual(ids('2026-03-18T07:00:00Z'), ['4', '3', '2']);
  // long after: still the first listed, so a quiet day is no empty run
  assert.deepEqual(
    selectNotifications(
      listed.filter((n) => n.id !== '2'),
      new Date('2026-09-01T00:00:00Z'),
    ).map((n) => n.id),
    ['4'],
  );
});

// --- fetching, against a local agency --------------------------------------------------------

function pageFetcher(): PageFetcher {
  const client = createUpstreamClient({ timeoutMs: 2_000, retries: 0, sleep: async () => {} });
  return { get: async (url, init) => ({ status: 200, body: (await client.get(url, init)).body }) };
}

async function collect(pages: AsyncIterable<RawPage>): Promise<RawPage[]> {
  const out: RawPage[] = [];
  for await (const p of pages) out.push(p);
  return out;
}

const LIST = SAFETY_GATE_API.listPath;
const detail = (id: string) => SAFETY_GATE_API.detailPath(id);

/** Answers `body` to a POST whose JSON body is the list query of `page`, 400 to anything else. */
function listAnswer(page: number, body: string | Buffer, queries: string[] = []) {
  return (req: IncomingMessage, res: ServerResponse) => {
    let query = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (query += chunk));
    req.on('end', () => {
      queries.push(`${req.method} ${req.headers['content-type']} ${query}`);
      const expected = req.method === 'POST' && query === SAFETY_GATE_API.listQuery(page);
      res.writeHead(expected ? 200 : 400, { 'content-type': 'application/json' }).end(expected ? body : '');
    });
  };
}

const serve = (body: string | Buffer) => (_req: unknown, res: ServerResponse) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(body);

/** A list page of fictional entries. */
const listPage = (ids: number[], more: { totalPages?: number; last?: boolean } = {}) =>
  JSON.stringify({
    content: ids.map((id) => ({ id, modificationDate: '2026-03-20T12:00:00.000Z' })),
    ...more,
  });

const ctxFor = (base: string, since: Date | null = null): FetchContext => ({
  baseUrl: `${base}/`,
  fetcher: pageFetcher(),
  now: new Date('2026-03-21T06:00:00Z'),
  since,
});

test('fetches the list with its POST query, then every listed notification, from a local agency', async (t) => {
  const queries: string[] = [];
  const agency = await scriptedAgency(t, [
    [LIST, listAnswer(0, fixture('list-page-0000.json'), queries)],
    ...['99900004', '99900003', '99900002', '99900001'].map((id): [string, Handler] => [
      detail(id),
      serve(fixture(`notification-${id}.json`)),
    ]),
  ]);
  const pages = await collect(euSafetyGate.fetch(ctxFor(agency.base)));
  await agency.finish();

  assert.deepEqual(queries, ['POST application/json {"language":"en","page":"0"}']);
  assert.match(String(agency.requests[0]?.headers.accept), /application\/json/);
  assert.deepEqual(
    pages.map((p) => p.name),
    [
      'list-page-0000.json',
      'notification-99900004.json',
      'notification-99900003.json',
      'notification-99900002.json',
      'notification-99900001.json',
    ],
  );
  assert.equal(pages[1]?.url, agency.url(detail('99900004')));
  assert.equal(detail('99900004'), '/safety-gate-alerts/public/api/notification/99900004?language=en');
  const parsed = pages.map((p) => euSafetyGate.parse(p));
  assert.equal(parsed[0]?.dataAsOf, '2026-03-20T12:00:00.000Z');
  assert.deepEqual(
    parsed.flatMap((p) => p.drafts.map((d) => d.recordId)),
    ['SR/90004/26', 'SR/90003/26', 'SR/90002/26', 'SR/90001/26'],
  );
  // The record addresses point at the public site, not at the address fetched from.
  assert.ok(parsed.every((p) => p.drafts.every((d) => d.url?.startsWith(ALERT))));
  for (const p of pages) assert.equal(euSafetyGate.acceptsFile(p.name), true);
  assert.equal(euSafetyGate.acceptsFile('list.xml'), false);
});

test('reads list pages until the last, and an incremental run only the details modified since', async (t) => {
  const old = (id: number) => ({ id, modificationDate: '2026-01-05T00:00:00.000Z' });
  const agency = await scriptedAgency(t, [
    [LIST, listAnswer(0, listPage([30, 29], { totalPages: 3 }))],
    [LIST, listAnswer(1, JSON.stringify({ content: [old(28), { id: 27 }], totalPages: 3 }))],
    [LIST, listAnswer(2, JSON.stringify({ content: [old(26)], last: true, totalPages: 3 }))],
    [detail('30'), serve(fixture('notification-99900004.json'))],
    [detail('29'), serve(fixture('notification-99900003.json'))],
    // 28 and 26 unchanged since; 27 has no modification date in the list: read
    [detail('27'), serve(fixture('notification-99900002.json'))],
  ]);
  const pages = await collect(euSafetyGate.fetch(ctxFor(agency.base, new Date('2026-03-20T06:00:00Z'))));
  await agency.finish();
  assert.deepEqual(
    pages.map((p) => p.name),
    [
      'list-page-0000.json',
      'list-page-0001.json',
      'list-page-0002.json',
      'notification-30.json',
      'notification-29.json',
      'notification-27.json',
    ],
  );
});

test(`reads at most ${MAX_LIST_PAGES} list pages, and stops when the page number is ignored`, async (t) => {
  const endless = await scriptedAgency(t, [
    ...Array.from({ length: MAX_LIST_PAGES }, (_, p): [string, Handler] => [
      LIST,
      listAnswer(p, listPage([1000 - p])),
    ]),
    [detail('1000'), serve(fixture('notification-99900001.json'))],
  ]);
  const pages = await collect(euSafetyGate.fetch(ctxFor(endless.base, new Date('2026-06-01T00:00:00Z'))));
  await endless.finish();
  assert.equal(pages.filter((p) => p.name.startsWith('list-page-')).length, MAX_LIST_PAGES);

  // The same page whatever the number asked: the second brings nothing new, and reading stops.
  const deaf = await scriptedAgency(t, [
    [LIST, serve(listPage([7], { totalPages: 50 }))],
    [LIST, serve(listPage([7], { totalPages: 50 }))],
    [detail('7'), serve(fixture('notification-99900001.json'))],
  ]);
  assert.equal((await collect(euSafetyGate.fetch(ctxFor(deaf.base)))).length, 3);
  await deaf.finish();
});

test('agency errors propagate: a list that is no list, a detail over the cap, a missing detail', async (t) => {
  const agency = await scriptedAgency(t, [
    [LIST, serve('{"data": {"items": []}, "version": 2}')],
    [LIST, serve(listPage([1], { last: true }))],
    [
      detail('1'),
      (_req, res) => {
        res.writeHead(200, { 'content-length': String(MAX_PAGE_BYTES + 1) });
        res.end();
      },
    ],
    [LIST, serve(listPage([2], { last: true }))],
    [detail('2'), (_req, res) => res.writeHead(404).end()],
  ]);
  const run = () => collect(euSafetyGate.fetch(ctxFor(agency.base)));
  await assert.rejects(run(), (e: unknown) => e instanceof UpstreamError && e.failure === 'format');
  await assert.rejects(run(), (e: unknown) => e instanceof UpstreamError && e.failure === 'too_large');
  await assert.rejects(
    run(),
    (e: unknown) => e instanceof UpstreamError && e.failure === 'http_status' && e.details.status === 404,
  );
  await agency.finish();
});

test('describes the feed: meta and licence', () => {
  const { meta } = euSafetyGate;
  assert.equal(meta.id, 'eu-safety-gate');
  assert.equal(meta.agency, 'European Commission – Safety Gate');
  assert.equal(meta.jurisdiction, 'EU');
  assert.equal(meta.licence.id, 'EU-Decision-2011/833');
  assert.equal(meta.licence.url, 'https://eur-lex.europa.eu/eli/dec/2011/833/oj');
  assert.match(meta.licence.attribution, /© European Union/);
  assert.equal(meta.cadenceHours, 24);
  assert.equal(meta.defaultBaseUrl, 'https://ec.europa.eu');
});

// --- the real notifications -------------------------------------------------------------------

/** The folder of real notifications: in the main mirror once moved there, else in `_incoming`. */
const REAL =
  sharedPath('upstream-samples', 'eu-safety-gate') ??
  sharedPath('upstream-samples', '_incoming', 'eu-safety-gate');

/**
 * The four real notifications, read by hand once (2026-07-02 copies of the JSON API): what each must
 * give. Titles, hazards, remedies and identifiers; the prose is the agency's and is not repeated here.
 */
const REAL_EXPECTED: Record<
  string,
  Pick<RecallDraft, 'title' | 'severity' | 'remedy' | 'recall_date' | 'published_date' | 'countries'> & {
    hazard: string;
    category: string;
    brands: string[];
    models: string[];
    identifiers: [string, string][];
  }
> = {
  // ELECTRIC_SHOCK; a recall from consumers in force 2026-05-18; "53113-000-0|1030051; ENFINIGY ": two models and a line name
  'SR/01942/26': {
    title: 'ZWILLING Contact grill',
    hazard: 'electrical_shock',
    category: 'electrical_appliances',
    brands: ['ZWILLING'],
    models: ['53113-000-0', '1030051'],
    severity: 'serious',
    remedy: 'stop_use',
    recall_date: '2026-05-18',
    published_date: '2026-07-01',
    countries: ['DE'],
    identifiers: [
      ['batch', '42BZ92'],
      ['gtin', '04009839681981'],
      ['model', '1030051'],
      ['model', '531130000'],
    ],
  },
  // DAMAGE_TO_SIGHT; a warning and a removal from a marketplace; both "barcodes" are no GTINs; no brand
  'SR/01950/26': {
    title: 'Jouet projecteur d’étoiles avec 10 diapositives, 1 lampe de poche, jouet conteur d’histoires',
    hazard: 'injury',
    category: 'toys',
    brands: [],
    models: ['7389-1'],
    severity: 'serious',
    remedy: 'other',
    recall_date: '2026-07-01',
    published_date: '2026-07-01',
    countries: ['FR'],
    identifiers: [['model', '73891']],
  },
  // DAMAGE_TO_SIGHT; two compulsory withdrawals in force 2026-05-20
  'SR/01948/26': {
    title: 'Sandowi Luz de escenario láser',
    hazard: 'injury',
    category: 'laser_pointers',
    brands: ['Sandowi'],
    models: ['Q-JC21'],
    severity: 'serious',
    remedy: 'other',
    recall_date: '2026-05-20',
    published_date: '2026-07-01',
    countries: ['ES'],
    identifiers: [
      ['gtin', '08401204820784'],
      ['model', 'QJC21'],
    ],
  },
  // CHOKING; a recall from consumers without a date in force
  'SR/01949/26': {
    title: 'Moni Little elephant pull box',
    hazard: 'choking',
    category: 'toys',
    brands: ['Moni'],
    models: ['2890'],
    severity: 'serious',
    remedy: 'stop_use',
    recall_date: '2026-07-01',
    published_date: '2026-07-01',
    countries: ['NL'],
    identifiers: [
      ['batch', 'MTLST18'],
      ['gtin', '03801005602476'],
      ['model', '2890'],
    ],
  },
};

test('every real notification normalises as read by hand, none set aside', (t) => {
  if (!requireShared(t, REAL, 'upstream-samples/_incoming/eu-safety-gate')) return;
  const names = readdirSync(REAL).filter((n) => euSafetyGate.acceptsFile(n));
  assert.ok(names.length >= 4, `${names.length} files`);
  const drafts = new Map<string, RecallDraft>();
  for (const name of names) {
    const page = parse(name, readFileSync(join(REAL, name)));
    assert.deepEqual(page.setAside, [], name);
    for (const d of page.drafts) drafts.set(d.recordId, d);
  }
  for (const [id, e] of Object.entries(REAL_EXPECTED)) {
    const d = drafts.get(id);
    assert.ok(d, id);
    assert.deepEqual(
      {
        title: d.title,
        hazard: d.hazard.category,
        category: d.product.category,
        brands: d.product.brands,
        models: d.product.models,
        severity: d.severity,
        remedy: d.remedy,
        recall_date: d.recall_date,
        published_date: d.published_date,
        countries: d.countries,
        identifiers: d.identifiers.map((i) => [i.kind, i.normalized]),
      },
      e,
      id,
    );
    assert.equal(d.source_classification, 'A12', id);
    assert.ok(d.hazard.text !== null && d.summary === d.hazard.text, id);
    assert.ok(
      d.identifiers.every((i) => i.confidence === 'exact'),
      id,
    );
    assert.match(
      d.url ?? '',
      /^https:\/\/ec\.europa\.eu\/safety-gate-alerts\/screen\/webReport\/alertDetail\/\d+\?lang=en$/,
    );
  }
});
