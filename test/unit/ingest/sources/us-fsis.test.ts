import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Identifier, RecallDraft } from '../../../../src/domain/recall.ts';
import { createArchive } from '../../../../src/ingest/archive.ts';
import { createConditionalFetcher } from '../../../../src/ingest/conditional-fetcher.ts';
import { UpstreamError } from '../../../../src/ingest/errors.ts';
import { createUpstreamClient } from '../../../../src/ingest/http-client.ts';
import type { FetchContext, PageFetcher, RawPage } from '../../../../src/ingest/source.ts';
import { fsisRecallsUrl } from '../../../../src/ingest/sources/us-fsis/fetch.ts';
import { decodeEntities, htmlToLines } from '../../../../src/ingest/extract/html-text.ts';
import {
  fsisDate,
  fsisHazard,
  fsisRecallNumbers,
  fsisRemedy,
  fsisSeverity,
  fsisUrl,
} from '../../../../src/ingest/sources/us-fsis/normalise.ts';
import {
  contactParts,
  hasPhoneOrEmail,
  pressReleaseLines,
} from '../../../../src/ingest/sources/us-fsis/press-release.ts';
import { usFsis } from '../../../../src/ingest/sources/us-fsis/index.ts';
import { scriptedAgency } from '../../../support/scripted-agency.ts';
import { assertSetAside, type BadRecord } from '../../../support/set-aside.ts';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/us-fsis/', import.meta.url));
const MAIN = 'recall-v1.json';
const JUNE_SHAPE = 'recall-v1-2026-06-shape.json';

function fixture(name: string): Buffer {
  return readFileSync(join(FIXTURES, name));
}

function parseFixture(name: string): { dataAsOf: string | null; drafts: RecallDraft[] } {
  return usFsis.parse({ name, body: fixture(name) });
}

function byId(drafts: RecallDraft[]): Map<string, RecallDraft> {
  return new Map(drafts.map((d) => [d.recordId, d]));
}

type Expected = [
  kind: Identifier['kind'],
  value: string,
  normalized: string,
  confidence: Identifier['confidence'],
];

interface ExpectedDraft {
  title: string;
  severity: RecallDraft['severity'];
  source_classification: string;
  hazard: RecallDraft['hazard'];
  remedy: RecallDraft['remedy'];
  date: string;
  url: string;
  /** The first line of the summary, or null for no summary. */
  summaryStart: string | null;
  identifiers: Expected[];
}

const TEST_LINE =
  'TEST DATA – not a real recall. Every firm, product, person, number and code in this notice is fictional.';

/**
 * Every notice of the two fixtures, read by hand from the fixture files. Identifiers: only
 * labelled UPCs (valid check digit) and lot and case codes (a "code" label names a lot,
 * labelling.md rule 5); "EST. 99901", "P-99902", dates and the UPC with a wrong check digit
 * ("0 12345 90103 5" in 902-2026) are not identifiers.
 */
const EXPECTED: Record<string, ExpectedDraft> = {
  '901-2026': {
    title:
      'TEST DATA – Example Provisions (fictional) Recalls Ready-To-Eat Ham Products Due to Possible Listeria Contamination',
    severity: 'serious',
    source_classification: 'Class I',
    hazard: { category: 'microbial_contamination', text: 'Product Contamination' },
    remedy: 'dispose',
    date: '2026-02-12',
    url: 'https://www.fsis.usda.gov/recalls-alerts/test-data-example-provisions-fictional-recalls-ready-eat-ham-products-due-possible',
    summaryStart:
      'Editor’s Note: Details of this recall were updated on Feb. 13, 2026, to add a second product and its lot code.',
    identifiers: [
      ['lot', '26033', '26033', 'inferred'],
      ['lot', '26035', '26035', 'inferred'],
      ['upc', '0 12345 90101 0', '00012345901010', 'extracted'],
    ],
  },
  '902-2026': {
    // "O&#039;Sample" in the feed; the press release is entity-encoded HTML as a whole.
    title:
      "TEST DATA – O'Sample Poultry Co. (fictional) Recalls Chicken Nugget Products Due to Misbranding and an Undeclared Allergen",
    severity: 'medium',
    source_classification: 'Class II',
    hazard: { category: 'undeclared_allergen', text: 'Misbranding, Unreported Allergens' },
    remedy: 'dispose',
    date: '2026-03-04',
    url: 'https://www.fsis.usda.gov/recalls-alerts/test-data-osample-poultry-co-fictional-recalls-chicken-nugget-products-due-misbranding',
    summaryStart: TEST_LINE,
    identifiers: [
      ['lot', '26045', '26045', 'inferred'],
      ['lot', '4471', '4471', 'inferred'],
      ['upc', '012345901027', '00012345901027', 'extracted'],
    ],
  },
  '903-2026': {
    title:
      'TEST DATA – Sampleberg Sausage Works (fictional) Recalls Turkey Sausage Products Due to Misbranding',
    severity: 'low',
    source_classification: 'Class III',
    hazard: { category: 'mislabelling', text: 'Misbranding' },
    remedy: 'refund', // "urged to return it to the place of purchase for a refund"
    date: '2026-04-08',
    url: 'https://www.fsis.usda.gov/recalls-alerts/test-data-sampleberg-sausage-works-fictional-recalls-turkey-sausage-products-due',
    summaryStart: TEST_LINE,
    identifiers: [['lot', 'SBW-0401', 'SBW0401', 'inferred']],
  },
  'PHA-02302026-91': {
    title:
      'TEST DATA – FSIS Issues Public Health Alert for Ground Beef Products Due to Possible E. coli O157:H7 Contamination',
    severity: 'high',
    source_classification: 'Public Health Alert',
    hazard: { category: 'microbial_contamination', text: 'Product Contamination' },
    remedy: 'dispose',
    date: '2026-05-20',
    url: 'https://www.fsis.usda.gov/recalls-alerts/test-data-fsis-issues-public-health-alert-ground-beef-products-due-possible-e-coli',
    summaryStart: TEST_LINE,
    identifiers: [], // "EST. 99904" only
  },
  '919-920-2026': {
    title:
      'TEST DATA – Fakeridge Smokehouse (fictional) Recalls Smoked Sausage Products Due to Possible Foreign Matter Contamination',
    severity: 'serious',
    source_classification: 'Class I',
    hazard: { category: 'foreign_matter', text: 'Product Contamination' },
    remedy: 'dispose',
    date: '2026-04-21',
    url: 'https://www.fsis.usda.gov/recalls-alerts/test-data-fakeridge-smokehouse-fictional-recalls-smoked-sausage-products-due-possible',
    summaryStart: TEST_LINE,
    identifiers: [
      ['lot', '26101', '26101', 'inferred'],
      ['lot', '26102', '26102', 'inferred'],
      ['lot', '26103', '26103', 'inferred'],
      ['upc', '012345901034', '00012345901034', 'extracted'],
    ],
  },
  '904-2026': {
    // Spanish only: kept, marked by its language; the English reason label still classifies.
    title:
      '[Spanish] TEST DATA / DATOS DE PRUEBA – Muestra Carnes (fictional) retira del mercado productos de empanadas de res por etiquetado incorrecto y un alérgeno no declarado',
    severity: 'medium',
    source_classification: 'Class II',
    hazard: { category: 'undeclared_allergen', text: 'Misbranding, Unreported Allergens' },
    remedy: 'dispose', // "deben desecharse o devolverse al lugar de compra"
    date: '2026-05-05',
    url: 'https://www.fsis.usda.gov/es/retirada/datos-de-prueba-muestra-carnes-ficticio-retira-del-mercado-productos-de-empanadas',
    summaryStart: 'DATOS DE PRUEBA: no es un retiro real.',
    identifiers: [['lot', '2612', '2612', 'inferred']], // "código de lote 2612": a Spanish label
  },
  '905-2026': {
    // " 905-2026 " in the feed; empty press release and product list.
    title:
      'TEST DATA – Imaginary Meats LLC (fictional) Recalls Beef Jerky Products Produced Without Benefit of Inspection',
    severity: 'medium',
    source_classification: 'Class II',
    hazard: { category: 'other', text: 'Produced Without Benefit of Inspection' },
    remedy: 'unknown',
    date: '2026-01-09',
    url: 'https://www.fsis.usda.gov/recalls-alerts/test-data-imaginary-meats-llc-fictional-recalls-beef-jerky-products-produced-without',
    summaryStart: null,
    identifiers: [],
  },
  '907-2026': {
    title:
      'TEST DATA – Pretend Poultry Inc. (fictional) Recalls Raw Chicken Sausage Products Due to Possible Salmonella Contamination',
    severity: 'serious',
    source_classification: 'Class I',
    hazard: { category: 'microbial_contamination', text: 'Product Contamination' },
    remedy: 'dispose',
    date: '2026-06-17',
    url: 'https://www.fsis.usda.gov/recalls-alerts/test-data-pretend-poultry-inc-fictional-recalls-raw-chicken-sausage-products-due-possible',
    summaryStart: TEST_LINE,
    identifiers: [
      ['lot', 'PP-2616', 'PP2616', 'inferred'],
      ['lot', 'PP-2617', 'PP2617', 'inferred'],
      ['upc', '0-12345-90107-2', '00012345901072', 'extracted'],
    ],
  },
  'PHA-02312026-92': {
    title:
      'TEST DATA – FSIS Issues Public Health Alert for Imported Pork Products Not Presented for Import Reinspection',
    severity: 'high',
    source_classification: 'Public Health Alert',
    hazard: { category: 'other', text: 'Import Violation' },
    remedy: 'dispose',
    date: '2026-06-24',
    // served as a site-relative path
    url: 'https://www.fsis.usda.gov/recalls-alerts/test-data-fsis-issues-public-health-alert-imported-pork-products-not-presented-import',
    summaryStart: TEST_LINE,
    identifiers: [],
  },
};

test('normalises every notice of both fixtures as read by hand', () => {
  const drafts = [...parseFixture(MAIN).drafts, ...parseFixture(JUNE_SHAPE).drafts];
  assert.deepEqual(drafts.map((d) => d.recordId).sort(), Object.keys(EXPECTED).sort());
  for (const d of drafts) {
    const e = EXPECTED[d.recordId]!;
    const id = d.recordId;
    assert.equal(d.title, e.title, id);
    assert.equal(d.severity, e.severity, id);
    assert.equal(d.source_classification, e.source_classification, id);
    assert.deepEqual(d.hazard, e.hazard, id);
    assert.equal(d.remedy, e.remedy, id);
    assert.equal(d.recall_date, e.date, id);
    assert.equal(d.published_date, e.date, id);
    assert.equal(d.url, e.url, id);
    assert.equal(d.summary === null ? null : d.summary.split('\n')[0], e.summaryStart, id);
    assert.deepEqual(
      d.identifiers.map((i): Expected => [i.kind, i.value, i.normalized, i.confidence]),
      e.identifiers,
      id,
    );
    assert.deepEqual(d.product, { category: 'food', brands: [], models: [] }, id);
    assert.deepEqual(d.countries, ['US'], id);
  }
});

test('keeps the press release as summary, without contact, hotline or media paragraphs', () => {
  const draft = byId(parseFixture(MAIN).drafts).get('901-2026')!;
  assert.deepEqual(draft.summary?.split('\n'), [
    'Editor’s Note: Details of this recall were updated on Feb. 13, 2026, to add a second product and its lot code.',
    TEST_LINE,
    'WASHINGTON, Feb. 12, 2026 – Example Provisions (fictional), a Sampleton, Neb. establishment, is recalling approximately 2,140 pounds of ready-to-eat ham products that may be adulterated with Listeria monocytogenes, the U.S. Department of Agriculture’s Food Safety and Inspection Service (FSIS) announced today.',
    'The ready-to-eat ham items were produced on Feb. 2 and Feb. 4, 2026. The following products are subject to recall [view labels]:',
    '12-oz. vacuum-sealed packages containing “Example Farms Smoked Sliced Ham” with “USE BY 03/04/2026”, lot code 26033 and UPC 0 12345 90101 0 printed on the label.',
    '2-lb. packages containing “Example Farms Honey Ham Steaks” with “USE BY 03/06/2026” and lot code 26035 printed on the side of the package.',
    'The products subject to recall bear establishment number “EST. 99901” inside the USDA mark of inspection. These items were shipped to retail locations in Iowa and Nebraska.',
    "The problem was discovered when the firm's own product sampling found Listeria monocytogenes on finished product.",
    'There have been no confirmed reports of adverse reactions due to consumption of these products. Anyone concerned about an illness should contact a healthcare provider.',
    'FSIS is concerned that some product may be in consumers’ refrigerators. Consumers who have purchased these products are urged not to consume them. These products should be thrown away or returned to the place of purchase.',
    'FSIS routinely conducts recall effectiveness checks to verify recalling firms notify their customers of the recall and that steps are taken to make certain that the product is no longer available to consumers. When available, the retail distribution list(s) will be posted on the FSIS website at www.fsis.usda.gov/recalls.',
  ]);
});

// --- personal data ---------------------------------------------------------------------------

/** Every person named in the contact fields of the fixtures (kept by hand). */
const CONTACT_NAMES = [
  'Dana Madeupson',
  'Ana Ficticia',
  'Lee Placeholder',
  'Jordan Exemplar',
  'Casey Phantomly',
  'Robin Testperson',
  'Sofía Inventada',
  'Pat Mockname',
];

const PHONE = /(?:1-)?(?:\(\d{3}\) |\d{3}-)\d{3}-\d{4}/g;
const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;

/** The contact fields of every fixture record, as strings. */
function contactFieldTexts(): string[] {
  const out: string[] = [];
  for (const name of [MAIN, JUNE_SHAPE]) {
    for (const r of JSON.parse(fixture(name).toString('utf8')) as Record<string, unknown>[]) {
      for (const key of ['field_company_media_contact', 'field_media_contact']) {
        const v = r[key];
        out.push(...(Array.isArray(v) ? (v as string[]) : typeof v === 'string' ? [v] : []));
      }
    }
  }
  return out;
}

test('no name, phone number or e-mail address of the contact fields survives in any draft', () => {
  const contacts = contactFieldTexts().join('\n');
  // The hand-kept list is honest: every name is in the fixtures' contact fields.
  for (const name of CONTACT_NAMES) assert.ok(contacts.includes(name), name);
  const phones = [...new Set(contacts.match(PHONE) ?? [])];
  const emails = [...new Set(contacts.match(EMAIL) ?? [])];
  assert.ok(
    phones.length >= 7 && emails.length >= 5,
    `harvested ${phones.length} phones, ${emails.length} e-mails`,
  );

  const drafts = [...parseFixture(MAIN).drafts, ...parseFixture(JUNE_SHAPE).drafts];
  const json = JSON.stringify(drafts);
  const lower = json.toLowerCase();
  const digits = json.replace(/\D/g, '');
  for (const name of CONTACT_NAMES) {
    // Each part of the name as a word: neither "Dana Madeupson" nor "Madeupson" alone.
    for (const part of name.split(' ')) {
      assert.ok(!new RegExp(`(?<!\\p{L})${part}(?!\\p{L})`, 'iu').test(json), `${name} (${part})`);
    }
  }
  for (const phone of phones) {
    assert.ok(!json.includes(phone), phone);
    assert.ok(!digits.includes(phone.replace(/\D/g, '').slice(-7)), phone);
  }
  for (const email of emails) assert.ok(!lower.includes(email.toLowerCase()), email);
  // Nor any other phone number or address: the hotline paragraph goes too.
  for (const d of drafts) {
    assert.ok(d.summary === null || !hasPhoneOrEmail(d.summary), d.recordId);
    assert.ok(!/MPHotline/i.test(d.summary ?? ''), d.recordId);
  }
});

test('press release: contact paragraphs, and sentences with phones, e-mails or contact names, are dropped', () => {
  const html =
    '<p>WASHINGTON – Acme Test Foods (fictional), a Nowhere establishment, is recalling ham.</p>' +
    '<p>For details, reach Jamie Quux (fictional) at 555.555.0100. The firm regrets the error.</p>' +
    '<p>Please direct questions to Jamie Quux (fictional). Stores were notified.</p>' +
    '<p>Write to <a href="mailto:jq@example.com">jq@example.com</a>.</p>' +
    '<p>Media inquiries: Sam Roe, +1 (202) 555-0111.</p>' +
    '<p>Los consumidores con preguntas pueden comunicarse con Jamie Quux.</p>';
  const sensitive = contactParts(
    ['Jamie Quux (fictional)\nHead of Sales\nAcme Test Foods (fictional)\n555.555.0100\njq@example.com'],
    'TEST DATA – Acme Test Foods (fictional) Recalls Ham',
  );
  // The firm is public (it is in the title), the person and the job title are not.
  assert.deepEqual(sensitive.sort(), ['head of sales', 'jamie quux (fictional'].sort());
  assert.deepEqual(pressReleaseLines(html, sensitive), [
    'WASHINGTON – Acme Test Foods (fictional), a Nowhere establishment, is recalling ham.',
    'The firm regrets the error.',
    'Stores were notified.',
  ]);
  assert.deepEqual(pressReleaseLines('', []), []);
  assert.deepEqual(pressReleaseLines(null, []), []);
});

test('establishment numbers, dates and phone-shaped values are never identifiers; a case code is a lot', () => {
  const record = {
    field_recall_number: '999-2026',
    langcode: 'English',
    field_title: 'TEST DATA – Recall',
    field_product_items:
      '<ul><li>10-lb. cases with “EST. 12345”, “EST. P-45678”, “P-45678”, “V-123” and case code 7744, packed on 02/03/2026.</li></ul>',
    field_summary:
      '<p>The products bear establishment number “EST. M12345A” inside the USDA mark of inspection.</p>',
  };
  const [draft] = usFsis.parse({ name: 'x.json', body: Buffer.from(JSON.stringify([record])) }).drafts;
  assert.deepEqual(draft?.identifiers, [
    { kind: 'lot', value: '7744', normalized: '7744', confidence: 'inferred' },
  ]);
});

test('the hazard comes from the reason and title, else from the narrative, never from the advice', () => {
  // "Processing Defect" names a failing; the narrative names the harm.
  assert.equal(
    fsisHazard('Processing Defect', 'TEST DATA – Recall of coppa', [
      'The products may be under processed, which may have resulted in contamination with Salmonella.',
    ]),
    'microbial_contamination',
  );
  // "Import Violation": the pathogens are in the disposal advice, not the product.
  assert.equal(
    fsisHazard('Import Violation', 'TEST DATA – Recall of imported sausage', [
      'The products were not presented for import reinspection.',
      'Consumers are urged not to consume them; double bag the product, as it may carry pathogens of concern to domestic livestock, and throw it away.',
    ]),
    'other',
  );
  assert.equal(
    fsisHazard('Misbranding, Unreported Allergens', null, ['It contains Salmonella.']),
    'undeclared_allergen',
  );
});

// --- twins, languages, record numbers --------------------------------------------------------

function rec(number: string, langcode: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { field_recall_number: number, langcode, field_title: `TEST DATA ${number} ${langcode}`, ...extra };
}

function parseRecords(records: unknown[]): RecallDraft[] {
  return usFsis.parse({ name: 'x.json', body: Buffer.from(JSON.stringify(records)) }).drafts;
}

test('merges English and Spanish twins on the recall number, keeping the English one, in either order', () => {
  for (const records of [
    [rec('001-2099', 'Spanish'), rec('001-2099', 'English')],
    [rec('001-2099', 'English'), rec('001-2099', 'Spanish')],
    [rec('001-2099', 'Spanish'), rec(' 001-2099 ', 'English')], // padded twin
  ]) {
    const drafts = parseRecords(records);
    assert.deepEqual(
      drafts.map((d) => [d.recordId, d.title]),
      [['001-2099', 'TEST DATA 001-2099 English']],
    );
  }
  // Both fixtures: every English/Spanish pair merged, the Spanish-only notice kept.
  assert.deepEqual(
    parseFixture(MAIN).drafts.map((d) => d.recordId),
    ['901-2026', '902-2026', '903-2026', 'PHA-02302026-91', '919-920-2026', '904-2026', '905-2026'],
  );
  assert.deepEqual(
    parseFixture(JUNE_SHAPE).drafts.map((d) => d.recordId),
    ['907-2026', 'PHA-02312026-92'],
  );
});

test('a Spanish record stays when no English record covers it, and is marked by its language', () => {
  const drafts = parseRecords([
    rec('002-2099', 'Spanish'),
    rec('003-2099', 'English'),
    rec('004-2099', 'French'), // no such language today; kept, marked the same way
  ]);
  assert.deepEqual(
    drafts.map((d) => [d.recordId, d.title]),
    [
      ['002-2099', '[Spanish] TEST DATA 002-2099 Spanish'],
      ['003-2099', 'TEST DATA 003-2099 English'],
      ['004-2099', '[French] TEST DATA 004-2099 French'],
    ],
  );
});

test('compound recall numbers: one notice, merged with twins filed under its parts or the whole', () => {
  assert.deepEqual(fsisRecallNumbers('019-020-2026'), ['019-2026', '020-2026']);
  assert.deepEqual(fsisRecallNumbers('001-002-003-2026'), ['001-2026', '002-2026', '003-2026']);
  assert.deepEqual(fsisRecallNumbers('036-2025'), ['036-2025']);
  assert.deepEqual(fsisRecallNumbers('PHA-04092026-01'), ['PHA-04092026-01']);
  assert.deepEqual(fsisRecallNumbers('007-2020-EXP'), ['007-2020-EXP']);

  // English compound, Spanish filed per part: the parts are covered, so they are twins.
  assert.deepEqual(
    parseRecords([
      rec('019-020-2026', 'English'),
      rec('019-2026', 'Spanish'),
      rec('020-2026', 'Spanish'),
    ]).map((d) => d.recordId),
    ['019-020-2026'],
  );
  // English per part, Spanish compound: covered too.
  assert.deepEqual(
    parseRecords([
      rec('019-2026', 'English'),
      rec('020-2026', 'English'),
      rec('019-020-2026', 'Spanish'),
    ]).map((d) => d.recordId),
    ['019-2026', '020-2026'],
  );
  // Only half covered: the Spanish compound notice stays.
  assert.deepEqual(
    parseRecords([rec('019-2026', 'English'), rec('019-020-2026', 'Spanish')]).map((d) => d.recordId),
    ['019-2026', '019-020-2026'],
  );
});

test('two records of the same language and number: the later last-modified date wins', () => {
  const drafts = parseRecords([
    rec('005-2099', 'English', { field_title: 'old', field_last_modified_date: '2099-01-01' }),
    rec('005-2099', 'English', { field_title: 'new', field_last_modified_date: '2099-02-01' }),
    rec('005-2099', 'English', { field_title: 'undated', field_last_modified_date: '' }),
  ]);
  assert.deepEqual(
    drafts.map((d) => d.title),
    ['new'],
  );
});

test('falls back to field_recall_number_export when field_recall_number is empty', () => {
  const drafts = parseRecords([
    { field_recall_number: '', field_recall_number_export: '006-2099', langcode: 'English' },
  ]);
  assert.equal(drafts[0]?.recordId, '006-2099');
});

test('accepts multi-value fields as strings (before June 2026) and as arrays (since)', () => {
  const base = { field_recall_number: '007-2099', langcode: 'English', field_title: 'TEST DATA' };
  const asString = parseRecords([
    { ...base, field_recall_reason: 'Misbranding, Unreported Allergens', field_product_items: 'Lot 12345' },
  ])[0]!;
  const asArray = parseRecords([
    {
      ...base,
      field_recall_reason: ['Misbranding', 'Unreported Allergens'],
      field_product_items: ['Lot 12345'],
    },
  ])[0]!;
  const empty = parseRecords([{ ...base, field_recall_reason: [], field_product_items: [] }])[0]!;
  assert.deepEqual(asString.hazard, {
    category: 'undeclared_allergen',
    text: 'Misbranding, Unreported Allergens',
  });
  assert.deepEqual(asArray.hazard, asString.hazard);
  assert.deepEqual(asArray.identifiers, asString.identifiers);
  assert.equal(asArray.identifiers.length, 1);
  assert.deepEqual(empty.hazard, { category: 'other', text: null }); // from the title alone
  assert.deepEqual(empty.identifiers, []);
});

// --- mappings --------------------------------------------------------------------------------

test('maps FSIS classes, risk levels and public health alerts to severities', () => {
  const cases: [string | undefined, string | undefined, string | undefined, string][] = [
    ['Class I', 'High - Class I', 'Active Recall', 'serious'],
    ['Class II', 'Low - Class II', 'Closed Recall', 'medium'],
    ['Class III', 'Marginal - Class III', 'Closed Recall', 'low'],
    ['Public Health Alert', 'Public Health Alert', 'Public Health Alert', 'high'],
    ['', 'High - Class I', 'Active Recall', 'serious'], // risk level when the class is empty
    ['', 'Medium - Class I', 'Active Recall', 'serious'], // it is still Class I
    ['', 'High -Class I', 'Active Recall', 'serious'],
    ['', '', 'Public Health Alert', 'high'],
    ['', '', 'Outbreak', 'unknown'],
    [undefined, undefined, undefined, 'unknown'],
    ['Not Yet Classified', 'High - Class I', 'Active Recall', 'unknown'], // an unknown class is not guessed
  ];
  for (const [cls, risk, type, expected] of cases) {
    assert.equal(
      fsisSeverity({ field_recall_classification: cls, field_risk_level: risk, field_recall_type: type }),
      expected,
      JSON.stringify([cls, risk, type]),
    );
  }
});

test('remedy: FSIS disposal wording, refunds, and no advice at all', () => {
  assert.equal(
    fsisRemedy(['These products should be thrown away or returned to the place of purchase.']),
    'dispose',
  );
  assert.equal(fsisRemedy(['Consumers are urged not to consume them.']), 'dispose');
  assert.equal(fsisRemedy(['Estos productos deben desecharse o devolverse al lugar de compra.']), 'dispose');
  assert.equal(
    fsisRemedy(['Consumers are urged to return it to the place of purchase for a refund.']),
    'refund',
  );
  assert.equal(fsisRemedy(['Consumers are urged to check their freezers.']), 'other');
  assert.equal(fsisRemedy([]), 'unknown');
});

test('dates, addresses and HTML text', () => {
  assert.equal(fsisDate('2026-02-12'), '2026-02-12');
  assert.equal(fsisDate(' 2026-02-12 '), '2026-02-12');
  assert.equal(fsisDate('2026-02-30'), null);
  assert.equal(fsisDate('02/12/2026'), null);
  assert.equal(fsisDate(''), null);
  assert.equal(fsisDate(null), null);

  assert.equal(
    fsisUrl('http://www.fsis.usda.gov/recalls-alerts/x'),
    'https://www.fsis.usda.gov/recalls-alerts/x',
  );
  assert.equal(fsisUrl('/es/retirada/x'), 'https://www.fsis.usda.gov/es/retirada/x');
  assert.equal(fsisUrl('http://example.org/x'), 'http://example.org/x');
  assert.equal(fsisUrl('javascript:alert(1)'), null);
  assert.equal(fsisUrl(''), null);

  assert.equal(decodeEntities('Quality Poultry &amp;amp; Seafood'), 'Quality Poultry & Seafood');
  assert.equal(decodeEntities('Pilgrim&#039;s &#x2014; &eacute; &bogus; &#0;'), "Pilgrim's — é &bogus; &#0;");
  assert.deepEqual(
    htmlToLines('&lt;p&gt;One &amp;amp; two&lt;/p&gt;&lt;ul&gt;&lt;li&gt;Three&lt;/li&gt;&lt;/ul&gt;'),
    ['One & two', 'Three'],
  );
  assert.deepEqual(htmlToLines('a\r\n\r\n  b\u200b c&nbsp;d <2 kg<br/>e<!-- x --><script>bad()</script>'), [
    'a',
    'b c d <2 kg',
    'e',
  ]);
});

// --- drift and shape -------------------------------------------------------------------------

test('fails loudly with a format error when the response drifts', () => {
  const bad: [string, string][] = [
    ['not JSON', '<html>Access Denied</html>'],
    ['an object, not an array', JSON.stringify({ data: [] })],
  ];
  for (const [why, body] of bad) {
    assert.throws(
      () => usFsis.parse({ name: 'x.json', body: Buffer.from(body), url: 'https://fsis.test/x' }),
      (e: unknown) =>
        e instanceof UpstreamError && e.failure === 'format' && e.details.url === 'https://fsis.test/x',
      why,
    );
  }
});

test('sets aside a record that drifted, with its place and reason, and reads the rest', () => {
  const bad: BadRecord[] = [
    ['a record that is not an object', 'x', '[0]', /schema at \/: /],
    ['no langcode', { field_recall_number: '001-2099' }, '[1] (001-2099)', /langcode/],
    ['no recall number at all', { langcode: 'English' }, '[2]', /^no field_recall_number$/],
    [
      'an empty recall number',
      { field_recall_number: '  ', langcode: 'English' },
      '[3]',
      /field_recall_number/,
    ],
    [
      'a text field of the wrong type',
      { field_recall_number: '002-2099', langcode: 'English', field_title: 42 },
      '[4] (002-2099)',
      /field_title/,
    ],
    [
      'a multi-value field holding numbers',
      { field_recall_number: '003-2099', langcode: 'English', field_states: [1, 2] },
      '[5] (003-2099)',
      /field_states/,
    ],
    [
      'a contact field as an object',
      { field_recall_number: '004-2099', langcode: 'English', field_company_media_contact: { n: 1 } },
      '[6] (004-2099)',
      /field_company_media_contact/,
    ],
  ];
  const parsed = usFsis.parse({
    name: 'x.json',
    body: Buffer.from(JSON.stringify([...bad.map(([, r]) => r), rec('005-2099', 'English')])),
  });
  assertSetAside(parsed, ['005-2099'], bad);
});

test('accepts an empty array, a byte-order mark and unknown fields; data_as_of is the newest date', () => {
  assert.deepEqual(usFsis.parse({ name: 'x.json', body: Buffer.from('[]') }), {
    dataAsOf: null,
    drafts: [],
    setAside: [],
  });
  const parsed = usFsis.parse({
    name: 'x.json',
    body: Buffer.from(
      '\ufeff' +
        JSON.stringify([
          { ...rec('008-2099', 'English'), field_states_id: '557', field_recall_date: '2099-01-02' },
          {
            ...rec('009-2099', 'English'),
            field_last_modified_date: '2099-03-04',
            field_recall_date: '2099-01-01',
          },
        ]),
    ),
  });
  assert.equal(parsed.drafts.length, 2);
  assert.equal(parsed.dataAsOf, '2099-03-04');
  assert.equal(parseFixture(MAIN).dataAsOf, '2026-05-21');
  assert.equal(parseFixture(JUNE_SHAPE).dataAsOf, '2026-06-25');
});

test('describes the feed: meta, licence and mirror files', () => {
  assert.equal(usFsis.meta.id, 'us-fsis');
  assert.equal(usFsis.meta.agency, 'USDA Food Safety and Inspection Service');
  assert.equal(usFsis.meta.jurisdiction, 'US');
  assert.match(usFsis.meta.licence.attribution, /USDA Food Safety and Inspection Service.*public domain/);
  assert.equal(usFsis.meta.homepage, 'https://www.fsis.usda.gov/recalls');
  assert.equal(usFsis.meta.defaultBaseUrl, 'https://www.fsis.usda.gov');
  assert.equal(usFsis.meta.cadenceHours, 24);
  assert.equal(usFsis.acceptsFile(MAIN), true);
  assert.equal(usFsis.acceptsFile('RECALL-V1.JSON'), true);
  assert.equal(usFsis.acceptsFile('readme.md'), false);
});

// --- fetching, against a local agency --------------------------------------------------------

const client = createUpstreamClient({ timeoutMs: 2_000, retries: 0, sleep: async () => {} });

function plainFetcher(): PageFetcher {
  return { get: (url, init) => client.get(url, init) };
}

async function collect(pages: AsyncIterable<RawPage>): Promise<RawPage[]> {
  const out: RawPage[] = [];
  for await (const p of pages) out.push(p);
  return out;
}

function ctx(baseUrl: string, fetcher: PageFetcher): FetchContext {
  return { baseUrl, fetcher, now: new Date('2026-07-01T06:00:00Z'), since: null };
}

test('fetches the whole dataset in one GET, with browser-like headers, and yields it as served', async (t) => {
  const body = fixture(MAIN);
  const s = await scriptedAgency(t, [
    [
      '/fsis/api/recall/v/1',
      (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body),
    ],
  ]);
  assert.equal(fsisRecallsUrl('https://www.fsis.usda.gov/'), 'https://www.fsis.usda.gov/fsis/api/recall/v/1');
  const pages = await collect(usFsis.fetch(ctx(`${s.base}/`, plainFetcher())));
  assert.equal(pages.length, 1);
  assert.equal(pages[0]!.name, 'recall-v1.json');
  assert.equal(pages[0]!.url, s.url('/fsis/api/recall/v/1'));
  assert.deepEqual(pages[0]!.body, body);
  assert.match(String(s.requests[0]?.headers['user-agent']), /^Mozilla\/5\.0 /);
  assert.match(String(s.requests[0]?.headers.accept), /application\/json/);
  assert.ok(s.requests[0]?.headers['accept-language']);
  assert.equal(usFsis.parse(pages[0]!).drafts.length, 7);
  await s.finish();
});

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'recalls-fsis-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('an unchanged dataset (304) is served from the archive through the conditional fetcher', async (t) => {
  const body = fixture(JUNE_SHAPE);
  const s = await scriptedAgency(t, [
    ['/fsis/api/recall/v/1', (_req, res) => res.writeHead(200, { etag: '"1777472976"' }).end(body)],
    ['/fsis/api/recall/v/1', (_req, res) => res.writeHead(304, { etag: '"1777472976"' }).end()],
  ]);
  const archive = createArchive(await tempDir(t));
  const runOnce = async (runId: string): Promise<RawPage[]> => {
    const fetcher = createConditionalFetcher({
      client,
      archiveRun: archive.startRun('us-fsis', runId),
      state: await archive.loadFetchState('us-fsis'),
    });
    const pages = await collect(usFsis.fetch(ctx(s.base, fetcher)));
    for (const page of pages) await fetcher.archive(page);
    await archive.saveFetchState('us-fsis', fetcher.state());
    return pages;
  };
  await runOnce('r1');
  const second = await runOnce('r2');
  assert.equal(s.requests[1]?.headers['if-none-match'], '"1777472976"');
  assert.deepEqual(second[0]?.body, body);
  assert.deepEqual(
    usFsis.parse(second[0]!).drafts.map((d) => d.recordId),
    ['907-2026', 'PHA-02312026-92'],
  );
  await s.finish();
});

test('an agency error surfaces as an UpstreamError from fetch', async (t) => {
  const s = await scriptedAgency(t, [
    ['/fsis/api/recall/v/1', (_req, res) => res.writeHead(403).end('denied')],
  ]);
  await assert.rejects(
    collect(usFsis.fetch(ctx(s.base, plainFetcher()))),
    (e: unknown) => e instanceof UpstreamError && e.failure === 'http_status' && e.details.status === 403,
  );
  await s.finish();
});
