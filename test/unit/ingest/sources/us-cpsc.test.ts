import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Identifier, RecallDraft } from '../../../../src/domain/recall.ts';
import { HAZARD_CATEGORIES, REMEDIES } from '../../../../src/domain/taxonomy.ts';
import { UpstreamError } from '../../../../src/ingest/errors.ts';
import { createUpstreamClient } from '../../../../src/ingest/http-client.ts';
import type { FetchContext, PageFetcher, RawPage } from '../../../../src/ingest/source.ts';
import { cpscRecallUrl } from '../../../../src/ingest/sources/us-cpsc/fetch.ts';
import { usCpsc } from '../../../../src/ingest/sources/us-cpsc/index.ts';
import {
  cpscDate,
  cpscRemedy,
  cpscUrl,
  isProseModelNoise,
} from '../../../../src/ingest/sources/us-cpsc/normalise.ts';
import { loadTruth } from '../../../support/identifier-truth.ts';
import { requireShared, sharedPath } from '../../../support/shared.ts';
import { scriptedAgency, type Handler } from '../../../support/scripted-agency.ts';
import { assertSetAside, type BadRecord } from '../../../support/set-aside.ts';

const SAMPLE_FILES = ['recalls-1.json', 'recalls-2.json', 'recalls-3.json'];

/** The real answers' bytes by file name, or undefined after skipping (or failing) when ../shared is absent. */
function loadSamples(t: TestContext): Map<string, Buffer> | undefined {
  const out = new Map<string, Buffer>();
  for (const name of SAMPLE_FILES) {
    const path = sharedPath('upstream-samples', 'us-cpsc', name);
    if (!requireShared(t, path, `upstream-samples/us-cpsc/${name}`)) return undefined;
    out.set(name, readFileSync(path));
  }
  return out;
}

function parseSamples(t: TestContext): RecallDraft[] | undefined {
  const samples = loadSamples(t);
  if (samples === undefined) return undefined;
  return [...samples].flatMap(([name, body]) => usCpsc.parse({ name, body }).drafts);
}

type Expected = [
  kind: Identifier['kind'],
  value: string,
  normalized: string,
  confidence: Identifier['confidence'],
];

/**
 * The identifiers real records outside the truth set (`test/truth/us-cpsc.json`, which governs
 * the records it holds) must yield, written by reading each record's prose and dedicated fields
 * (the comment says why where a reading needs it). No saved record has a filled
 * `Products[].Model` (the mirror dropped empty fields).
 */
const EXPECTED_IDENTIFIERS: Record<string, Expected[]> = {
  '9780': [],
  // "Name Model Number Magnum Biometric Pistol Vault BD4030B …", and "Model No. BD4030B" in the captions.
  '9865': [
    ['model', 'BD4030B', 'BD4030B', 'inferred'],
    ['model', 'BD4040B', 'BD4040B', 'inferred'],
    ['model', 'BD4055B', 'BD4055B', 'inferred'],
  ],
  '9866': [['batch', '221002US', '221002US', 'inferred']],
  '9892': [
    ['model', 'NS-AF10DBK2', 'NSAF10DBK2', 'inferred'],
    ['model', 'NS-AF10DSS2', 'NSAF10DSS2', 'inferred'],
    ['model', 'NS-AF34D2', 'NSAF34D2', 'inferred'],
    ['model', 'NS-AF5DSS2', 'NSAF5DSS2', 'inferred'],
    ['model', 'NS-AF5MSS2', 'NSAF5MSS2', 'inferred'],
    ['model', 'NS-AF8DBD2', 'NSAF8DBD2', 'inferred'],
  ],
  '9903': [
    ['lot', '623-PFHD', '623PFHD', 'inferred'],
    ['model', 'B0BG4L3997', 'B0BG4L3997', 'inferred'],
  ],
  '9984': [['upc', '197712076826', '00197712076826', 'extracted']],
  // "lot numbers … (PC: 0224 … and PC:1223 …)": production codes the record calls lot numbers.
  '10039': [
    ['lot', '0224', '0224', 'inferred'],
    ['lot', '1223', '1223', 'inferred'],
    ['model', '702053', '702053', 'inferred'],
    ['model', '768152', '768152', 'inferred'],
    ['upc', '810067681520', '00810067681520', 'extracted'],
    ['upc', '810447020536', '00810447020536', 'extracted'],
  ],
  // "Model 552, 52.5 LB Adjustable Dumbbells …" elsewhere: 52.5 is a weight; here lots and models of a list.
  '10095': [
    ['lot', 'BC01BJ01-111521', 'BC01BJ01111521', 'inferred'],
    ['lot', 'BC01BJ01-200623', 'BC01BJ01200623', 'inferred'],
    ['model', '4970-BL', '4970BL', 'inferred'],
    ['model', '5382-BL', '5382BL', 'inferred'],
    ['model', '6011', '6011', 'inferred'],
  ],
  '10146': [
    ['model', '206A0000', '206A0000', 'inferred'],
    ['model', '206A0001', '206A0001', 'inferred'],
  ],
  // "Model Name/ Number Serial Number(s) or Range TRX Series II / TRX150 3314306C8 (…-…)": serial numbers are
  // lots, and each range glued by a dash in a text of ranges is one range rule.
  '10306': [
    ['lot', '242740000006-250220000014', '242740000006..250220000014', 'inferred'],
    ['lot', '242750000127-250410000051', '242750000127..250410000051', 'inferred'],
    ['lot', '242830000177-250130000073', '242830000177..250130000073', 'inferred'],
    ['lot', '3314306C8', '3314306C8', 'inferred'],
    ['lot', '3314307C8', '3314307C8', 'inferred'],
    ['lot', '3314308C8', '3314308C8', 'inferred'],
    ['model', 'TRX150', 'TRX150', 'inferred'],
    ['model', 'TRX199', 'TRX199', 'inferred'],
    ['model', 'TRX199C', 'TRX199C', 'inferred'],
  ],
  // "(SKU #70084, UPC 193175488718)": a SKU is kept as a model (it names the product).
  '10329': [
    ['model', '70084', '70084', 'inferred'],
    ['upc', '193175488718', '00193175488718', 'extracted'],
  ],
  '10470': [
    ['batch', '062024', '062024', 'inferred'],
    ['model', 'KS101544-P00005', 'KS101544P00005', 'inferred'],
    ['model', 'KS101544-P00038', 'KS101544P00038', 'inferred'],
  ],
};

function byKindThenNormalized(a: Expected, b: Expected): number {
  const ka = `${a[0]}:${a[2]}`;
  const kb = `${b[0]}:${b[2]}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

function count(values: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const v of values) out.set(v, (out.get(v) ?? 0) + 1);
  return out;
}

// --- the 750 real records -----------------------------------------------------------------------

test('parses all 750 real CPSC records, keyed by RecallID, with the fixed CPSC mappings', (t) => {
  const samples = loadSamples(t);
  if (samples === undefined) return;
  const asOf: (string | null)[] = [];
  const drafts: RecallDraft[] = [];
  for (const [name, body] of samples) {
    const parsed = usCpsc.parse({ name, body });
    assert.equal(parsed.drafts.length, 250, name);
    asOf.push(parsed.dataAsOf);
    drafts.push(...parsed.drafts);
  }
  // the newest LastPublishDate of each file
  assert.deepEqual(asOf, ['2024-10-31', '2025-08-14', '2026-03-27']);
  assert.equal(drafts.length, 750);
  assert.equal(new Set(drafts.map((d) => d.recordId)).size, 750);
  for (const d of drafts) {
    assert.match(d.recordId, /^[1-9]\d*$/);
    assert.equal(d.product.category, 'consumer_products');
    assert.deepEqual(d.product.brands, []);
    assert.deepEqual(
      d.product.models,
      d.identifiers.filter((i) => i.kind === 'model').map((i) => i.value),
    );
    assert.deepEqual(d.countries, ['US']);
    assert.equal(d.severity, 'unknown');
    assert.equal(d.source_classification, null);
    assert.ok(d.title !== null && d.title.length > 0, d.recordId);
    assert.ok(d.summary !== null && d.summary.length > 0, d.recordId);
    assert.ok(d.hazard.text !== null && d.hazard.category !== null, d.recordId);
    assert.match(d.recall_date ?? '', /^20\d{2}-\d{2}-\d{2}$/);
    assert.match(d.published_date ?? '', /^20\d{2}-\d{2}-\d{2}$/);
    assert.ok(d.url?.startsWith('https://www.cpsc.gov/Recalls/'), d.recordId);
    assert.doesNotMatch(d.url ?? '', /\s/);
  }
});

test('extracts exactly the identifiers read by hand from real records outside the truth set', (t) => {
  const drafts = parseSamples(t);
  if (drafts === undefined) return;
  const byId = new Map(drafts.map((d) => [d.recordId, d]));
  for (const [id, expected] of Object.entries(EXPECTED_IDENTIFIERS)) {
    const draft = byId.get(id);
    assert.ok(draft, `record ${id} is in the samples`);
    const actual = draft.identifiers.map((i): Expected => [i.kind, i.value, i.normalized, i.confidence]);
    assert.deepEqual(actual, [...expected].sort(byKindThenNormalized), id);
  }
  // the truth set holds every record whose ProductUPCs holds a valid code
  const truth = new Set(
    loadTruth()
      .filter((r) => r.source === 'us-cpsc')
      .map((r) => r.record_id),
  );
  const withExactUpc = drafts.filter((d) =>
    d.identifiers.some((i) => i.kind === 'upc' && i.confidence === 'exact'),
  );
  assert.equal(withExactUpc.length, 27);
  for (const d of withExactUpc) assert.ok(truth.has(d.recordId), d.recordId);
});

test('identifier counts by kind and confidence over the 750 real records', (t) => {
  const drafts = parseSamples(t);
  if (drafts === undefined) return;
  const counts = count(drafts.flatMap((d) => d.identifiers.map((i) => `${i.kind}:${i.confidence}`)));
  // A census, not a reading: a change here means extraction changed; the truth-set test
  // (test/unit/ingest/identifier-truth.test.ts) says whether for the better.
  assert.deepEqual(Object.fromEntries([...counts].sort()), {
    'batch:inferred': 42,
    'lot:inferred': 400,
    'model:inferred': 1955,
    'upc:exact': 129,
    'upc:extracted': 28,
    'vin:extracted': 7,
  });
  // no model from prose is a measurement, a "12-Gun" style name or a model year
  for (const d of drafts) {
    for (const i of d.identifiers) {
      if (i.kind === 'model')
        assert.ok(!isProseModelNoise(i.value, d.summary ?? ''), `${d.recordId} ${i.value}`);
    }
  }
});

test('remedy and hazard distributions over the real records are plausible', (t) => {
  const drafts = parseSamples(t);
  if (drafts === undefined) return;
  const remedies = count(drafts.map((d) => d.remedy ?? 'null'));
  for (const r of remedies.keys()) assert.ok((REMEDIES as readonly string[]).includes(r), r);
  // every saved record carries RemedyOptions, so none is unknown; almost all offer a concrete remedy
  assert.equal(remedies.get('unknown'), undefined);
  const concrete =
    (remedies.get('refund') ?? 0) + (remedies.get('replace') ?? 0) + (remedies.get('repair') ?? 0);
  assert.ok(concrete >= 740, `refund/replace/repair: ${concrete}`);
  assert.equal(Math.max(...remedies.values()), remedies.get('refund'), 'refund is the most common remedy');

  const hazards = count(drafts.map((d) => d.hazard.category ?? 'null'));
  for (const h of hazards.keys()) assert.ok((HAZARD_CATEGORIES as readonly string[]).includes(h), h);
  assert.ok((hazards.get('other') ?? 0) <= 7, `other: ${hazards.get('other')}`);
  assert.ok(hazards.size >= 12, `${hazards.size} distinct hazard categories`);
  assert.equal(Math.max(...hazards.values()), hazards.get('fire'), 'fire is the most common hazard');
  // food-only categories do not appear in consumer products
  assert.equal(hazards.get('undeclared_allergen'), undefined);
  assert.equal(hazards.get('mislabelling'), undefined);
});

test('maps remedies, hazards, dates and addresses of real records', (t) => {
  const drafts = parseSamples(t);
  if (drafts === undefined) return;
  const byId = new Map(drafts.map((d) => [d.recordId, d]));
  const remedyOf = (id: string) => byId.get(id)?.remedy;

  assert.equal(remedyOf('9780'), 'refund'); // Refund
  assert.equal(remedyOf('9786'), 'repair'); // Refund + Repair
  assert.equal(remedyOf('9795'), 'replace'); // Refund + Replace
  assert.equal(remedyOf('9917'), 'repair'); // Refund + Repair + Replace
  assert.equal(remedyOf('9947'), 'dispose'); // Dispose
  assert.equal(remedyOf('9959'), 'repair'); // Label: a corrected label to apply
  assert.equal(remedyOf('9961'), 'other'); // New Instructions
  assert.equal(remedyOf('10424'), 'repair'); // "R": the prose says "a free repair …"
  assert.equal(remedyOf('10306'), 'repair'); // the remedy sentence filed as the option

  const blinds = byId.get('9780')!;
  assert.equal(
    blinds.title,
    'Foiresoft Zebra Roller Blinds Recalled Due to Strangulation and Entanglement Hazards; Sold Exclusively on Amazon.com by Softfunch (Recall Alert)',
  );
  assert.deepEqual(blinds.hazard, {
    category: 'strangulation',
    text: 'The recalled roller blinds have looped operating cords that pose a strangulation hazard to children.',
  });
  assert.equal(blinds.recall_date, '2023-12-05');
  assert.equal(blinds.published_date, '2023-12-05');
  assert.ok(blinds.summary?.startsWith('This recall involves Foiresoft Basic Zebra Roller Blinds'));

  // CPSC left spaces in some addresses: served percent-encoded
  assert.equal(
    byId.get('10108')?.url,
    'https://www.cpsc.gov/Recalls/2025/Touch-of-Class-Recalls-Wall-Teester%20-Bed-Crowns-Due-to-Injury-Hazard',
  );
});

test('no consumer-contact phone number or e-mail address reaches any draft', (t) => {
  const samples = loadSamples(t);
  if (samples === undefined) return;
  const records = [...samples.values()].flatMap(
    (body) => JSON.parse(body.toString('utf8')) as Array<{ ConsumerContact?: string }>,
  );
  const PHONE = /(?:\b1-)?\(?\b\d{3}\)?[ -]\s?\d{3}[ -]?\s?\d{4}\b|\b\d{3}-[A-Za-z]{3,4}-[A-Za-z0-9]{3,4}\b/g;
  const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
  const contacts = new Set<string>();
  for (const r of records) {
    for (const m of (r.ConsumerContact ?? '').matchAll(PHONE)) contacts.add(m[0]);
    for (const m of (r.ConsumerContact ?? '').matchAll(EMAIL)) contacts.add(m[0]);
  }
  assert.ok(contacts.size > 700, `${contacts.size} contact values found`); // the scan has something to look for

  const drafts = [...samples].flatMap(([name, body]) => usCpsc.parse({ name, body }).drafts);
  const json = JSON.stringify(drafts).toLowerCase();
  const leaked = [...contacts].filter((c) => json.includes(c.toLowerCase()));
  assert.deepEqual(leaked, []);
  for (const r of records) {
    if ((r.ConsumerContact ?? '').length > 20)
      assert.ok(!json.includes(JSON.stringify(r.ConsumerContact).toLowerCase().slice(1, -1)));
  }
});

// --- project-written records (never real recalls) ----------------------------------------------

function page(records: unknown[]): Buffer {
  return Buffer.from(JSON.stringify(records));
}

const TEST_RECORD = {
  RecallID: 99001,
  RecallNumber: '99001',
  RecallDate: '2099-02-03T00:00:00',
  LastPublishDate: '2099-02-04T00:00:00',
  Title: 'TEST DATA Widget Recalled Due to Fire Hazard',
  Description: 'TEST DATA widgets, model numbers TW-100 and TW-200. UPC 0 50428 54100 5 is on the box.',
  URL: 'https://www.cpsc.gov/Recalls/2099/TEST-DATA-Widget',
  ConsumerContact: 'Test Firm at 800-555-0199 or email at recall@test-firm.example.',
  Products: [{ Name: 'TEST DATA Widget', Model: 'TW-100, TW-300; N/A', Type: 'Widget', CategoryID: '1' }],
  ProductUPCs: [{ UPC: '050428541005' }, { UPC: 'N/A' }, { UPC: '035051591768' }, { UPC: '' }],
  Hazards: [{ Name: 'The widget can overheat,', HazardType: '' }, { Name: 'posing a fire hazard.' }],
  Remedies: [{ Name: 'Consumers should stop using the widget.' }],
  RemedyOptions: [{ Option: 'Refund' }, { Option: 'Replace' }],
  Manufacturers: [{ Name: 'Test Firm, of Nowhere', CompanyID: '1' }],
  Injuries: [{ Name: 'None reported' }],
};

test('takes Products[].Model and ProductUPCs as exact, merges prose, drops placeholders and bad check digits', () => {
  const parsed = usCpsc.parse({ name: 'x.json', body: page([TEST_RECORD]) });
  assert.equal(parsed.dataAsOf, '2099-02-04');
  const [draft] = parsed.drafts;
  assert.ok(draft);
  assert.equal(draft.recordId, '99001');
  assert.deepEqual(draft.identifiers, [
    { kind: 'model', value: 'TW-100', normalized: 'TW100', confidence: 'exact' }, // also in prose
    { kind: 'model', value: 'TW-200', normalized: 'TW200', confidence: 'inferred' },
    { kind: 'model', value: 'TW-300', normalized: 'TW300', confidence: 'exact' },
    { kind: 'upc', value: '050428541005', normalized: '00050428541005', confidence: 'exact' },
  ]);
  assert.deepEqual(draft.product, {
    category: 'consumer_products',
    brands: [],
    models: ['TW-100', 'TW-200', 'TW-300'],
  });
  assert.deepEqual(draft.hazard, {
    category: 'fire',
    text: 'The widget can overheat, posing a fire hazard.',
  });
  assert.equal(draft.remedy, 'replace');
  assert.equal(draft.recall_date, '2099-02-03');
  assert.equal(draft.published_date, '2099-02-04');
  assert.equal(draft.severity, 'unknown');
  const json = JSON.stringify(draft);
  assert.ok(!json.includes('800-555-0199') && !json.includes('recall@test-firm.example'));
  assert.ok(!json.includes('Test Firm'), 'firm names are not brands');
});

test('accepts records whose empty fields were dropped, and unknown fields', () => {
  const parsed = usCpsc.parse({
    name: 'x.json',
    body: page([{ RecallID: 99002 }, { RecallID: 99003, Title: '', NewField: { a: 1 }, Products: null }]),
  });
  assert.equal(parsed.dataAsOf, null);
  assert.deepEqual(parsed.drafts[0], {
    recordId: '99002',
    title: null,
    summary: null,
    hazard: { category: null, text: null },
    product: { category: 'consumer_products', brands: [], models: [] },
    severity: 'unknown',
    source_classification: null,
    remedy: 'unknown',
    recall_date: null,
    published_date: null,
    countries: ['US'],
    url: null,
    identifiers: [],
  });
  assert.equal(parsed.drafts[1]?.title, null);
});

test('an empty answer parses to no drafts', () => {
  assert.deepEqual(usCpsc.parse({ name: 'x.json', body: Buffer.from('[]') }), {
    dataAsOf: null,
    drafts: [],
    setAside: [],
  });
});

test("CPSC's in-band error record (HTTP 200, RecallID 0) is a format error", () => {
  const errors = [
    [{ RecallID: 0, Title: 'Error retrieving Recalls: String was not recognized as a valid DateTime.' }],
    [{ RecallID: 0 }],
    [TEST_RECORD, { RecallID: 5, Title: 'Error retrieving Recalls: timeout' }],
  ];
  for (const records of errors) {
    assert.throws(
      () => usCpsc.parse({ name: 'x.json', body: page(records), url: 'https://cpsc.test/x' }),
      (e: unknown) =>
        e instanceof UpstreamError &&
        e.failure === 'format' &&
        e.details.url === 'https://cpsc.test/x' &&
        /error record/.test(e.message),
    );
  }
});

test('sets aside a record that drifted, naming its place and the drift, and reads the rest', () => {
  const bad: BadRecord[] = [
    ['a record without RecallID', { Title: 'x' }, '[0]', /^does not match the schema at \/RecallID: /],
    ['RecallID as text', { RecallID: '12' }, '[1] (12)', /\/RecallID/],
    ['a negative RecallID', { RecallID: -1 }, '[2] (-1)', /\/RecallID/],
    ['Products not a list', { RecallID: 1, Products: { Model: 'x' } }, '[3] (1)', /\/Products/],
    [
      'a Model of the wrong type',
      { RecallID: 2, Products: [{ Model: 42 }] },
      '[4] (2)',
      /\/Products\/0\/Model/,
    ],
    [
      'a UPC of the wrong type',
      { RecallID: 3, ProductUPCs: [{ UPC: 12 }] },
      '[5] (3)',
      /\/ProductUPCs\/0\/UPC/,
    ],
    [
      'a caption of the wrong type',
      { RecallID: 4, Images: [{ Caption: [] }] },
      '[6] (4)',
      /\/Images\/0\/Caption/,
    ],
    ['a record that is not an object', 7, '[7]', /schema at \/: /],
  ];
  const parsed = usCpsc.parse({ name: 'x.json', body: page([...bad.map(([, r]) => r), TEST_RECORD]) });
  assertSetAside(parsed, [String(TEST_RECORD.RecallID)], bad);
});

test('fails loudly with a format error naming the place when the answer drifts', () => {
  const bad: [string, Buffer, RegExp][] = [
    ['not JSON (XML, the default format)', Buffer.from('<Recalls/>'), /not JSON/],
    ['an object, not a bare array', Buffer.from(JSON.stringify({ recalls: [] })), /bare array/],
  ];
  for (const [why, body, where] of bad) {
    assert.throws(
      () => usCpsc.parse({ name: 'x.json', body, url: 'https://cpsc.test/x' }),
      (e: unknown) =>
        e instanceof UpstreamError &&
        e.failure === 'format' &&
        e.details.url === 'https://cpsc.test/x' &&
        where.test(e.message),
      why,
    );
  }
});

test('cpscRemedy: known labels by precedence, else the wording', () => {
  assert.equal(cpscRemedy(['Refund'], []), 'refund');
  assert.equal(cpscRemedy(['Refund', 'Replace'], []), 'replace');
  assert.equal(cpscRemedy(['Replace', 'Repair', 'Refund'], []), 'repair');
  assert.equal(cpscRemedy([' dispose '], []), 'dispose');
  assert.equal(cpscRemedy(['Label'], []), 'repair');
  assert.equal(cpscRemedy(['Inspect'], ['Consumers should stop using it.']), 'other');
  assert.equal(cpscRemedy(['New Instructions', 'Refund'], []), 'refund');
  assert.equal(cpscRemedy(['R'], ['Contact the firm for a free replacement.']), 'replace');
  assert.equal(cpscRemedy([], ['Consumers should immediately stop using the product.']), 'stop_use');
  assert.equal(cpscRemedy([], ['Contact the firm.']), 'other');
  assert.equal(cpscRemedy([], []), 'unknown');
});

test('cpscDate, cpscUrl and the prose-model filter', () => {
  assert.equal(cpscDate('2023-12-05T00:00:00'), '2023-12-05');
  assert.equal(cpscDate('2024-02-29'), '2024-02-29');
  assert.equal(cpscDate('2023-02-29T00:00:00'), null);
  assert.equal(cpscDate('12/05/2023'), null);
  assert.equal(cpscDate(''), null);
  assert.equal(cpscDate(undefined), null);

  assert.equal(cpscUrl('https://www.cpsc.gov/Recalls/2024/A B'), 'https://www.cpsc.gov/Recalls/2024/A%20B');
  assert.equal(cpscUrl(' https://www.cpsc.gov/Recalls/x '), 'https://www.cpsc.gov/Recalls/x');
  assert.equal(cpscUrl('www.cpsc.gov/Recalls/x'), null);
  assert.equal(cpscUrl('javascript:alert(1)'), null);
  assert.equal(cpscUrl(''), null);

  assert.equal(isProseModelNoise('52.5', ''), true);
  assert.equal(isProseModelNoise('18-Gun', ''), true);
  assert.equal(isProseModelNoise('2-panel', ''), true);
  assert.equal(isProseModelNoise('2022', 'model years 2022 and 2023'), true);
  assert.equal(isProseModelNoise('1985', 'BISSELL vacuums models 1985, 19851'), false);
  assert.equal(isProseModelNoise('75-ABC', ''), false);
  assert.equal(isProseModelNoise('V1.0', ''), false);
});

test('describes the feed: meta, licence and mirror files', () => {
  assert.equal(usCpsc.meta.id, 'us-cpsc');
  assert.equal(usCpsc.meta.agency, 'U.S. Consumer Product Safety Commission');
  assert.equal(usCpsc.meta.jurisdiction, 'US');
  assert.deepEqual(usCpsc.meta.licence, {
    id: 'US-PD',
    url: 'http://www.usa.gov/publicdomain/label/1.0/',
    attribution: 'Recall data from the U.S. Consumer Product Safety Commission (public domain)',
  });
  assert.equal(usCpsc.meta.homepage, 'https://www.cpsc.gov/Recalls');
  assert.equal(usCpsc.meta.cadenceHours, 24);
  assert.equal(usCpsc.meta.defaultBaseUrl, 'https://www.saferproducts.gov');
  assert.equal(usCpsc.acceptsFile('recalls-1.json'), true);
  assert.equal(usCpsc.acceptsFile('RECALLS.JSON'), true);
  assert.equal(usCpsc.acceptsFile('recalls.xml'), false);
  assert.equal(usCpsc.acceptsFile('recalls.json.tmp'), false);
});

// --- fetching, against a local stand-in for saferproducts.gov ------------------------------------

const client = createUpstreamClient({ timeoutMs: 2_000, retries: 0, sleep: async () => {} });
const fetcher: PageFetcher = { get: (url, init) => client.get(url, init) };

async function collect(pages: AsyncIterable<RawPage>): Promise<RawPage[]> {
  const out: RawPage[] = [];
  for await (const p of pages) out.push(p);
  return out;
}

function ctx(baseUrl: string, since: string | null, now = '2026-04-20T13:00:00Z'): FetchContext {
  return { baseUrl, fetcher, now: new Date(now), since: since === null ? null : new Date(since) };
}

const json =
  (body: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  };

test('builds the query address: the whole corpus without since, else a LastPublishDate window', () => {
  const now = new Date('2026-03-01T23:30:00Z');
  assert.equal(
    cpscRecallUrl('https://www.saferproducts.gov', null, now),
    'https://www.saferproducts.gov/RestWebServices/Recall?format=json',
  );
  // 30 days before 2024-03-30 crosses the leap day
  assert.equal(
    cpscRecallUrl('https://www.saferproducts.gov/', new Date('2024-03-30T06:00:00Z'), now),
    'https://www.saferproducts.gov/RestWebServices/Recall?format=json&LastPublishDateStart=2024-02-29&LastPublishDateEnd=2026-03-01',
  );
});

test('fetches the whole corpus in one request on a first run, and yields it as served', async (t) => {
  const body = JSON.stringify([TEST_RECORD]);
  const s = await scriptedAgency(t, [['/RestWebServices/Recall?format=json', json(body)]]);
  const pages = await collect(usCpsc.fetch(ctx(`${s.base}/`, null)));
  await s.finish();
  assert.deepEqual(
    pages.map((p) => [p.name, p.url, p.body.toString('utf8')]),
    [['recalls.json', s.url('/RestWebServices/Recall?format=json'), body]],
  );
  assert.equal(s.requests[0]?.headers.accept, 'application/json');
  assert.equal(usCpsc.parse(pages[0]!).drafts[0]?.recordId, '99001');
});

test('fetches since the last success minus 30 days up to today', async (t) => {
  const path =
    '/RestWebServices/Recall?format=json&LastPublishDateStart=2026-03-19&LastPublishDateEnd=2026-04-20';
  const s = await scriptedAgency(t, [[path, json(JSON.stringify([TEST_RECORD]))]]);
  const pages = await collect(usCpsc.fetch(ctx(s.base, '2026-04-18T02:00:00Z')));
  await s.finish();
  assert.equal(pages.length, 1);
  assert.equal(pages[0]?.url, s.url(path));
});

test('yields a quiet window as one empty page (the pipeline then reports it as empty)', async (t) => {
  const path =
    '/RestWebServices/Recall?format=json&LastPublishDateStart=2026-03-19&LastPublishDateEnd=2026-04-20';
  const s = await scriptedAgency(t, [[path, json('[]')]]);
  const pages = await collect(usCpsc.fetch(ctx(s.base, '2026-04-18T02:00:00Z')));
  await s.finish();
  assert.equal(pages.length, 1);
  assert.deepEqual(usCpsc.parse(pages[0]!).drafts, []);
});

test('fails the fetch with a format error on the in-band error record', async (t) => {
  const body = JSON.stringify([{ RecallID: 0, Title: 'Error retrieving Recalls: bad date' }]);
  const s = await scriptedAgency(t, [['/RestWebServices/Recall?format=json', json(body)]]);
  await assert.rejects(
    collect(usCpsc.fetch(ctx(s.base, null))),
    (e: unknown) =>
      e instanceof UpstreamError &&
      e.failure === 'format' &&
      e.details.url === s.url('/RestWebServices/Recall?format=json') &&
      /Error retrieving Recalls: bad date/.test(e.message),
  );
  await s.finish();
});

test('lets an HTTP failure through as an upstream error', async (t) => {
  const s = await scriptedAgency(t, [
    ['/RestWebServices/Recall?format=json', (_req, res) => res.writeHead(503).end('down')],
  ]);
  await assert.rejects(
    collect(usCpsc.fetch(ctx(s.base, null))),
    (e: unknown) => e instanceof UpstreamError && e.failure === 'http_status' && e.details.status === 503,
  );
  await s.finish();
});
