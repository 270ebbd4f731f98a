import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UpstreamError } from '../../../../src/ingest/errors.ts';
import { usFdaFood } from '../../../../src/ingest/sources/us-fda-food/index.ts';
import { compactToIsoDate as openFdaDate } from '../../../../src/domain/dates.ts';
import { productTitle } from '../../../../src/ingest/sources/openfda/normalise.ts';
import {
  assertIdentifiersReadByHand,
  assertOpenFdaMeta,
  loadSamplePage,
  parseSamplePage,
  type ExpectedIdentifier,
} from '../../../support/openfda.ts';
import { assertSetAside, type BadRecord } from '../../../support/set-aside.ts';

/**
 * The identifiers each real record must yield, written by reading its product_description,
 * code_info and more_code_info (the comment says why, where something is left out).
 * Sorted by (kind, normalized), as drafts carry them.
 */
const EXPECTED_IDENTIFIERS: Record<string, ExpectedIdentifier[]> = {
  // "UPC codes 6926145714029 and  6926145712902"; code_info "All lot codes." is a placeholder.
  'F-1575-2018': [
    ['upc', '6926145712902', '06926145712902', 'extracted'],
    ['upc', '6926145714029', '06926145714029', 'extracted'],
  ],
  // "UPC 77890 27864" has 10 digits: not a barcode; "Use By Date" is a date.
  'F-1340-2014': [['lot', '10313-8J', '103138J', 'inferred']],
  // The leading "085-CH-550-35" is an unlabelled item code.
  'F-0980-2020': [
    ['lot', '9280009', '9280009', 'inferred'],
    ['lot', '9280010', '9280010', 'inferred'],
    ['lot', '9280011', '9280011', 'inferred'],
    ['lot', '9280012', '9280012', 'inferred'],
  ],
  // "Code D16-095 & D-16-096": a bare "Code" label does not name lots.
  // "UPC #10074865110157"; "Yellow Icing - Code D16-095 & D-16-096" (a "code" label names lots).
  'F-1517-2016': [
    ['lot', 'D16-095', 'D16095', 'inferred'],
    ['lot', 'D-16-096', 'D16096', 'inferred'],
    ['upc', '10074865110157', '10074865110157', 'extracted'],
  ],
  // "IFF Code: 76185", "Net Weight 25 lb" and the production date are not identifiers.
  'F-1238-2013': [['batch', '0004711598', '0004711598', 'inferred']],
  // "UPC 4122033749" has 10 digits; "Best By: 08/27/19" is a date.
  'F-2149-2019': [],
  // "Product Number: BDF0006, Lot: 6018, Best By: 1/18/2027".
  'H-0573-2026': [
    ['lot', '6018', '6018', 'inferred'],
    ['model', 'BDF0006', 'BDF0006', 'inferred'],
  ],
  'F-0874-2019': [], // "No codes"
  'F-0685-2017': [], // code_info "11/1/16" is a date
  'F-1740-2014': [['model', 'B254A1', 'B254A1', 'inferred']], // "Product Code: B254A1"
  // "UPC 0093 0390" is a valid UPC-E; the unlabelled run of codes in code_info is not taken.
  'F-1316-2019': [['upc', '0093 0390', '00009303000090', 'extracted']],
  // "UPC 00847122": a valid UPC-E; code_info "all lot codes".
  'F-0313-2017': [['upc', '00847122', '00008200004712', 'extracted']],
  'F-0359-2018': [
    ['upc', '024354501105', '00024354501105', 'extracted'],
    ['upc', '0 50428 54100 5', '00050428541005', 'extracted'],
  ],
  // "3 Gallon Tub : Lot 21089, 21102  56oz Carton : Lot 21092": the 56oz is a size.
  'F-0583-2021': [
    ['lot', '21089', '21089', 'inferred'],
    ['lot', '21092', '21092', 'inferred'],
    ['lot', '21102', '21102', 'inferred'],
  ],
  'F-0570-2021': [
    ['lot', '21096', '21096', 'inferred'],
    ['lot', '21106', '21106', 'inferred'],
  ],
  // Best-by dates "18SEP20 …" are not lots.
  'F-0960-2020': [['upc', '0 44000 03826 7', '00044000038267', 'extracted']],
  'F-0878-2013': [], // "UPC code of 28400-00901" has 10 digits; "TX 75024" is a zip code
  'F-2054-2019': [], // "UPC: 0007874209234" fails its check digit; "19157JJS1" is unlabelled
  'F-1859-2016': [], // use-by date only
  'F-1387-2012': [], // expiry dates only
  'F-1643-2012': [], // "UPC 4149812863" has 10 digits; the codes in code_info are unlabelled
  // "code 5G6 21X8" is not labelled as a lot.
  // "UPC 0 15400 19670 3"; "code 5G6 21X8 HH:MM" ×3: each code printed in two groups.
  'F-1616-2016': [
    ['lot', '5G6 21X8', '5G621X8', 'inferred'],
    ['lot', '5H6 11X8', '5H611X8', 'inferred'],
    ['lot', '5H6 12X8', '5H612X8', 'inferred'],
    ['upc', '0 15400 19670 3', '00015400196703', 'extracted'],
  ],
  // "42-207 L1" is unlabelled.
  'F-1377-2014': [['upc', '0 44100 11244 7', '00044100112447', 'extracted']],
  'F-0189-2023': [], // "UPC 330223-11478" (11 digits) fails its check digit; sell-by dates
  'F-0456-2021': [
    ['lot', '06102005', '06102005', 'inferred'],
    ['lot', '06109805', '06109805', 'inferred'],
    ['upc', '046567025469', '00046567025469', 'extracted'],
  ],
  // "lot # PB0091512, exp. date 8/2014, UPC code 283333900111".
  'F-1879-2013': [
    ['lot', 'PB0091512', 'PB0091512', 'inferred'],
    ['upc', '283333900111', '00283333900111', 'extracted'],
  ],
  'H-0940-2026': [], // 31 "SUL…" codes, none labelled
  // "Lot Code#2123B(S), 2123C(M)": the bracketed sizes are not part of the lot.
  'F-1652-2012': [
    ['lot', '2123B', '2123B', 'inferred'],
    ['lot', '2123C', '2123C', 'inferred'],
  ],
  'F-1397-2012': [
    ['lot', '33310-4', '333104', 'inferred'],
    ['upc', '6 54367 43505 2', '00654367435052', 'extracted'],
  ],
  'F-0193-2023': [], // "UPC 02503 00475" has 10 digits
  'F-1322-2016': [['upc', '8 20103 77214 3', '00820103772143', 'extracted']], // "The UPC is …"
  // "Lot code CR 18 13B, and Best Before: 2015-08."
  'F-1303-2013': [
    ['lot', 'CR 18 13B', 'CR1813B', 'inferred'],
    ['upc', '6 21498 42238 1', '00621498422381', 'extracted'],
  ],
};

test('parses all 32 records of the real openFDA food page, with data_as_of from meta.last_updated', (t) => {
  const body = loadSamplePage(t, 'us-fda-food');
  if (body === undefined) return;
  const parsed = usFdaFood.parse({ name: 'page-1.json', body });
  assert.equal(parsed.drafts.length, 32);
  assert.equal(parsed.dataAsOf, '2026-06-17');
  for (const d of parsed.drafts) {
    assert.match(d.recordId, /^[FH]-\d{4}-\d{4}$/);
    assert.equal(d.product.category, 'food');
    assert.deepEqual(d.product.brands, []); // food records carry an empty openfda block
    assert.deepEqual(d.product.models, []);
    assert.deepEqual(d.countries, ['US']);
    assert.equal(d.remedy, 'unknown');
    assert.equal(d.summary, d.hazard.text);
    assert.ok(d.title !== null && d.title.length > 0 && d.title.length <= 120, d.recordId);
    assert.ok(d.hazard.category !== null);
    assert.match(d.recall_date ?? '', /^\d{4}-\d{2}-\d{2}$/);
    assert.match(d.published_date ?? '', /^\d{4}-\d{2}-\d{2}$/);
  }
});

test('extracts exactly the identifiers read by hand from each real food record', (t) => {
  const drafts = parseSamplePage(t, usFdaFood);
  if (drafts === undefined) return;
  assertIdentifiersReadByHand(drafts, EXPECTED_IDENTIFIERS);
});

test('maps class, dates, url, title and hazard of real food records', (t) => {
  const drafts = parseSamplePage(t, usFdaFood);
  if (drafts === undefined) return;
  const byId = new Map(drafts.map((d) => [d.recordId, d]));

  const biscuits = byId.get('F-1575-2018')!;
  assert.equal(biscuits.severity, 'medium');
  assert.equal(biscuits.source_classification, 'Class II');
  assert.equal(biscuits.recall_date, '2018-05-30');
  assert.equal(biscuits.published_date, '2018-06-20');
  assert.equal(biscuits.title, 'BISCUIT FOOD Cheese Biscuits');
  assert.equal(biscuits.summary, 'Product contains undeclared milk.');
  assert.deepEqual(biscuits.hazard, {
    category: 'undeclared_allergen',
    text: 'Product contains undeclared milk.',
  });
  assert.equal(
    biscuits.url,
    'https://api.fda.gov/food/enforcement.json?search=recall_number:%22F-1575-2018%22',
  );

  const salmonella = byId.get('H-0573-2026')!;
  assert.equal(salmonella.severity, 'serious');
  assert.equal(salmonella.source_classification, 'Class I');
  assert.equal(salmonella.recall_date, '2026-02-26');
  assert.equal(salmonella.published_date, '2026-03-25');
  assert.equal(salmonella.hazard.category, 'microbial_contamination');
  assert.equal(salmonella.title, 'Butter Powder');

  const chowder = byId.get('F-1340-2014')!;
  assert.equal(chowder.recall_date, '2013-11-15');
  assert.equal(chowder.published_date, '2014-01-08');
  assert.ok(
    !chowder.identifiers.some((i) => i.kind === 'upc'),
    'the 10-digit "UPC 77890 27864" is not a barcode',
  );

  assert.equal(byId.get('F-0189-2023')!.title, 'Taylor Farms Carrot - Celery Sticks');
  assert.equal(byId.get('F-2149-2019')!.title, 'Savory Tuna salad 16 oz. packaged in Clear PP containers');
  assert.equal(byId.get('F-0583-2021')!.title, 'Velvet Dutch Chocolate');
  assert.equal(byId.get('H-0940-2026')!.title, 'Park St. Deli Macaroni & Cheese');
});

// --- project-written records (never real recalls) ---------------------------------------------

function page(results: unknown[], meta: Record<string, unknown> = { last_updated: '2099-01-02' }): Buffer {
  return Buffer.from(JSON.stringify({ meta, results }));
}

test('takes openfda.upc, package_ndc and product_ndc as exact identifiers, and brand_name as brands', () => {
  const record = {
    recall_number: 'F-9999-2099',
    classification: 'Class III',
    product_type: 'Food',
    product_description: 'TEST DATA Crackers, 8 oz. UPC 0 50428 54100 5',
    reason_for_recall: 'TEST DATA: Undeclared sesame.',
    code_info: 'Lot TEST123',
    recall_initiation_date: '20990101',
    report_date: '20990230', // not a calendar date
    openfda: {
      brand_name: ['TESTBRAND', 'TESTBRAND', 'OTHERBRAND'],
      upc: ['050428541005', '035051591768'], // the second fails its check digit
      package_ndc: ['0023-6022-01'],
      product_ndc: ['0023-6022'],
    },
  };
  const [draft] = usFdaFood.parse({ name: 'x.json', body: page([record]) }).drafts;
  assert.ok(draft);
  assert.equal(draft.severity, 'low');
  assert.equal(draft.recall_date, '2099-01-01');
  assert.equal(draft.published_date, null);
  assert.deepEqual(draft.product.brands, ['TESTBRAND', 'OTHERBRAND']);
  assert.deepEqual(draft.identifiers, [
    { kind: 'lot', value: 'TEST123', normalized: 'TEST123', confidence: 'inferred' },
    { kind: 'ndc', value: '0023-6022', normalized: '000236022', confidence: 'exact' },
    { kind: 'ndc', value: '0023-6022-01', normalized: '00023602201', confidence: 'exact' },
    // the same barcode from prose is merged into the exact one
    { kind: 'upc', value: '050428541005', normalized: '00050428541005', confidence: 'exact' },
  ]);
});

test('maps an unknown or missing class to unknown severity and keeps the label verbatim', () => {
  const drafts = usFdaFood.parse({
    name: 'x.json',
    body: page([
      { recall_number: 'F-0001-2099', classification: 'Not Yet Classified', product_type: 'Food' },
      { recall_number: 'F-0002-2099', product_type: 'Veterinary' },
    ]),
  }).drafts;
  assert.equal(drafts[0]?.severity, 'unknown');
  assert.equal(drafts[0]?.source_classification, 'Not Yet Classified');
  assert.equal(drafts[1]?.severity, 'unknown');
  assert.equal(drafts[1]?.source_classification, null);
  assert.equal(drafts[1]?.product.category, null);
  assert.equal(drafts[1]?.title, null);
  assert.deepEqual(drafts[1]?.hazard, { category: null, text: null });
  assert.deepEqual(drafts[1]?.identifiers, []);
});

test('fails loudly with a format error when the page shape drifts', () => {
  const bad: [string, Buffer][] = [
    ['not JSON', Buffer.from('<html>')],
    ['results not an array', Buffer.from(JSON.stringify({ meta: {}, results: {} }))],
    ['no meta', Buffer.from(JSON.stringify({ results: [] }))],
    ['meta.results.total not a number', page([], { results: { total: 'many' } })],
  ];
  for (const [why, body] of bad) {
    assert.throws(
      () => usFdaFood.parse({ name: 'x.json', body, url: 'https://api.test/x' }),
      (e: unknown) =>
        e instanceof UpstreamError && e.failure === 'format' && e.details.url === 'https://api.test/x',
      why,
    );
  }
});

test('sets aside a record that drifted, with its place and reason, and reads the rest', () => {
  const bad: BadRecord[] = [
    ['a record without recall_number', { product_description: 'x' }, 'results[0]', /recall_number/],
    ['an empty recall_number', { recall_number: '' }, 'results[1]', /recall_number/],
    [
      'a text field of the wrong type',
      { recall_number: 'F-1-2099', reason_for_recall: 42 },
      'results[2] (F-1-2099)',
      /reason_for_recall/,
    ],
    [
      'openfda arrays of the wrong type',
      { recall_number: 'F-2-2099', openfda: { upc: '0123' } },
      'results[3] (F-2-2099)',
      /openfda\/upc/,
    ],
  ];
  const parsed = usFdaFood.parse({
    name: 'x.json',
    body: page([...bad.map(([, r]) => r), { recall_number: 'F-3-2099' }]),
  });
  assertSetAside(parsed, ['F-3-2099'], bad);
});

test('accepts an empty page and unknown extra fields', () => {
  assert.deepEqual(usFdaFood.parse({ name: 'x.json', body: page([]) }), {
    dataAsOf: '2099-01-02',
    drafts: [],
    setAside: [],
  });
  const parsed = usFdaFood.parse({
    name: 'x.json',
    body: page([{ recall_number: 'F-0003-2099', new_field: { a: 1 }, termination_date: null }], {}),
  });
  assert.equal(parsed.drafts.length, 1);
  assert.equal(parsed.dataAsOf, null);
});

test('describes the feed: meta, licence and mirror files', () => {
  assertOpenFdaMeta(usFdaFood, 'us-fda-food', 'https://open.fda.gov/apis/food/enforcement/');
  assert.equal(usFdaFood.acceptsFile('PAGE-1.JSON'), true);
  assert.equal(usFdaFood.acceptsFile('notes.txt'), false);
  assert.equal(usFdaFood.acceptsFile('page-0001.json.tmp'), false);
});

test('productTitle takes the first clause, at most 120 characters, cut at a word', () => {
  assert.equal(
    productTitle('EPSOM SALT(Magnesium Sulfate Heptahydrate, USP), 50 lb bag'),
    'EPSOM SALT(Magnesium Sulfate Heptahydrate, USP)',
  );
  assert.equal(
    productTitle('Jiangsu Co.,Ltd. AND SDI LABS Rapid Test Device - Cat#: CO-02'),
    'Jiangsu Co.,Ltd. AND SDI LABS Rapid Test Device',
  );
  assert.equal(
    productTitle('Topnotch Foods Regular Bread Crumbs  2,000 lb. bulk bag'),
    'Topnotch Foods Regular Bread Crumbs',
  );
  assert.equal(
    productTitle('Hood brand  Fat Free Chocolate Milk, 8 oz.'),
    'Hood brand Fat Free Chocolate Milk',
  );
  const long = `${'word '.repeat(40)}end`;
  const title = productTitle(long)!;
  assert.ok(title.length <= 120);
  assert.match(title, /^(word )+word$/);
  assert.equal(productTitle(''), null);
  assert.equal(productTitle(undefined), null);
});

test('openFdaDate converts YYYYMMDD and refuses what is not a calendar date', () => {
  assert.equal(openFdaDate('20180530'), '2018-05-30');
  assert.equal(openFdaDate('20240229'), '2024-02-29');
  assert.equal(openFdaDate('20230229'), null);
  assert.equal(openFdaDate('2018-05-30'), null);
  assert.equal(openFdaDate(''), null);
  assert.equal(openFdaDate(null), null);
});
