import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usFdaDrug } from '../../../../src/ingest/sources/us-fda-drug/index.ts';
import {
  assertClassifications,
  assertIdentifiersReadByHand,
  assertOpenFdaMeta,
  fetchOneRecord,
  loadSamplePage,
  parseSamplePage,
  type ExpectedClassification,
  type ExpectedIdentifier,
} from '../../../support/openfda.ts';

/**
 * The identifiers each real drug record must yield, written by reading its product_description,
 * code_info and more_code_info. No real record has a filled `openfda` block, so every one comes
 * from prose: NDCs in a labelled hyphenated layout are `extracted` (4-4-2, 5-3-2 and 5-4-1 padded
 * to the 11-digit 5-4-2 form), lots are `inferred`. Sorted by (kind, normalized).
 */
const EXPECTED_IDENTIFIERS: Record<string, ExpectedIdentifier[]> = {
  // code_info "2006-000926" is unlabelled; the product has no NDC.
  'D-1596-2014': [],
  // "NDC 0023-6022-01" (4-4-2); "Lot # 544821A, Exp 07/19".
  'D-0413-2018': [
    ['lot', '544821A', '544821A', 'inferred'],
    ['ndc', '0023-6022-01', '00023602201', 'extracted'],
  ],
  // "Lot F0067 exp. 06/14,  F0079 exp. 04/15": the expiry between the two lots is skipped.
  'D-1387-2014': [
    ['lot', 'F0067', 'F0067', 'inferred'],
    ['lot', 'F0079', 'F0079', 'inferred'],
    ['ndc', '0085-1401-01', '00085140101', 'extracted'],
  ],
  'D-0397-2015': [
    ['lot', 'T018H14A', 'T018H14A', 'inferred'],
    ['ndc', '0603-2110-32', '00603211032', 'extracted'],
  ],
  // "NDC 70166-059-01" (5-3-2); "Lot#:  M030042P, Exp. 01/2020".
  'D-1130-2019': [
    ['lot', 'M030042P', 'M030042P', 'inferred'],
    ['ndc', '70166-059-01', '70166005901', 'extracted'],
  ],
  // "AHP Lot #: 130007 … Carton NDC #: 68084-633-01  Single Dose NDC #: 68084-633-11"; the
  // carton NDC is also in the description (one identifier).
  'D-323-2014': [
    ['lot', '130007', '130007', 'inferred'],
    ['ndc', '68084-633-01', '68084063301', 'extracted'],
    ['ndc', '68084-633-11', '68084063311', 'extracted'],
  ],
  // Three brands' NDCs ("NDC: 62011-0295-1" is 5-4-1); "Lots: PA17-412, PA17-077, …".
  'D-0266-2019': [
    ['lot', 'PA17-077', 'PA17077', 'inferred'],
    ['lot', 'PA17-127', 'PA17127', 'inferred'],
    ['lot', 'PA17-150', 'PA17150', 'inferred'],
    ['lot', 'PA17-196', 'PA17196', 'inferred'],
    ['lot', 'PA17-412', 'PA17412', 'inferred'],
    ['ndc', '55316-014-72', '55316001472', 'extracted'],
    ['ndc', '55910-717-72', '55910071772', 'extracted'],
    ['ndc', '62011-0295-1', '62011029501', 'extracted'],
  ],
  // "NDC 10106-2448-1" (5-4-1); "Lot 23G3161005, Exp 9/21/2027"; "500G" is a size.
  'D-0488-2026': [
    ['lot', '23G3161005', '23G3161005', 'inferred'],
    ['ndc', '10106-2448-1', '10106244801', 'extracted'],
  ],
  // "UPC 3 45802-237-01 9" (the NDC inside a UPC-A, valid check digit); "Lot #: 099534, Exp. 07/18; 099512".
  'D-0503-2017': [
    ['lot', '099512', '099512', 'inferred'],
    ['lot', '099534', '099534', 'inferred'],
    ['ndc', '45802-237-01', '45802023701', 'extracted'],
    ['upc', '3 45802-237-01 9', '00345802237019', 'extracted'],
  ],
  // "Individual Pack NDC 0703-9040-01, Shelf Pack NDC 0703-9040-03".
  'D-0859-2016': [
    ['lot', '4750915', '4750915', 'inferred'],
    ['ndc', '0703-9040-01', '00703904001', 'extracted'],
    ['ndc', '0703-9040-03', '00703904003', 'extracted'],
  ],
  // No NDC in the description; "50 lb" is a size.
  'D-0564-2016': [['lot', 'U150511', 'U150511', 'inferred']],
  'D-1088-2017': [
    ['lot', '353394', '353394', 'inferred'],
    ['ndc', '50383-720-15', '50383072015', 'extracted'],
    ['ndc', '50383-720-19', '50383072019', 'extracted'],
  ],
  // "Lot#: 4228D2, 4229D1, Exp.: 07/31/2026  Lot#: 5147D2"; "UPC 6 10563 13873 9."
  'D-0487-2026': [
    ['lot', '4228D2', '4228D2', 'inferred'],
    ['lot', '4229D1', '4229D1', 'inferred'],
    ['lot', '5147D2', '5147D2', 'inferred'],
    ['upc', '6 10563 13873 9', '00610563138739', 'extracted'],
  ],
  'D-920-2013': [
    ['lot', '6103882', '6103882', 'inferred'],
    ['ndc', '63323-064-50', '63323006450', 'extracted'],
  ],
};

/** Severity (from the FDA class) and hazard category of each real record, read from its class and reason. */
const EXPECTED_CLASSIFICATION: Record<string, ExpectedClassification> = {
  'D-1596-2014': ['serious', 'Class I', 'chemical'], // undeclared sildenafil
  'D-0413-2018': ['low', 'Class III', 'mislabelling'], // "Labeling: Not Elsewhere Classified"
  'D-1387-2014': ['low', 'Class III', 'quality_defect'], // failed stability specification
  'D-0397-2015': ['medium', 'Class II', 'quality_defect'], // oversized tablets
  'D-1130-2019': ['medium', 'Class II', 'mislabelling'], // incorrect expiry date on the label
  'D-323-2014': ['medium', 'Class II', 'quality_defect'], // subpotent
  'D-0266-2019': ['medium', 'Class II', 'foreign_matter'], // metal particles
  'D-0488-2026': ['low', 'Class III', 'quality_defect'], // subpotent
  'D-0503-2017': ['low', 'Class III', 'quality_defect'], // impurity out of specification
  'D-0859-2016': ['serious', 'Class I', 'foreign_matter'], // glass particulate
  'D-0564-2016': ['low', 'Class III', 'quality_defect'], // iron above the USP limit
  'D-1088-2017': ['low', 'Class III', 'quality_defect'], // crystallization, subpotent
  'D-0487-2026': ['medium', 'Class II', 'quality_defect'], // failed stability
  'D-920-2013': ['serious', 'Class I', 'foreign_matter'], // glass particulate
};

test('parses all 14 records of the real openFDA drug page, with data_as_of from meta.last_updated', (t) => {
  const body = loadSamplePage(t, 'us-fda-drug');
  if (body === undefined) return;
  const parsed = usFdaDrug.parse({ name: 'page-1.json', body });
  assert.equal(parsed.drafts.length, 14);
  assert.equal(parsed.dataAsOf, '2026-04-29');
  for (const d of parsed.drafts) {
    assert.match(d.recordId, /^D-\d{3,4}-\d{4}$/);
    assert.equal(d.product.category, 'drugs');
    assert.deepEqual(d.product.brands, [], 'no real drug record carries a filled openfda block');
    assert.deepEqual(d.product.models, []);
    assert.deepEqual(d.countries, ['US']);
    assert.equal(d.remedy, 'unknown');
    assert.equal(d.summary, d.hazard.text);
    assert.ok(d.title !== null && d.title.length > 0 && d.title.length <= 120, d.recordId);
    assert.match(d.recall_date ?? '', /^\d{4}-\d{2}-\d{2}$/);
    assert.match(d.published_date ?? '', /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(d.url, `https://api.fda.gov/drug/enforcement.json?search=recall_number:%22${d.recordId}%22`);
  }
});

test('extracts exactly the identifiers read by hand from each real drug record', (t) => {
  const drafts = parseSamplePage(t, usFdaDrug);
  if (drafts === undefined) return;
  assertIdentifiersReadByHand(drafts, EXPECTED_IDENTIFIERS);
});

test('maps the FDA class to severity and the reason to a hazard on every real drug record', (t) => {
  const drafts = parseSamplePage(t, usFdaDrug);
  if (drafts === undefined) return;
  assertClassifications(drafts, EXPECTED_CLASSIFICATION);
  const byId = new Map(drafts.map((d) => [d.recordId, d]));
  const norco = byId.get('D-0413-2018')!;
  assert.equal(norco.title, 'NORCO (Hydrocodone Bitartrate and Acetaminophen) Tablets');
  assert.equal(norco.recall_date, '2018-02-02');
  assert.equal(norco.published_date, '2018-02-21');
  assert.equal(byId.get('D-1596-2014')!.title, 'AFRICAN BLACK ANT');
  assert.equal(byId.get('D-0266-2019')!.title, 'Antacid Tablets');
});

// --- a project-written record (never a real recall) ---------------------------------------------

/**
 * A drug record with a filled `openfda` block, shaped like openFDA's harmonised drug fields. No
 * real sample has one, so this is the only test of the exact path on the drug feed. The labeler
 * code 99999 and every name are fictional.
 */
const FILLED_OPENFDA_RECORD = {
  recall_number: 'D-9999-2099',
  event_id: '999999',
  status: 'Ongoing',
  classification: 'Class II',
  product_type: 'Drugs',
  recalling_firm: 'Test Fixture Pharma (fictional)',
  product_description:
    'TEST DATA Testopril Tablets, 10 mg, 30-count bottle (NDC 99999-101-30) and 90-count bottle (NDC 99999-101-90), Rx only.',
  product_quantity: '100 bottles',
  reason_for_recall: 'Failed Dissolution Specifications',
  code_info: 'Lot #: TST0001, Exp 01/2100',
  more_code_info: '',
  recall_initiation_date: '20990301',
  center_classification_date: '20990320',
  report_date: '20990325',
  openfda: {
    application_number: ['ANDA099999'],
    brand_name: ['TESTOPRIL', 'Testopril '],
    generic_name: ['TESTOPRIL HYDROCHLORIDE'],
    manufacturer_name: ['Test Fixture Pharma (fictional)'],
    product_ndc: ['99999-101'],
    package_ndc: ['99999-101-30', '99999-101-60'],
    upc: ['399999101301', '399999101309'], // the second fails its check digit
    route: ['ORAL'],
    substance_name: ['TESTOPRIL HYDROCHLORIDE'],
    rxcui: ['9999999'],
    spl_id: ['00000000-0000-0000-0000-000000000000'],
    spl_set_id: ['00000000-0000-0000-0000-000000000001'],
    product_type: ['HUMAN PRESCRIPTION DRUG'],
    is_original_packager: [true],
  },
};

test('takes the openfda arrays of a drug record as exact identifiers and brand_name as brands', () => {
  const body = Buffer.from(
    JSON.stringify({ meta: { last_updated: '2099-03-26' }, results: [FILLED_OPENFDA_RECORD] }),
  );
  const parsed = usFdaDrug.parse({ name: 'page-0001.json', body });
  assert.equal(parsed.dataAsOf, '2099-03-26');
  const [draft] = parsed.drafts;
  assert.ok(draft);
  assert.deepEqual(draft.product, { category: 'drugs', brands: ['TESTOPRIL', 'Testopril'], models: [] });
  assert.equal(draft.severity, 'medium');
  assert.equal(draft.hazard.category, 'quality_defect');
  assert.equal(draft.title, 'TEST DATA Testopril Tablets');
  assert.deepEqual(draft.identifiers, [
    { kind: 'lot', value: 'TST0001', normalized: 'TST0001', confidence: 'inferred' },
    // product_ndc: the 9-digit product key, matching every package of the product
    { kind: 'ndc', value: '99999-101', normalized: '999990101', confidence: 'exact' },
    // package_ndc, also printed in the description: the dedicated field's confidence wins
    { kind: 'ndc', value: '99999-101-30', normalized: '99999010130', confidence: 'exact' },
    { kind: 'ndc', value: '99999-101-60', normalized: '99999010160', confidence: 'exact' },
    // only in prose: a labelled hyphenated NDC
    { kind: 'ndc', value: '99999-101-90', normalized: '99999010190', confidence: 'extracted' },
    // openfda.upc; the one with a bad check digit is left out, not repaired
    { kind: 'upc', value: '399999101301', normalized: '00399999101301', confidence: 'exact' },
  ]);
});

test('describes the drug feed: meta, licence and mirror files', () => {
  assertOpenFdaMeta(usFdaDrug, 'us-fda-drug', 'https://open.fda.gov/apis/drug/enforcement/');
  assert.equal(usFdaDrug.acceptsFile('notes.txt'), false);
});

test('fetches from the drug endpoint', async () => {
  const { names, requested } = await fetchOneRecord(usFdaDrug, 'https://openfda.test', 'D-0001-2004');
  assert.deepEqual(names, ['page-0001.json']);
  assert.deepEqual(requested, [
    'https://openfda.test/drug/enforcement.json?search=report_date:[20040101+TO+20041231]&limit=1000&skip=0',
  ]);
});
