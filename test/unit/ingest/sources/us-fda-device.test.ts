import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usFdaDevice } from '../../../../src/ingest/sources/us-fda-device/index.ts';
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
 * The identifiers each real device record must yield, written by reading its product_description,
 * code_info and more_code_info. GS1 UDI device identifiers pass a check digit (`extracted`);
 * catalogue, item, product, model and REF numbers are `model` and lots are `lot`, both `inferred`.
 * Serial numbers are not an identifier kind of the contract and are never taken.
 */
const EXPECTED_IDENTIFIERS: Record<string, ExpectedIdentifier[]> = {
  // "Catalog Number 448010"; "Serial Numbers: AP0447, …" are serials.
  // "Catalog Number 448010"; "Serial Numbers: AP0447, …, AP0458 & AP0463" (serial numbers name lots).
  'Z-0198-2018': [
    ['lot', 'AP0447', 'AP0447', 'inferred'],
    ['lot', 'AP0448', 'AP0448', 'inferred'],
    ['lot', 'AP0449', 'AP0449', 'inferred'],
    ['lot', 'AP0450', 'AP0450', 'inferred'],
    ['lot', 'AP0451', 'AP0451', 'inferred'],
    ['lot', 'AP0458', 'AP0458', 'inferred'],
    ['lot', 'AP0463', 'AP0463', 'inferred'],
    ['model', '448010', '448010', 'inferred'],
  ],
  // "Product No. 90885 and 90888".
  'Z-1506-2015': [
    ['model', '90885', '90885', 'inferred'],
    ['model', '90888', '90888', 'inferred'],
  ],
  // "UDI-DI: Product Code: AHCV18A, Lots 980221 (exp. 01/20/2023) and 974221 …": the UDI label
  // has no value; the product codes are models, the expiry dates are skipped.
  'Z-0071-2023': [
    ['lot', '842221', '842221', 'inferred'],
    ['lot', '868221', '868221', 'inferred'],
    ['lot', '974221', '974221', 'inferred'],
    ['lot', '980221', '980221', 'inferred'],
    ['model', 'AHCV18A', 'AHCV18A', 'inferred'],
    ['model', 'AHCV18B', 'AHCV18B', 'inferred'],
  ],
  // "Cat#: CO-02" and "Catalog Number: CO-02" (one model); "No UDI Codes provided"; six lots.
  'Z-0001-2023': [
    ['lot', '202107192', '202107192', 'inferred'],
    ['lot', '202108231', '202108231', 'inferred'],
    ['lot', '202109231', '202109231', 'inferred'],
    ['lot', '202110111', '202110111', 'inferred'],
    ['lot', '202111082', '202111082', 'inferred'],
    ['lot', '202201102', '202201102', 'inferred'],
    ['model', 'CO-02', 'CO02', 'inferred'],
  ],
  // "Product Number: 69420-8351-1 Lot Number: U701SF1 UDI Code: N/A": a device record, so the
  // NDC-shaped product number is kept as printed under its label, a model.
  'Z-0856-2022': [
    ['lot', 'U701SF1', 'U701SF1', 'inferred'],
    ['model', '69420-8351-1', '6942083511', 'inferred'],
  ],
  // "REF 383516" and "Catalog Number: 383516"; "UDI-DI Code: (01)00382903835164"; the lot is
  // printed apart from the UDI, so it stays inferred.
  'Z-0174-2023': [
    ['lot', '2168865', '2168865', 'inferred'],
    ['model', '383516', '383516', 'inferred'],
    ['udi', '(01)00382903835164', '00382903835164', 'extracted'],
  ],
  // "Model 880505-01 & 880505-11"; "Serial Numbers: 309658, 310007, …, 345085" (thirty, as lots).
  'Z-0441-2019': [
    ['lot', '309658', '309658', 'inferred'],
    ['lot', '310007', '310007', 'inferred'],
    ['lot', '319209', '319209', 'inferred'],
    ['lot', '319822', '319822', 'inferred'],
    ['lot', '319823', '319823', 'inferred'],
    ['lot', '319824', '319824', 'inferred'],
    ['lot', '319825', '319825', 'inferred'],
    ['lot', '319826', '319826', 'inferred'],
    ['lot', '319827', '319827', 'inferred'],
    ['lot', '319829', '319829', 'inferred'],
    ['lot', '319830', '319830', 'inferred'],
    ['lot', '319831', '319831', 'inferred'],
    ['lot', '330695', '330695', 'inferred'],
    ['lot', '330696', '330696', 'inferred'],
    ['lot', '330697', '330697', 'inferred'],
    ['lot', '331862', '331862', 'inferred'],
    ['lot', '331914', '331914', 'inferred'],
    ['lot', '332387', '332387', 'inferred'],
    ['lot', '332586', '332586', 'inferred'],
    ['lot', '332587', '332587', 'inferred'],
    ['lot', '332589', '332589', 'inferred'],
    ['lot', '333755', '333755', 'inferred'],
    ['lot', '333761', '333761', 'inferred'],
    ['lot', '333762', '333762', 'inferred'],
    ['lot', '334833', '334833', 'inferred'],
    ['lot', '342515', '342515', 'inferred'],
    ['lot', '342518', '342518', 'inferred'],
    ['lot', '342523', '342523', 'inferred'],
    ['lot', '345084', '345084', 'inferred'],
    ['lot', '345085', '345085', 'inferred'],
    ['model', '880505-01', '88050501', 'inferred'],
    ['model', '880505-11', '88050511', 'inferred'],
  ],
  // "Item Number: 17-5220/01"; "UDI-DI: 04026575284658 Lot Codes: C010108, C151519".
  'Z-2481-2023': [
    ['lot', 'C010108', 'C010108', 'inferred'],
    ['lot', 'C151519', 'C151519', 'inferred'],
    ['model', '17-5220/01', '17522001', 'inferred'],
    ['udi', '04026575284658', '04026575284658', 'extracted'],
  ],
  // "Model Number: TPS-301-1113-020101"; "Serial Number: 0496242"; "UDI: M572TPS3011113011" is
  // neither GS1 nor HIBCC (no "+") nor ICCBBA, so it is refused rather than guessed.
  'Z-0899-2022': [
    ['lot', '0496242', '0496242', 'inferred'],
    ['model', 'TPS-301-1113-020101', 'TPS3011113020101', 'inferred'],
  ],
  'Z-2317-2017': [], // code_info "Unknown"
  // "Item No. 15-2979/02; UDI-DI: 04026575328109."
  'Z-2049-2023': [
    ['model', '15-2979/02', '15297902', 'inferred'],
    ['udi', '04026575328109', '04026575328109', 'extracted'],
  ],
  // "ITEM # 4323-635"; "UDI/DI 00366975000590, Lot number 207540, Exp. 20240930".
  'Z-1697-2023': [
    ['lot', '207540', '207540', 'inferred'],
    ['model', '4323-635', '4323635', 'inferred'],
    ['udi', '00366975000590', '00366975000590', 'extracted'],
  ],
};

/** Severity (from the FDA class) and hazard category of each real record, read from its class and reason. */
const EXPECTED_CLASSIFICATION: Record<string, ExpectedClassification> = {
  'Z-0198-2018': ['low', 'Class III', 'quality_defect'], // unexpected movement of a robot arm
  'Z-1506-2015': ['medium', 'Class II', 'quality_defect'], // not the specified steel
  'Z-0071-2023': ['medium', 'Class II', 'mislabelling'], // kit incorrectly labelled
  'Z-0001-2023': ['serious', 'Class I', 'other'], // distributed without authorisation
  'Z-0856-2022': ['medium', 'Class II', 'microbial_contamination'], // TAMC failure
  'Z-0174-2023': ['medium', 'Class II', 'laceration'], // needle tip exposed
  'Z-0441-2019': ['medium', 'Class II', 'other'], // "Replacement campaign …" names no hazard
  'Z-2481-2023': ['medium', 'Class II', 'quality_defect'], // cracked weld
  'Z-0899-2022': ['medium', 'Class II', 'mislabelling'], // wrong implant packaged in kit
  'Z-2317-2017': ['medium', 'Class II', 'quality_defect'], // outside the Quality System Regulation
  'Z-2049-2023': ['medium', 'Class II', 'quality_defect'], // may not meet specifications
  'Z-1697-2023': ['medium', 'Class II', 'mislabelling'], // another flavour in the package
};

test('parses all 12 records of the real openFDA device page, with data_as_of from meta.last_updated', (t) => {
  const body = loadSamplePage(t, 'us-fda-device');
  if (body === undefined) return;
  const parsed = usFdaDevice.parse({ name: 'page-1.json', body });
  assert.equal(parsed.drafts.length, 12);
  assert.equal(parsed.dataAsOf, '2026-06-24');
  for (const d of parsed.drafts) {
    assert.match(d.recordId, /^Z-\d{4}-\d{4}$/);
    assert.equal(d.product.category, 'medical_devices');
    assert.deepEqual(d.product.brands, [], 'no real device record carries a filled openfda block');
    assert.deepEqual(d.product.models, []);
    assert.deepEqual(d.countries, ['US']);
    assert.equal(d.remedy, 'unknown');
    assert.equal(d.summary, d.hazard.text);
    assert.ok(d.title !== null && d.title.length > 0 && d.title.length <= 120, d.recordId);
    assert.match(d.recall_date ?? '', /^\d{4}-\d{2}-\d{2}$/);
    assert.match(d.published_date ?? '', /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(
      d.url,
      `https://api.fda.gov/device/enforcement.json?search=recall_number:%22${d.recordId}%22`,
    );
  }
});

test('extracts exactly the identifiers read by hand from each real device record', (t) => {
  const drafts = parseSamplePage(t, usFdaDevice);
  if (drafts === undefined) return;
  assertIdentifiersReadByHand(drafts, EXPECTED_IDENTIFIERS);
});

test('maps the FDA class to severity and the reason to a hazard on every real device record', (t) => {
  const drafts = parseSamplePage(t, usFdaDevice);
  if (drafts === undefined) return;
  assertClassifications(drafts, EXPECTED_CLASSIFICATION);
  const byId = new Map(drafts.map((d) => [d.recordId, d]));
  const catheter = byId.get('Z-0174-2023')!;
  assert.equal(catheter.title, 'BD Nexiva Closed IV Catheter System - Single Port');
  assert.equal(catheter.recall_date, '2022-10-12');
  assert.equal(catheter.published_date, '2022-11-09');
  assert.equal(byId.get('Z-0441-2019')!.title, 'Heron toilet and bath chair');
  assert.equal(byId.get('Z-1697-2023')!.title, 'BencoDental iris 5% NaF varnish');
});

// --- a project-written record (never a real recall) ---------------------------------------------

test('takes a GS1 UDI in code_info as extracted, with its AI (10) lot as a separate extracted lot', () => {
  // Fictional: GS1 company prefix 0999990, every name made up; the GTIN's check digit holds.
  const record = {
    recall_number: 'Z-9999-2099',
    classification: 'Class I',
    product_type: 'Devices',
    product_description: 'TEST DATA Infusion Set, Catalog No. TD-1000',
    reason_for_recall: 'TEST DATA: the connector may separate, leading to a leak.',
    code_info: 'UDI (01)00999990000018(17)991231(10)TLOT42, Lot TLOT43; REF TD1001',
    recall_initiation_date: '20990101',
    report_date: '20990201',
    openfda: {},
  };
  const body = Buffer.from(JSON.stringify({ meta: {}, results: [record] }));
  const [draft] = usFdaDevice.parse({ name: 'page-0001.json', body }).drafts;
  assert.ok(draft);
  assert.equal(draft.severity, 'serious');
  assert.equal(draft.product.category, 'medical_devices');
  assert.deepEqual(
    draft.identifiers.map((i): ExpectedIdentifier => [i.kind, i.value, i.normalized, i.confidence]),
    [
      ['lot', 'TLOT42', 'TLOT42', 'extracted'], // positional, behind AI (10) of a checked GS1 string
      ['lot', 'TLOT43', 'TLOT43', 'inferred'],
      ['model', 'TD-1000', 'TD1000', 'inferred'],
      ['model', 'TD1001', 'TD1001', 'inferred'],
      ['udi', '(01)00999990000018(17)991231(10)TLOT42', '00999990000018', 'extracted'],
    ],
  );
});

test('describes the device feed: meta, licence and mirror files', () => {
  assertOpenFdaMeta(usFdaDevice, 'us-fda-device', 'https://open.fda.gov/apis/device/enforcement/');
  assert.equal(usFdaDevice.acceptsFile('FLAT_RCL.zip'), false);
});

test('fetches from the device endpoint', async () => {
  const { names, requested } = await fetchOneRecord(usFdaDevice, 'https://openfda.test/', 'Z-0001-2004');
  assert.deepEqual(names, ['page-0001.json']);
  assert.deepEqual(requested, [
    'https://openfda.test/device/enforcement.json?search=report_date:[20040101+TO+20041231]&limit=1000&skip=0',
  ]);
});
