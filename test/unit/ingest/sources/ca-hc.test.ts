import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RecallDraft } from '../../../../src/domain/recall.ts';
import { UpstreamError } from '../../../../src/ingest/errors.ts';
import { createUpstreamClient } from '../../../../src/ingest/http-client.ts';
import type { FetchContext, PageFetcher, RawPage } from '../../../../src/ingest/source.ts';
import { hcDumpUrl } from '../../../../src/ingest/sources/ca-hc/fetch.ts';
import { caHc } from '../../../../src/ingest/sources/ca-hc/index.ts';
import {
  hcClassLabel,
  hcDate,
  hcHazardCategory,
  hcProductCategory,
  hcSeverity,
  hcUrl,
} from '../../../../src/ingest/sources/ca-hc/normalise.ts';
import { scriptedAgency } from '../../../support/scripted-agency.ts';
import { assertSetAside, type BadRecord } from '../../../support/set-aside.ts';
import { requireShared, sharedPath } from '../../../support/shared.ts';

const DUMP = fileURLToPath(new URL('../../../fixtures/ca-hc/HCRSAMOpenData.json', import.meta.url));

function dump(): Buffer {
  return readFileSync(DUMP);
}

function parseRows(rows: unknown[]): RecallDraft[] {
  return caHc.parse({ name: 'x.json', body: Buffer.from(JSON.stringify(rows)) }).drafts;
}

const SITE = 'https://recalls-rappels.canada.ca/en/alert-recall/';

interface ExpectedDraft {
  title: string;
  severity: RecallDraft['severity'];
  source_classification: string | null;
  hazard: RecallDraft['hazard'];
  remedy: RecallDraft['remedy'];
  category: string;
  published: string | null;
  url: string;
  summary: string;
}

/** Every row of the fixture dump, read by hand from the file. */
const EXPECTED: Record<string, ExpectedDraft> = {
  // Padded title with a double space inside; relative URL; extra columns (Main issue …).
  '990001': {
    title:
      'TEST DATA – Example Creamery (fictional) brand soft cheese recalled due to Listeria monocytogenes',
    severity: 'serious',
    source_classification: 'Class 1',
    hazard: { category: 'microbial_contamination', text: 'Microbial contamination - Listeria monocytogenes' },
    remedy: 'dispose',
    category: 'food',
    published: '2026-06-02',
    url: `${SITE}test-data-example-creamery-fictional-brand-soft-cheese-recalled-due-listeria-monocytogenes`,
    summary:
      'Product: Example Creamery (fictional) Soft Ripened Cheese\n' +
      'Issue: Microbial contamination - Listeria monocytogenes\n' +
      'What you should do: Check to see if you have recalled products. Do not consume, serve, use, sell, or distribute recalled products. Recalled products should be thrown out or returned to the location where they were purchased.',
  },
  // `&amp;` in title and product.
  '990002': {
    title: 'TEST DATA – Sample Bakery (fictional) Cookies & Cream wafers recalled due to undeclared milk',
    severity: 'medium',
    source_classification: 'Class 2',
    hazard: { category: 'undeclared_allergen', text: 'Allergen - Milk' },
    remedy: 'dispose',
    category: 'food', // Category "Multiple food items"
    published: '2026-05-28',
    url: `${SITE}test-data-sample-bakery-fictional-cookies-cream-wafers-recalled-due-undeclared-milk`,
    summary:
      'Product: Sample Bakery (fictional) Cookies & Cream Wafers\n' +
      'Issue: Allergen - Milk\n' +
      'What you should do: Do not consume the recalled products. If you have an allergy to milk, do not consume the recalled products as they may cause a serious or life-threatening reaction.',
  },
  // `--` as the class.
  '990003': {
    title: 'TEST DATA – Mockfield Farms (fictional) frozen mixed vegetables recalled due to pieces of glass',
    severity: 'unknown',
    source_classification: null,
    hazard: { category: 'foreign_matter', text: 'Extraneous material' },
    remedy: 'dispose',
    category: 'food',
    published: '2026-05-15',
    url: `${SITE}test-data-mockfield-farms-fictional-frozen-mixed-vegetables-recalled-due-pieces-glass`,
    summary:
      'Product: Mockfield Farms (fictional) Frozen Mixed Vegetables\n' +
      'Issue: Extraneous material\n' +
      'What you should do: Do not consume, serve, use, sell, or distribute recalled products.',
  },
  // A class range: the more severe end. "Labelling" names no category: the title says allergen.
  '990004': {
    title:
      'TEST DATA – Various Pretendia (fictional) brand sauces recalled due to incorrect allergen labelling',
    severity: 'medium',
    source_classification: 'Class 2-3',
    hazard: { category: 'undeclared_allergen', text: 'Labelling' },
    remedy: 'dispose',
    category: 'food',
    published: '2026-04-30',
    url: `${SITE}test-data-various-pretendia-fictional-brand-sauces-recalled`,
    summary:
      'Product: Pretendia (fictional) Pasta Sauces\n' +
      'Issue: Labelling\n' +
      'What you should do: Do not consume, serve, use, sell, or distribute recalled products.',
  },
  // `&nbsp;` entities in "What you should do".
  '990005': {
    title: 'TEST DATA – Fictitol (fictional) oral solution recalled due to microbial contamination',
    severity: 'serious',
    source_classification: 'Type I',
    hazard: { category: 'microbial_contamination', text: 'Microbial contamination' },
    remedy: 'stop_use',
    category: 'drugs',
    published: '2026-06-01',
    url: `${SITE}test-data-fictitol-fictional-oral-solution-recalled-due-microbial-contamination`,
    summary:
      'Product: Fictitol (fictional) 5 mg/mL oral solution\n' +
      'Issue: Microbial contamination\n' +
      'What you should do: Stop using the product. Consult your health care professional if you have used the product and have health concerns. Report any health product related side effects to Health Canada.',
  },
  // Null Product.
  '990006': {
    title: 'TEST DATA – Placebo Naturals (fictional) Multi Vitamin: affected lots incorrectly labelled',
    severity: 'medium',
    source_classification: 'Type II',
    hazard: { category: 'mislabelling', text: 'Labelling' },
    remedy: 'other',
    category: 'natural_health_products',
    published: '2026-05-20',
    url: `${SITE}test-data-placebo-naturals-fictional-multi-vitamin-affected-lots-incorrectly-labelled`,
    summary:
      'Issue: Labelling\nWhat you should do: Report any health product related side effects to Health Canada.',
  },
  '990007': {
    title: 'TEST DATA – Mockmed (fictional) infusion pump: device malfunction',
    severity: 'low',
    source_classification: 'Type III',
    hazard: { category: 'quality_defect', text: 'Device malfunction' },
    remedy: 'other',
    category: 'medical_devices',
    published: '2026-03-11',
    url: `${SITE}test-data-mockmed-fictional-infusion-pump-device-malfunction`,
    summary:
      'Product: Mockmed (fictional) Infusion Pump Model MM-100\n' +
      'Issue: Device malfunction\n' +
      'What you should do: Contact the manufacturer if you have questions about this recall.',
  },
  // A Type range.
  '990008': {
    title:
      'TEST DATA – Unauthorized Fakemax (fictional) sexual enhancement product may pose serious health risks',
    severity: 'serious',
    source_classification: 'Type I-II',
    hazard: { category: 'chemical', text: 'Undeclared drug ingredient (sildenafil)' },
    remedy: 'stop_use',
    category: 'drugs',
    published: '2026-05-09',
    url: `${SITE}test-data-unauthorized-fakemax-fictional-sexual-enhancement-product`,
    summary:
      'Product: Fakemax (fictional) capsules\n' +
      'Issue: Undeclared drug ingredient (sildenafil)\n' +
      'What you should do: Do not use the product. Consult a health care professional if you have used it and have health concerns.',
  },
  // Empty class; an absolute URL is kept as it is.
  '990009': {
    title: 'TEST DATA – Sampleware (fictional) glass food jars recalled due to laceration hazard',
    severity: 'unknown',
    source_classification: null,
    hazard: { category: 'laceration', text: 'Laceration hazard' },
    remedy: 'refund',
    category: 'consumer_products',
    published: '2026-04-16',
    url: `${SITE}test-data-sampleware-fictional-glass-food-jars-recalled-due-laceration-hazard`,
    summary:
      'Product: Sampleware (fictional) 500 mL Glass Food Jar\n' +
      'Issue: Laceration hazard\n' +
      'What you should do: Consumers should immediately stop using the recalled product and contact Sampleware (fictional) for a full refund.',
  },
  // Transport Canada: null Last updated, null class, null Product.
  '990010': {
    title: 'TEST DATA – 2026 Notacar (fictional) Roadster: brake hoses may crack',
    severity: 'unknown',
    source_classification: null,
    hazard: { category: 'vehicle_crash', text: 'Brakes' },
    remedy: 'replace',
    category: 'vehicles',
    published: null,
    url: `${SITE}test-data-2026-notacar-fictional-roadster-brake-hoses-may-crack`,
    summary:
      'Issue: Brakes\n' +
      'What you should do: Owners will be notified by mail and asked to take their vehicle to a dealer to have the brake hoses replaced.',
  },
  // Zero-width spaces in title, URL, product, issue and class.
  '990011': {
    title: 'TEST DATA – Sample Snacks (fictional) trail mix recalled due to undeclared peanut',
    severity: 'medium',
    source_classification: 'Class 2',
    hazard: { category: 'undeclared_allergen', text: 'Allergen - Peanut' },
    remedy: 'dispose',
    category: 'food',
    published: '2026-06-03',
    url: `${SITE}test-data-sample-snacks-fictional-trail-mix-recalled-due-undeclared-peanut`,
    summary:
      'Product: Sample Snacks (fictional) Trail Mix\n' +
      'Issue: Allergen - Peanut\n' +
      'What you should do: Do not consume the recalled product.',
  },
  // An advisory with no class, archived.
  '990012': {
    title: 'TEST DATA – Health Canada warns of unauthorized Imaginaglow (fictional) skin-lightening creams',
    severity: 'unknown',
    source_classification: null,
    hazard: { category: 'other', text: 'Unauthorized product' },
    remedy: 'stop_use',
    category: 'drugs',
    published: '2026-02-19',
    url: `${SITE}test-data-health-canada-warns-unauthorized-imaginaglow-fictional-skin-lightening-creams`,
    summary:
      'Product: Imaginaglow (fictional) creams\n' +
      'Issue: Unauthorized product\n' +
      'What you should do: Stop using these products. Consult your health care professional if you have health concerns.',
  },
};

test('normalises every row of the fixture dump as read by hand', () => {
  const parsed = caHc.parse({ name: 'HCRSAMOpenData.json', body: dump() });
  assert.equal(parsed.dataAsOf, '2026-06-03');
  assert.deepEqual(
    parsed.drafts.map((d) => d.recordId),
    Object.keys(EXPECTED),
  );
  for (const d of parsed.drafts) {
    const e = EXPECTED[d.recordId]!;
    const id = d.recordId;
    assert.equal(d.title, e.title, id);
    assert.equal(d.severity, e.severity, id);
    assert.equal(d.source_classification, e.source_classification, id);
    assert.deepEqual(d.hazard, e.hazard, id);
    assert.equal(d.remedy, e.remedy, id);
    assert.deepEqual(d.product, { category: e.category, brands: [], models: [] }, id);
    assert.equal(d.recall_date, null, id);
    assert.equal(d.published_date, e.published, id);
    assert.equal(d.url, e.url, id);
    assert.equal(d.summary, e.summary, id);
    assert.deepEqual(d.countries, ['CA'], id);
    assert.deepEqual(d.identifiers, [], id); // the dump has no identifier columns
  }
});

test('cleans every quirk of the dump: padding, entities, zero-width spaces, no-break spaces', () => {
  const json = JSON.stringify(caHc.parse({ name: 'x.json', body: dump() }).drafts);
  assert.ok(!/[\u200b-\u200f\u2060\ufeff\u00a0]/.test(json), 'no invisible or no-break characters');
  assert.ok(!/&(?:amp|nbsp|#\d+);/.test(json), 'no entities');
  assert.ok(!/"\s|\s"| {2}/.test(json), 'no padding and no double spaces');
});

test('maps Recall class to severity: Class 1/2/3 and Type I/II/III, ranges by their most severe end', () => {
  const cases: [string | null | undefined, string, string | null][] = [
    ['Class 1', 'serious', 'Class 1'],
    ['Class 2', 'medium', 'Class 2'],
    ['Class 3', 'low', 'Class 3'],
    ['Type I', 'serious', 'Type I'],
    ['Type II', 'medium', 'Type II'],
    ['Type III', 'low', 'Type III'],
    ['class 1', 'serious', 'class 1'],
    ['Class 2-3', 'medium', 'Class 2-3'],
    ['Class 3 - 1', 'serious', 'Class 3 - 1'],
    ['Class 1/Class 2', 'serious', 'Class 1/Class 2'],
    ['Class 2, 3', 'medium', 'Class 2, 3'],
    ['Type II – III', 'medium', 'Type II – III'],
    ['Type I-II', 'serious', 'Type I-II'],
    ['Type II to III', 'medium', 'Type II to III'],
    ['  Class 2\u200b ', 'medium', 'Class 2'],
    ['--', 'unknown', null],
    ['-', 'unknown', null],
    ['N/A', 'unknown', null],
    ['', 'unknown', null],
    [null, 'unknown', null],
    [undefined, 'unknown', null],
    ['Class 4', 'unknown', 'Class 4'],
    ['Type IV', 'unknown', 'Type IV'],
    ['2', 'unknown', '2'], // no label, no guess
    ['Recall', 'unknown', 'Recall'],
  ];
  for (const [value, severity, label] of cases) {
    assert.equal(hcSeverity(value), severity, JSON.stringify(value));
    assert.equal(hcClassLabel(value), label, JSON.stringify(value));
  }
});

test('dates, addresses and categories', () => {
  assert.equal(hcDate('2026-06-02'), '2026-06-02');
  assert.equal(hcDate('2026-06-02 13:45:00'), '2026-06-02');
  assert.equal(hcDate('2026-06-02T13:45:00Z'), '2026-06-02');
  assert.equal(hcDate('2026-02-30'), null);
  assert.equal(hcDate('06/02/2026'), null);
  assert.equal(hcDate(null), null);

  assert.equal(hcUrl('/en/alert-recall/x'), `${SITE}x`);
  assert.equal(hcUrl('en/alert-recall/x'), `${SITE}x`);
  assert.equal(hcUrl(` ${SITE}x `), `${SITE}x`);
  assert.equal(hcUrl('/en/alert-recall/caf&amp;eacute;'), `${SITE}caf%C3%A9`);
  assert.equal(hcUrl('mailto:someone@example.com'), null);
  assert.equal(hcUrl(null), null);
});

test('maps Category, or for a fine subcategory the Organization, to a product category', () => {
  const cases: [string | null, string | null, string | null][] = [
    // the coarse list says it
    ['Medical devices', 'Health Canada', 'medical_devices'],
    ['  Natural health products ', 'Drugs and health products', 'natural_health_products'],
    ['Food', null, 'food'],
    ['Multiple food items', 'CFIA', 'food'],
    ['Consumer products', null, 'consumer_products'],
    ['Vehicles', null, 'vehicles'],
    ['Drugs', 'Communications and Public Affairs Branch', 'drugs'],
    // a fine subcategory: the publishing organisation says it
    ['Fresh', 'CFIA', 'food'],
    ['Candy, confectionary, snacks and sweeteners', 'CFIA', 'food'],
    ['Fish &amp; seafood', ' cfia ', 'food'],
    ['Chemicals', 'Consumer product safety', 'consumer_products'],
    ['Orthopaedics', 'Medical devices', 'medical_devices'],
    ['Gastroenterology and urology', 'Medical devices', 'medical_devices'],
    ['Prescription drugs', 'Marketed health products', 'drugs'],
    ['Light Truck & Van', 'TC', 'vehicles'],
    ['Passenger car', 'Transport Canada', 'vehicles'],
    // neither known: no guess
    ['Fresh', 'Communications and Public Affairs Branch', null],
    ['Produits de santé', null, null],
    ['', '', null],
    [null, null, null],
  ];
  for (const [category, organization, expected] of cases)
    assert.equal(hcProductCategory(category, organization), expected, `${category} / ${organization}`);
});

test('maps every value of a multi-valued Issue, the most specific harm first, else with the title', () => {
  const cases: [string | null, string | null, string | null][] = [
    ['Wheat - Egg - Gluten', null, 'undeclared_allergen'], // bare allergen names, as CFIA lists them
    ['Tree nuts', null, 'undeclared_allergen'],
    ['Sulphites - Mustard', null, 'undeclared_allergen'],
    ['Salmonella', null, 'microbial_contamination'],
    ['Microbial contamination - Listeria monocytogenes', null, 'microbial_contamination'],
    ['Sterility', null, 'microbial_contamination'],
    ['Performance', 'Infusion pump', 'quality_defect'],
    ['Performance - Sterility', null, 'microbial_contamination'],
    ['Non harmful (quality or spoilage)', 'Syrup recalled due to spoilage', 'quality_defect'],
    ['Impact hazard - Laceration hazard', null, 'injury'],
    ['Chemical hazard - Choking hazard', null, 'chemical'],
    // a label naming no harm: the title says why
    ['Labelling and packaging', 'Cement recalled due to lack of child-resistant packaging', 'chemical'],
    ['Labelling', 'Sauce recalled due to undeclared egg', 'undeclared_allergen'],
    ['Brakes', 'Roadster: brake hoses may crack', 'vehicle_crash'],
    ['Lights And Instruments', 'Transport Canada Recall', 'other'],
    [null, null, null],
  ];
  for (const [issue, title, expected] of cases)
    assert.equal(hcHazardCategory(issue, title), expected, `${issue} / ${title}`);
});

test('masks an e-mail address in "What you should do", and keeps the rest of the advice', () => {
  const [draft] = parseRows([
    {
      NID: '5',
      'What you should do':
        'Stop using the product. Contact Example&nbsp;Co. (fictional) at orders@example.invalid or 1-800-555-0100.',
    },
  ]);
  assert.equal(
    draft?.summary,
    'What you should do: Stop using the product. Contact Example Co. (fictional) at [e-mail address removed] or 1-800-555-0100.',
  );
});

test('one draft per NID: a NID listed twice keeps its latest update; numeric NIDs are text', () => {
  const drafts = parseRows([
    { NID: '1', Title: 'TEST DATA old', 'Last updated': '2026-01-01' },
    { NID: 2, Title: 'TEST DATA numeric' },
    { NID: '1', Title: 'TEST DATA new', 'Last updated': '2026-02-01' },
    { NID: ' 1\u200b', Title: 'TEST DATA undated', 'Last updated': null },
  ]);
  assert.deepEqual(
    drafts.map((d) => [d.recordId, d.title]),
    [
      ['1', 'TEST DATA new'],
      ['2', 'TEST DATA numeric'],
    ],
  );
});

test('a row with only its NID gives an empty draft, not a guess', () => {
  const [draft] = parseRows([{ NID: '3' }]);
  assert.deepEqual(draft, {
    recordId: '3',
    title: null,
    summary: null,
    hazard: { category: null, text: null },
    product: { category: null, brands: [], models: [] },
    severity: 'unknown',
    source_classification: null,
    remedy: 'unknown',
    recall_date: null,
    published_date: null,
    countries: ['CA'],
    url: null,
    identifiers: [],
  });
});

test('fails loudly with a format error when the dump drifts', () => {
  const bad: [string, string][] = [
    ['not JSON', '<!DOCTYPE html><title>Maintenance</title>'],
    ['truncated JSON', '[{"NID": "1", "Title": "x"'],
    ['an object, not an array', JSON.stringify({ data: [] })],
  ];
  for (const [why, body] of bad) {
    assert.throws(
      () => caHc.parse({ name: 'x.json', body: Buffer.from(body), url: 'https://hc.test/x' }),
      (e: unknown) =>
        e instanceof UpstreamError && e.failure === 'format' && e.details.url === 'https://hc.test/x',
      why,
    );
  }
});

test('sets aside a row that drifted, with its place and reason, and reads the rest', () => {
  const bad: BadRecord[] = [
    ['a row that is not an object', ['990001'], '[0]'],
    ['a row without NID', { Title: 'x' }, '[1]'],
    ['an empty NID', { NID: ' \u200b' }, '[2]', /^empty NID$/],
    ['a NID of the wrong type', { NID: { id: 1 } }, '[3]'],
    ['a text column of the wrong type', { NID: '91', Title: ['x'] }, '[4] (91)'],
    ['Recall class as a number', { NID: '92', 'Recall class': 1 }, '[5] (92)', /Recall class/],
    ['Last updated as a number', { NID: '93', 'Last updated': 20260101 }, '[6] (93)'],
  ];
  const good = { NID: '4', Title: 'A good row' };
  const parsed = caHc.parse({
    name: 'x.json',
    body: Buffer.from(JSON.stringify([...bad.map(([, row]) => row), good])),
  });
  assertSetAside(parsed, ['4'], bad);
});

test('accepts an empty dump, a byte-order mark and unknown columns', () => {
  assert.deepEqual(caHc.parse({ name: 'x.json', body: Buffer.from('[]') }), {
    dataAsOf: null,
    drafts: [],
    setAside: [],
  });
  const parsed = caHc.parse({
    name: 'x.json',
    body: Buffer.from('\ufeff' + JSON.stringify([{ NID: '4', 'Main issue': 'x', 'Bacteria subtype': null }])),
  });
  assert.equal(parsed.drafts.length, 1);
});

test('describes the feed: meta, licence and mirror files', () => {
  assert.deepEqual(caHc.meta, {
    id: 'ca-hc',
    agency: 'Health Canada',
    jurisdiction: 'CA',
    licence: {
      id: 'OGL-Canada-2.0',
      url: 'https://open.canada.ca/en/open-government-licence-canada',
      attribution: 'Contains information licensed under the Open Government Licence – Canada.',
    },
    homepage: 'https://recalls-rappels.canada.ca',
    cadence: 'daily',
    cadenceHours: 24,
    defaultBaseUrl: 'https://recalls-rappels.canada.ca',
  });
  assert.equal(caHc.acceptsFile('HCRSAMOpenData.json'), true);
  assert.equal(caHc.acceptsFile('HCRSAMOpenData.csv'), false);
});

// --- fetching, against a local agency --------------------------------------------------------

const client = createUpstreamClient({ timeoutMs: 2_000, retries: 0, sleep: async () => {} });

function fetcher(): PageFetcher {
  return { get: (url, init) => client.get(url, init) };
}

function ctx(baseUrl: string): FetchContext {
  return { baseUrl, fetcher: fetcher(), now: new Date('2026-06-04T06:00:00Z'), since: null };
}

async function collect(pages: AsyncIterable<RawPage>): Promise<RawPage[]> {
  const out: RawPage[] = [];
  for await (const p of pages) out.push(p);
  return out;
}

const PATH = '/sites/default/files/opendata-donneesouvertes/HCRSAMOpenData.json';

test('fetches the whole English dump in one GET and yields it as served', async (t) => {
  const body = dump();
  const s = await scriptedAgency(t, [
    [PATH, (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body)],
  ]);
  assert.equal(hcDumpUrl('https://recalls-rappels.canada.ca/'), `https://recalls-rappels.canada.ca${PATH}`);
  const pages = await collect(caHc.fetch(ctx(`${s.base}/`)));
  assert.equal(pages.length, 1);
  assert.equal(pages[0]!.name, 'HCRSAMOpenData.json');
  assert.equal(pages[0]!.url, s.url(PATH));
  assert.deepEqual(pages[0]!.body, body);
  assert.match(String(s.requests[0]?.headers.accept), /application\/json/);
  // The record addresses point at the public site, not at the address fetched from.
  assert.ok(caHc.parse(pages[0]!).drafts.every((d) => d.url?.startsWith(SITE)));
  await s.finish();
});

test('an agency error surfaces as an UpstreamError from fetch', async (t) => {
  const s = await scriptedAgency(t, [[PATH, (_req, res) => res.writeHead(404).end('Not found')]]);
  await assert.rejects(
    collect(caHc.fetch(ctx(s.base))),
    (e: unknown) => e instanceof UpstreamError && e.failure === 'http_status' && e.details.status === 404,
  );
  await s.finish();
});

test('reads the dump in the shape served in June 2026: absolute URLs, Transport Canada rows, trailing spaces', () => {
  // test/fixtures/shapes/ca-hc-2026-06.json: project-written, in the shape of the real dump.
  const body = readFileSync(new URL('../../../fixtures/shapes/ca-hc-2026-06.json', import.meta.url));
  const { drafts, setAside, dataAsOf } = caHc.parse({ name: 'HCRSAMOpenData.json', body });
  assert.deepEqual(setAside, []);
  assert.equal(dataAsOf, '2026-06-30');
  assert.deepEqual(
    drafts.map((d) => [
      d.recordId,
      d.url?.startsWith('https://recalls-rappels.canada.ca/en/alert-recall/'),
      d.severity,
      d.hazard.category,
      d.product.category,
    ]),
    [
      ['990901', true, 'unknown', 'injury', 'consumer_products'],
      ['990902', true, 'unknown', 'other', 'vehicles'],
      ['990903', true, 'serious', 'undeclared_allergen', 'food'],
      // Health Canada's own labels for a failing: a device's "Performance", and spoilage the
      // agency calls "Non harmful" (not microbial contamination, which the title's word alone says).
      ['990904', true, 'medium', 'quality_defect', 'medical_devices'],
      ['990905', true, 'low', 'quality_defect', 'food'],
    ],
  );
  assert.equal(drafts[0]?.title?.endsWith('Hazards'), true, 'trailing spaces are trimmed');
  assert.equal(drafts[0]?.remedy, 'stop_use');
  assert.equal(drafts[2]?.remedy, 'dispose');
});

// --- the real rows ----------------------------------------------------------------------------

const REAL = sharedPath('upstream-samples', 'ca-hc');

/**
 * Every real row kept beside the project (two 2026-07 dumps), read by hand once: the fields the
 * mapping decides. The prose is the agency's and is not repeated here.
 */
const REAL_EXPECTED: Record<
  string,
  [category: string, hazard: string, severity: string, classification: string | null, remedy: string]
> = {
  // Fresh (CFIA), Issue "Salmonella"; "Do not consume … should be thrown out"
  '82264': ['food', 'microbial_contamination', 'medium', 'Class 2', 'dispose'],
  // Candy, confectionary… (CFIA), Issue "Wheat - Egg - Gluten": three allergens
  '82262': ['food', 'undeclared_allergen', 'serious', 'Class 1', 'dispose'],
  // Candy… (CFIA), "Non harmful (quality or spoilage)", no advice
  '82260': ['food', 'quality_defect', 'low', 'Class 3', 'unknown'],
  // Chemicals (Consumer product safety), "Labelling and packaging" (no child-resistant packaging),
  // an empty class; "stop using … instructions on disposal"
  '82258': ['consumer_products', 'chemical', 'unknown', null, 'dispose'],
  // Gastroenterology and urology (Medical devices), "Performance"
  '82281': ['medical_devices', 'quality_defect', 'medium', 'Type II', 'unknown'],
  // Orthopaedics (Medical devices), "Sterility"
  '82280': ['medical_devices', 'microbial_contamination', 'medium', 'Type II', 'unknown'],
  // Neurology (Medical devices), "Performance"
  '82279': ['medical_devices', 'quality_defect', 'medium', 'Type II', 'unknown'],
};

test('every real row maps as read by hand: categories, multi-valued issues, empty classes, absolute URLs', (t) => {
  if (!requireShared(t, REAL, 'upstream-samples/ca-hc')) return;
  const seen = new Set<string>();
  for (const name of readdirSync(REAL).filter((n) => caHc.acceptsFile(n))) {
    const parsed = caHc.parse({ name, body: readFileSync(join(REAL, name)) });
    assert.deepEqual(parsed.setAside, [], name);
    assert.match(parsed.dataAsOf ?? '', /^2026-0[67]-\d\d$/, name);
    for (const d of parsed.drafts) {
      const e = REAL_EXPECTED[d.recordId];
      assert.ok(e, `${d.recordId} was read by hand`);
      assert.deepEqual(
        [d.product.category, d.hazard.category, d.severity, d.source_classification, d.remedy],
        e,
        d.recordId,
      );
      assert.match(
        d.url ?? '',
        /^https:\/\/recalls-rappels\.canada\.ca\/en\/alert-recall\/[a-z0-9-]+$/,
        d.recordId,
      );
      assert.match(d.published_date ?? '', /^2026-0[67]-\d\d$/, d.recordId);
      assert.ok(d.hazard.text !== null && !/&\w+;|\s{2}/.test(JSON.stringify(d)), d.recordId);
      assert.ok(!(d.summary ?? '').includes('@'), `${d.recordId}: no e-mail address kept`);
      assert.deepEqual(d.identifiers, [], d.recordId);
      seen.add(d.recordId);
    }
  }
  assert.deepEqual(
    [...seen].sort(),
    Object.keys(REAL_EXPECTED).sort(),
    'every row read by hand is in the mirror',
  );
});
