import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { recallId, type RecallDraft } from '../../../../src/domain/recall.ts';
import { UpstreamError } from '../../../../src/ingest/errors.ts';
import { createUpstreamClient } from '../../../../src/ingest/http-client.ts';
import type { FetchContext, PageFetcher, RawPage } from '../../../../src/ingest/source.ts';
import { isDateLike } from '../../../../src/ingest/extract/code-shapes.ts';
import { barcodeFieldIdentifiers, codeFieldIdentifiers } from '../../../../src/ingest/extract/field-codes.ts';
import {
  SAFETY_GATE_LIST_PATH,
  safetyGateReportUrl,
  selectReports,
} from '../../../../src/ingest/sources/eu-safety-gate/fetch.ts';
import { euSafetyGate } from '../../../../src/ingest/sources/eu-safety-gate/index.ts';
import {
  safetyGateHazard,
  safetyGateRemedy,
  safetyGateSeverity,
} from '../../../../src/ingest/sources/eu-safety-gate/normalise.ts';
import { parseSafetyGatePage, safetyGateDate } from '../../../../src/ingest/sources/eu-safety-gate/schema.ts';
import { scriptedAgency } from '../../../support/scripted-agency.ts';

const FIXTURES = new URL('../../../fixtures/eu-safety-gate/', import.meta.url);
const fixture = (name: string): Buffer => readFileSync(new URL(name, FIXTURES));
const REPORTS = ['report-10000910.xml', 'report-10000911.xml', 'report-10000912.xml'];

function drafts(name: string): RecallDraft[] {
  return euSafetyGate.parse({ name, body: fixture(name) }).drafts;
}

const ALERT = 'https://ec.europa.eu/safety-gate-alerts/screen/webReport/alertDetail/';

/** Every fixture record, as it must normalise (written by hand from the fixture files). */
const EXPECTED: RecallDraft[] = [
  {
    recordId: 'SR/90000/26',
    title: 'Fictional Kidswear (fictional brand) TEST DATA Rain jacket',
    summary:
      'TEST DATA. The jacket has functional cords in the hood area. A child could become trapped by the cords during activity, leading to strangulation.',
    hazard: {
      category: 'strangulation',
      text: 'TEST DATA. The jacket has functional cords in the hood area. A child could become trapped by the cords during activity, leading to strangulation.',
    },
    product: {
      category: 'Clothing, textiles and fashion items',
      brands: ['Fictional Kidswear (fictional brand)'],
      models: ['RJ-2231'],
    },
    severity: 'low',
    source_classification: 'Low risk',
    remedy: 'other', // warnings on the product ask nothing of consumers
    recall_date: '2026-03-06',
    published_date: '2026-03-06',
    countries: ['PL'],
    url: `${ALERT}9990000`,
    identifiers: [
      { kind: 'gtin', value: '2098765432103', normalized: '02098765432103', confidence: 'exact' },
      { kind: 'model', value: 'RJ-2231', normalized: 'RJ2231', confidence: 'exact' },
    ],
  },
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
      category: 'Toys',
      brands: ['Fictional Toyworks (fictional brand)'],
      models: ['GS-100', 'GS-200'],
    },
    severity: 'serious',
    source_classification: 'Serious risk',
    remedy: 'stop_use',
    recall_date: '2026-03-13',
    published_date: '2026-03-13',
    countries: ['DE'],
    url: `${ALERT}9990001`,
    identifiers: [
      { kind: 'batch', value: 'B2301', normalized: 'B2301', confidence: 'exact' },
      { kind: 'batch', value: 'B2302', normalized: 'B2302', confidence: 'exact' },
      // "2001234567894", the second barcode of the field, fails its check digit and is dropped
      { kind: 'gtin', value: '2001234567893', normalized: '02001234567893', confidence: 'exact' },
      { kind: 'model', value: 'GS-100', normalized: 'GS100', confidence: 'exact' },
      { kind: 'model', value: 'GS-200', normalized: 'GS200', confidence: 'exact' },
    ],
  },
  {
    recordId: 'SR/90002/26',
    title: 'TEST DATA Universal travel plug', // brand "Unknown" is no brand
    summary:
      'TEST DATA. Live parts are accessible when the plug is partially inserted, and the insulation is insufficient. The user could touch live parts and suffer an electric shock or burns.',
    hazard: {
      category: 'electrical_shock', // "Burns, Electric shock": electric shock comes first in the shared table
      text: 'TEST DATA. Live parts are accessible when the plug is partially inserted, and the insulation is insufficient. The user could touch live parts and suffer an electric shock or burns.',
    },
    product: { category: 'Electrical appliances and equipment', brands: [], models: ['TA-9 (white)'] },
    severity: 'high',
    source_classification: 'High risk',
    remedy: 'other',
    recall_date: '2026-03-13',
    published_date: '2026-03-13',
    countries: ['CZ'],
    url: `${ALERT}9990002`,
    // "TA-9 (white)" is not a bare code and has no label: not taken; batch "Unknown" is a placeholder
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
      category: 'Motor vehicles',
      brands: ['Fictional Motors (fictional brand)'],
      models: ['e9*2007/46*9999*'],
    },
    severity: 'serious',
    source_classification: 'Serious risk',
    remedy: 'other', // a vehicle recall from end users is a repair campaign the report does not spell out
    recall_date: '2026-03-13',
    published_date: '2026-03-13',
    countries: ['NL'],
    url: `${ALERT}9990003`,
    // the batch field holds a production period, not batch codes
    identifiers: [
      { kind: 'model', value: 'e9*2007/46*9999*', normalized: 'E92007469999', confidence: 'exact' },
    ],
  },
  {
    recordId: 'SR/90004/26',
    title: 'Fictional Nursery Co. (fictional brand) TEST DATA Snuggle sleeping bag',
    summary: 'TEST DATA. The neck opening is too large, so a baby could slip inside the bag and suffocate.',
    hazard: {
      category: 'suffocation',
      text: 'TEST DATA. The neck opening is too large, so a baby could slip inside the bag and suffocate.',
    },
    product: {
      category: "Childcare articles and children's equipment",
      brands: ['Fictional Nursery Co. (fictional brand)'],
      models: [],
    },
    severity: 'unknown',
    source_classification: 'Other risk level',
    remedy: 'other',
    recall_date: '2026-03-13',
    published_date: '2026-03-13',
    countries: ['FR'],
    url: `${ALERT}9990004`,
    identifiers: [
      // labelled in the description ("batch number 7731"); the batch field "2025/07, 2025/08" holds dates
      { kind: 'batch', value: '7731', normalized: '7731', confidence: 'inferred' },
      { kind: 'gtin', value: '2 912345 678906', normalized: '02912345678906', confidence: 'exact' },
    ],
  },
  {
    recordId: 'SR/90005/26',
    title: 'TEST DATA Brightening cream',
    summary:
      'TEST DATA. The product contains mercury (measured value: 0.2 % by weight). Mercury can accumulate in the body and damage the kidneys and nervous system.',
    hazard: {
      category: 'chemical',
      text: 'TEST DATA. The product contains mercury (measured value: 0.2 % by weight). Mercury can accumulate in the body and damage the kidneys and nervous system.',
    },
    product: { category: 'Cosmetics', brands: [], models: ['50 ml jar'] },
    severity: 'serious',
    source_classification: 'Serious risk',
    remedy: 'stop_use',
    recall_date: '2026-03-20',
    published_date: '2026-03-20',
    countries: ['SE'],
    url: `${ALERT}9990005`,
    identifiers: [
      { kind: 'batch', value: '4411', normalized: '4411', confidence: 'exact' },
      { kind: 'batch', value: '4412', normalized: '4412', confidence: 'exact' },
      { kind: 'gtin', value: '2500000000010', normalized: '02500000000010', confidence: 'exact' },
      { kind: 'gtin', value: '2500000000027', normalized: '02500000000027', confidence: 'exact' },
    ],
  },
];

test('normalises every fixture notification to the draft written by hand', () => {
  const all = REPORTS.flatMap(drafts);
  assert.equal(all.length, EXPECTED.length);
  for (const expected of EXPECTED) {
    assert.deepEqual(
      all.find((d) => d.recordId === expected.recordId),
      expected,
      expected.recordId,
    );
  }
});

test('the report list yields no drafts and dates the feed by its newest report', () => {
  assert.deepEqual(euSafetyGate.parse({ name: 'list.xml', body: fixture('list.xml') }), {
    dataAsOf: '2026-03-20',
    drafts: [],
    setAside: [],
  });
  const doc = parseSafetyGatePage(fixture('list.xml'));
  assert.equal(doc.kind, 'list');
  assert.deepEqual(
    doc.kind === 'list' ? doc.reports.map((r) => [r.id, r.reference, r.publicationDate]) : [],
    [
      ['10000910', 'Report-2026-10', '2026-03-06'],
      ['10000912', 'Report-2026-12', '2026-03-20'],
      ['10000911', 'Report-2026-11', '2026-03-13'],
    ],
  );
  for (const name of REPORTS) assert.equal(euSafetyGate.parse({ name, body: fixture(name) }).dataAsOf, null);
});

test('the recall id escapes the slashes of the case number', () => {
  assert.equal(recallId('eu-safety-gate', 'SR/90001/26'), 'eu-safety-gate.SR_2f90001_2f26');
  assert.equal(recallId('eu-safety-gate', 'A12/00123/26'), 'eu-safety-gate.A12_2f00123_2f26');
});

test('maps risk levels to severities and keeps unknown levels unknown', () => {
  const cases: [string | null, string][] = [
    ['Serious risk', 'serious'],
    ['SERIOUS RISK', 'serious'],
    ['High risk', 'high'],
    ['Medium risk', 'medium'],
    ['Low risk', 'low'],
    ['Other risk level', 'unknown'],
    ['Other alert type', 'unknown'],
    ['Something new', 'unknown'],
    [null, 'unknown'],
  ];
  for (const [level, severity] of cases) assert.equal(safetyGateSeverity(level), severity, String(level));
});

test('maps risk types to hazard categories, the most specific harm first', () => {
  assert.equal(safetyGateHazard('Choking', null), 'choking');
  assert.equal(safetyGateHazard('Electric shock', null), 'electrical_shock');
  assert.equal(safetyGateHazard('Cuts', null), 'laceration');
  assert.equal(safetyGateHazard('Microbiological', null), 'microbial_contamination');
  assert.equal(safetyGateHazard('Damage to hearing', null), 'injury');
  assert.equal(safetyGateHazard('Injuries, Fire', null), 'fire');
  assert.equal(safetyGateHazard('Chemical; Choking', null), 'chemical');
  // a type naming no harm of ours lets the danger prose decide, else it is "other"
  assert.equal(safetyGateHazard('Environment', 'The product contains lead in the solder.'), 'chemical');
  assert.equal(safetyGateHazard('Environment', null), 'other');
  assert.equal(safetyGateHazard(null, 'Small parts can be swallowed.'), 'choking');
  assert.equal(safetyGateHazard(null, null), null);
});

test('maps measures to remedies', () => {
  assert.equal(safetyGateRemedy('Recall of the product from end users', 'Toys'), 'stop_use');
  assert.equal(safetyGateRemedy('Recall of the product from end users', 'Motor vehicles'), 'other');
  assert.equal(safetyGateRemedy('Withdrawal of the product from the market', 'Toys'), 'other');
  assert.equal(
    safetyGateRemedy('Ban on the marketing of the product and any accompanying measures', null),
    'other',
  );
  assert.equal(safetyGateRemedy('Import rejected at border', null), 'other');
  assert.equal(
    safetyGateRemedy('Recall of the product from end users; replacement of the product', 'Toys'),
    'replace',
  );
  assert.equal(safetyGateRemedy(null, 'Toys'), 'unknown');
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

test('takes valid barcodes from a barcode field and drops invalid ones', () => {
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
  assert.deepEqual(ids('12345'), []);
  assert.deepEqual(ids('unknown'), []);
});

test('reads the optional countries element, leaving unknown names out', () => {
  const xml = `<?xml version="1.0"?><Safety-Gate><report_date>01/04/2026</report_date><notifications>
    <caseNumber>SR/90009/26</caseNumber><notifyingCountry>Northern Ireland (UK)</notifyingCountry>
    <countries>Belgium, Luxembourg, Atlantis, Belgium</countries></notifications></Safety-Gate>`;
  const [draft] = euSafetyGate.parse({ name: 'x.xml', body: Buffer.from(xml) }).drafts;
  assert.deepEqual(draft?.countries, ['GB', 'BE', 'LU']);
  assert.equal(draft?.severity, 'unknown');
  assert.equal(draft?.remedy, 'unknown');
  assert.deepEqual(draft?.hazard, { category: null, text: null });
  assert.equal(draft?.title, null);
  assert.equal(draft?.url, null);
});

test('fails loudly with a format error when a page drifts', () => {
  const bad: [string, Buffer][] = [
    ['not XML', Buffer.from('{"items": []}')],
    ['malformed XML', Buffer.from('<Safety-Gate><report_date>13/03/2026</Safety-Gate>')],
    ['an HTML shell', Buffer.from('<html><body><script src="app.js"></script></body></html>')],
    ['neither list nor report', Buffer.from('<Safety-Gate><other>1</other></Safety-Gate>')],
    [
      'a report date that is no date',
      Buffer.from('<Safety-Gate><report_date>31/02/2026</report_date></Safety-Gate>'),
    ],
    [
      'a list entry without a report id',
      Buffer.from(
        '<Safety-Gate><weeklyReport><publicationDate>13/03/2026</publicationDate><URL>https://ec.europa.eu/x</URL></weeklyReport></Safety-Gate>',
      ),
    ],
    [
      'a list entry without a publication date',
      Buffer.from(
        '<Safety-Gate><weeklyReport><URL>https://ec.europa.eu/safety-gate-alerts/api/download/weeklyReport/detail/xml/1?language=en</URL></weeklyReport></Safety-Gate>',
      ),
    ],
  ];
  for (const [why, body] of bad) {
    assert.throws(
      () => euSafetyGate.parse({ name: 'x.xml', body, url: 'https://sg.test/x' }),
      (e: unknown) =>
        e instanceof UpstreamError && e.failure === 'format' && e.details.url === 'https://sg.test/x',
      why,
    );
  }
});

test('sets aside a notification that drifted, with its place and reason, and reads the rest', () => {
  const parsed = euSafetyGate.parse({
    name: 'x.xml',
    body: Buffer.from(
      '<?xml version="1.0"?><Safety-Gate><report_date>13/03/2026</report_date>' +
        '<notifications><product>x</product></notifications>' +
        '<notifications><caseNumber>SR/1/26</caseNumber><danger><p>x</p></danger></notifications>' +
        '<notifications><caseNumber>SR/2/26</caseNumber><product>Toy</product></notifications>' +
        '</Safety-Gate>',
    ),
  });
  assert.deepEqual(
    parsed.drafts.map((d) => d.recordId),
    ['SR/2/26'],
  );
  assert.deepEqual(
    parsed.setAside.map((s) => s.record),
    ['notifications[0]', 'notifications[1] (SR/1/26)'],
  );
  assert.match(parsed.setAside[0]!.reason, /caseNumber/);
  assert.match(parsed.setAside[1]!.reason, /danger/);
});

test('reads dates as the reports print them and refuses impossible ones', () => {
  assert.equal(safetyGateDate('13/03/2026'), '2026-03-13');
  assert.equal(safetyGateDate('2026-03-13'), '2026-03-13');
  assert.equal(safetyGateDate('29/02/2026'), null);
  assert.equal(safetyGateDate('03/13/2026'), null);
});

test('selects every report on a first run and, later, the recent ones plus the newest, oldest first', () => {
  const doc = parseSafetyGatePage(fixture('list.xml'));
  assert.ok(doc.kind === 'list');
  assert.deepEqual(
    selectReports(doc.reports, null).map((r) => r.id),
    ['10000910', '10000911', '10000912'],
  );
  // since 2026-03-28 minus 14 days = 2026-03-14: only the report of 2026-03-20
  assert.deepEqual(
    selectReports(doc.reports, new Date('2026-03-28T06:00:00Z')).map((r) => r.id),
    ['10000912'],
  );
  // long after the last report: still the newest one, so a run is never empty
  assert.deepEqual(
    selectReports(doc.reports, new Date('2026-09-01T00:00:00Z')).map((r) => r.id),
    ['10000912'],
  );
  assert.deepEqual(
    selectReports(doc.reports, new Date('2026-03-21T00:00:00Z')).map((r) => r.id),
    ['10000911', '10000912'],
  );
  assert.deepEqual(
    selectReports(doc.reports, new Date('2026-03-20T00:00:00Z')).map((r) => r.id),
    ['10000910', '10000911', '10000912'],
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

const reportPath = (id: string) =>
  `/safety-gate-alerts/api/download/weeklyReport/detail/xml/${id}?language=en&search=WEB_REPORT%7C:%7C${id}`;

test('fetches the list, then every listed report oldest first, from a local agency', async (t) => {
  const serve = (name: string) => (_req: unknown, res: ServerResponse) =>
    res.writeHead(200, { 'content-type': 'application/xml' }).end(fixture(name));
  const agency = await scriptedAgency(t, [
    [SAFETY_GATE_LIST_PATH, serve('list.xml')],
    [reportPath('10000910'), serve('report-10000910.xml')],
    [reportPath('10000911'), serve('report-10000911.xml')],
    [reportPath('10000912'), serve('report-10000912.xml')],
  ]);
  const ctx: FetchContext = {
    baseUrl: `${agency.base}/`,
    fetcher: pageFetcher(),
    now: new Date(),
    since: null,
  };
  const pages = await collect(euSafetyGate.fetch(ctx));
  await agency.finish();

  assert.deepEqual(
    pages.map((p) => p.name),
    ['list.xml', 'report-0010000910.xml', 'report-0010000911.xml', 'report-0010000912.xml'],
  );
  assert.equal(pages[1]?.url, agency.url(reportPath('10000910')));
  assert.equal(safetyGateReportUrl('https://ec.europa.eu/', '7'), `https://ec.europa.eu${reportPath('7')}`);
  const parsed = pages.map((p) => euSafetyGate.parse(p));
  assert.equal(parsed[0]?.dataAsOf, '2026-03-20');
  assert.deepEqual(
    parsed.flatMap((p) => p.drafts.map((d) => d.recordId)),
    ['SR/90000/26', 'SR/90001/26', 'SR/90002/26', 'SR/90003/26', 'SR/90004/26', 'SR/90005/26'],
  );
  for (const p of pages) assert.equal(euSafetyGate.acceptsFile(p.name), true);
  assert.equal(euSafetyGate.acceptsFile('notes.txt'), false);
});

test('an incremental run reads only the reports since the last success, minus the margin', async (t) => {
  const agency = await scriptedAgency(t, [
    [SAFETY_GATE_LIST_PATH, (_req, res) => res.writeHead(200).end(fixture('list.xml'))],
    [reportPath('10000912'), (_req, res) => res.writeHead(200).end(fixture('report-10000912.xml'))],
  ]);
  const ctx: FetchContext = {
    baseUrl: agency.base,
    fetcher: pageFetcher(),
    now: new Date('2026-03-28T06:00:00Z'),
    since: new Date('2026-03-28T06:00:00Z'),
  };
  const pages = await collect(euSafetyGate.fetch(ctx));
  await agency.finish();
  assert.deepEqual(
    pages.map((p) => p.name),
    ['list.xml', 'report-0010000912.xml'],
  );
});

test('a list address that serves something else is a format error, and an agency error propagates', async (t) => {
  const agency = await scriptedAgency(t, [
    [SAFETY_GATE_LIST_PATH, (_req, res) => res.writeHead(200).end('<html><body>maintenance</body></html>')],
    [SAFETY_GATE_LIST_PATH, (_req, res) => res.writeHead(200).end(fixture('list.xml'))],
    [reportPath('10000910'), (_req, res) => res.writeHead(404).end()],
  ]);
  const ctx: FetchContext = { baseUrl: agency.base, fetcher: pageFetcher(), now: new Date(), since: null };
  await assert.rejects(
    collect(euSafetyGate.fetch(ctx)),
    (e: unknown) => e instanceof UpstreamError && e.failure === 'format',
  );
  await assert.rejects(
    collect(euSafetyGate.fetch(ctx)),
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
  assert.equal(meta.cadenceHours, 168);
  assert.equal(meta.defaultBaseUrl, 'https://ec.europa.eu');
});
