import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { constants as zlibConstants, crc32, deflateRawSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import type { RecallDraft } from '../../../../src/domain/recall.ts';
import { UpstreamError } from '../../../../src/ingest/errors.ts';
import { createUpstreamClient } from '../../../../src/ingest/http-client.ts';
import type { PageFetcher, RawPage } from '../../../../src/ingest/source.ts';
import { flatRclUrl } from '../../../../src/ingest/sources/us-nhtsa/fetch.ts';
import { usNhtsa } from '../../../../src/ingest/sources/us-nhtsa/index.ts';
import {
  MAX_UNZIPPED_BYTES,
  flatRclText,
  forEachFlatRclRow,
} from '../../../../src/ingest/sources/us-nhtsa/parse.ts';
import {
  narrativeText,
  nhtsaDate,
  partNumberIdentifiers,
} from '../../../../src/ingest/sources/us-nhtsa/normalise.ts';
import { FLAT_RCL_FIELDS, type FlatRclField } from '../../../../src/ingest/sources/us-nhtsa/schema.ts';
import { requireShared, sharedPath } from '../../../support/shared.ts';
import { scriptedAgency } from '../../../support/scripted-agency.ts';

const SAMPLE = 'upstream-samples/us-nhtsa/FLAT_RCL-legacy-sample.txt';

/** The real rows' bytes, or undefined after skipping (or failing) the test when ../shared is absent. */
function loadSample(t: TestContext): Buffer | undefined {
  const path = sharedPath('upstream-samples', 'us-nhtsa', 'FLAT_RCL-legacy-sample.txt');
  return requireShared(t, path, SAMPLE) ? readFileSync(path) : undefined;
}

function parseText(text: string | Buffer, name = 'FLAT_RCL_POST_2010.txt'): ReturnType<typeof usNhtsa.parse> {
  return usNhtsa.parse({ name, body: Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8') });
}

function isFormatError(e: unknown): e is UpstreamError {
  return e instanceof UpstreamError && e.failure === 'format';
}

// --- the real rows --------------------------------------------------------------------------------

/**
 * The campaigns the four real rows must give, written by reading them (GSA/recalls_api's fixture,
 * about 2015). Rows 1-2 have 26 fields and rows 3-4 the 24 of the 2008 layout: in rows 1-2,
 * fields 25-26 hold a date and a subject line, not the 2020 component name and description, so
 * the adapter reads neither. Rows 3 and 4 are one campaign (06V052000: the same fuel pump on two
 * makes of travel trailer) and merge into one draft.
 */
const EXPECTED_REAL: RecallDraft[] = [
  {
    recordId: '02E030000',
    // YEARTXT 9999: no year in the title or the model string.
    title: 'CONSUMERS UNION GLOVE COMPARTMENT KIT: UNKNOWN OR OTHER',
    summary:
      'GLOVE COMPARTMENT ORGANIZER SENT AS A FREE GIFT FOR A NEW CONSUMER REPORTS SUBSCRIPTION.  THE KIT CONTAINS A FLASHLIGHT, TIRE GAUGE, POCKETKNIFE, PEN AND PAD.  THE FLASHLIGHT MAY OVERHEAT AND THERE IS AN ACCURACY PROBLEM WITH THE TIRE GAUGE.',
    hazard: {
      // "An overheated flashlight could result in burns": the harm named is the burn, and no
      // fire is named (a reading of every real record's hazard, issue 9).
      category: 'burn',
      text: 'IMPROPER INFLATION OF TIRES CAN POSE A SAFETY HAZARD.  AN OVERHEATED FLASHLIGHT COULD RESULT IN BURNS.',
    },
    product: {
      category: 'vehicle_equipment', // RCLTYPECD E
      brands: ['CONSUMERS UNION'],
      models: ['CONSUMERS UNION GLOVE COMPARTMENT KIT'],
    },
    severity: 'unknown', // no advisory field on a 26-field row
    source_classification: null,
    remedy: 'dispose', // "EITHER DISPOSE OF THE TIRE GAUGE AND FLASHLIGHT OR RETURN THEM …"
    recall_date: '2002-04-26', // RCDATE
    published_date: '2002-05-01', // DATEA
    countries: ['US'],
    url: 'https://www.nhtsa.gov/recalls?nhtsaId=02E030000',
    identifiers: [], // no labelled model or lot in the defect summary
  },
  {
    recordId: '02V269000',
    title: 'MACK CH (2002): PARKING BRAKE',
    summary:
      'CERTAIN CLASS 8 CHASSIS FAIL TO COMPLY WITH REQUIREMENTS OF FEDERAL MOTOR VEHICLE SAFETY STANDARD NO. 121, "AIR BRAKE SYSTEMS."  THE INSTALLATION OF THE ADDITIONAL AXLE(S), RAISES THE GVW CAPABILITY OF THE VEHICLE AND THEREFORE REQUIRES AN INCREASE IN THE PARKING BRAKE PERFORMANCE TO HOLD ON A 20% GRADE IN ORDER TO MEET THE REQUIREMENTS OF THE STANDARD.',
    // CONEQUENCE_DEFECT is empty: the category comes from the defect summary (brake performance).
    hazard: { category: 'vehicle_crash', text: null },
    product: { category: 'vehicles', brands: ['MACK'], models: ['MACK CH 2002'] },
    severity: 'unknown',
    source_classification: null,
    remedy: 'repair', // "DEALERS WILL MODIFY THE PARK BRAKE CONFIGURATION …"
    recall_date: '2002-10-03',
    published_date: '2002-10-04',
    countries: ['US'],
    url: 'https://www.nhtsa.gov/recalls?nhtsaId=02V269000',
    identifiers: [], // "MACK TRUCK RECALL NO. SCO277" is the manufacturer's campaign, not a product
  },
  {
    recordId: '06V052000',
    title:
      'HOLIDAY RAMBLER NEXT LEVEL, MCKENZIE DUNE CHASER (2006): FUEL SYSTEM, GASOLINE:DELIVERY:FUEL PUMP',
    summary:
      'ON CERTAIN TRAVEL AND FIFTH WHEEL TRAILERS EQUIPPED WITH REFUELING STATION PUMPS, THE INLET FITTING MAY NOT HAVE THE CORRECT AMOUNT OF THREAD SEALER WHICH MAY CAUSE A FUEL LEAK.',
    hazard: {
      category: 'fire',
      text: 'IF THE FITTING LEAKS, IT COULD RESULT IN A FIRE OR EXPLOSION CAUSING BODILY HARM.',
    },
    product: {
      category: 'vehicles',
      brands: ['HOLIDAY RAMBLER', 'MCKENZIE'],
      models: ['HOLIDAY RAMBLER NEXT LEVEL 2006', 'MCKENZIE DUNE CHASER 2006'],
    },
    severity: 'unknown',
    source_classification: null,
    remedy: 'repair', // "DEALERS WILL INSPECT AND REPLACE THE PUMP WITH A NEW ONE."
    recall_date: '2006-02-16',
    published_date: '2006-02-16',
    countries: ['US'],
    url: 'https://www.nhtsa.gov/recalls?nhtsaId=06V052000',
    identifiers: [],
  },
];

test('merges the four real legacy rows into their three campaigns, as read by hand', (t) => {
  const body = loadSample(t);
  if (body === undefined) return;
  const lines = body
    .toString('utf8')
    .split('\r\n')
    .filter((l) => l !== '');
  assert.deepEqual(
    lines.map((l) => l.split('\t').length),
    [26, 26, 24, 24],
  );
  const parsed = parseText(body, 'FLAT_RCL-legacy-sample.txt');
  assert.equal(parsed.dataAsOf, '2006-02-16', 'the newest DATEA in the file');
  assert.deepEqual(parsed.drafts, EXPECTED_REAL);
});

test('reads the real rows the same from a zip built around them', (t) => {
  const body = loadSample(t);
  if (body === undefined) return;
  const zip = Buffer.from(zipSync({ 'FLAT_RCL_POST_2010.txt': new Uint8Array(body) }));
  assert.deepEqual(usNhtsa.parse({ name: 'FLAT_RCL_POST_2010.zip', body: zip }).drafts, EXPECTED_REAL);
});

// --- project-written rows (never real recalls) ------------------------------------------------------

type Fields = Partial<Record<FlatRclField, string>>;

/** A fictional row: TEST DATA values, overridden per test, cut to `columns` fields. */
function row(fields: Fields = {}, columns = 29): string {
  const base: Record<FlatRclField, string> = {
    RECORD_ID: '1',
    CAMPNO: '99V001000',
    MAKETXT: 'TESTMAKE',
    MODELTXT: 'TESTCAR',
    YEARTXT: '2099',
    MFGCAMPNO: 'TM-99-01',
    COMPNAME: 'ELECTRICAL SYSTEM:WIRING',
    MFGNAME: 'Test Fixture Motors (fictional)',
    BGMAN: '20980101',
    ENDMAN: '20981231',
    RCLTYPECD: 'V',
    POTAFF: '120',
    ODATE: '19010101',
    INFLUENCED_BY: 'MFR',
    MFGTXT: 'Test Fixture Motors (fictional)',
    RCDATE: '20990105',
    DATEA: '20990110',
    RPNO: '',
    FMVSS: '',
    DESC_DEFECT: 'TEST DATA: A WIRING HARNESS MAY CHAFE AGAINST THE FRAME.',
    CONEQUENCE_DEFECT: 'A SHORTED HARNESS CAN OVERHEAT, INCREASING THE RISK OF A FIRE.',
    CORRECTIVE_ACTION: 'DEALERS WILL INSPECT AND REPAIR THE HARNESS, FREE OF CHARGE.',
    NOTES:
      'OWNERS MAY ALSO CONTACT THE VEHICLE SAFETY HOTLINE, OR GO TO <A HREF=HTTP://WWW.SAFERCAR.GOV>HTTP://WWW.SAFERCAR.GOV</A> .',
    RCL_CMPT_ID: '000099999000000001000000001',
    MFR_COMP_NAME: 'Test Harness Co.',
    MFR_COMP_DESC: 'Engine wiring harness',
    MFR_COMP_PTNO: 'TH-12345-A, TH-12346-B',
    DO_NOT_DRIVE: 'No',
    PARK_OUTSIDE: 'No',
  };
  const merged = { ...base, ...fields };
  return FLAT_RCL_FIELDS.slice(0, columns)
    .map((name) => merged[name])
    .join('\t');
}

function file(...rows: string[]): string {
  return rows.map((r) => `${r}\r\n`).join('');
}

test('reads a 29-column row: part numbers are exact models, HTML anchors go, dates and url are mapped', () => {
  const parsed = parseText(file(row()));
  assert.equal(parsed.dataAsOf, '2099-01-10');
  assert.deepEqual(parsed.drafts, [
    {
      recordId: '99V001000',
      title: 'TESTMAKE TESTCAR (2099): ELECTRICAL SYSTEM:WIRING',
      summary: 'TEST DATA: A WIRING HARNESS MAY CHAFE AGAINST THE FRAME.',
      hazard: { category: 'fire', text: 'A SHORTED HARNESS CAN OVERHEAT, INCREASING THE RISK OF A FIRE.' },
      product: { category: 'vehicles', brands: ['TESTMAKE'], models: ['TESTMAKE TESTCAR 2099'] },
      severity: 'unknown',
      source_classification: null,
      remedy: 'repair',
      recall_date: '2099-01-05',
      published_date: '2099-01-10',
      countries: ['US'],
      url: 'https://www.nhtsa.gov/recalls?nhtsaId=99V001000',
      identifiers: [
        { kind: 'model', value: 'TH-12345-A', normalized: 'TH12345A', confidence: 'exact' },
        { kind: 'model', value: 'TH-12346-B', normalized: 'TH12346B', confidence: 'exact' },
      ],
    },
  ]);
});

test('maps the advisories: Do Not Drive or Park Outside is serious, and stop_use unless a remedy is offered', () => {
  const cases: Array<[Fields, string, string | null, string]> = [
    [{ DO_NOT_DRIVE: 'Yes' }, 'serious', 'Do Not Drive', 'repair'],
    [{ PARK_OUTSIDE: 'Yes' }, 'serious', 'Park Outside', 'repair'],
    [{ DO_NOT_DRIVE: 'Yes', PARK_OUTSIDE: 'Yes' }, 'serious', 'Do Not Drive; Park Outside', 'repair'],
    [
      {
        DO_NOT_DRIVE: 'Yes',
        CORRECTIVE_ACTION: 'THE REMEDY IS UNDER DEVELOPMENT. INTERIM LETTERS WILL BE MAILED.',
      },
      'serious',
      'Do Not Drive',
      'stop_use',
    ],
    [{ PARK_OUTSIDE: 'Yes', CORRECTIVE_ACTION: '' }, 'serious', 'Park Outside', 'stop_use'],
    [{ CORRECTIVE_ACTION: 'THE REMEDY IS UNDER DEVELOPMENT.' }, 'unknown', null, 'other'],
    [{ CORRECTIVE_ACTION: '' }, 'unknown', null, 'unknown'],
    [{ CORRECTIVE_ACTION: 'TESTMAKE WILL REFUND THE PURCHASE PRICE.' }, 'unknown', null, 'refund'],
  ];
  for (const [fields, severity, classification, remedy] of cases) {
    const [draft] = parseText(file(row(fields))).drafts;
    assert.deepEqual(
      [draft?.severity, draft?.source_classification, draft?.remedy],
      [severity, classification, remedy],
      JSON.stringify(fields),
    );
  }
  // A 27-field row (2020-2025) has no advisory: never serious by omission of the flags.
  assert.equal(parseText(file(row({}, 27))).drafts[0]?.severity, 'unknown');
});

test('merges the rows of one campaign, in any order, into one draft', () => {
  const rows = [
    row({ RECORD_ID: '11', MAKETXT: 'TESTMAKE', MODELTXT: 'TESTCAR', YEARTXT: '2098' }),
    row({ RECORD_ID: '12', MAKETXT: 'TESTMAKE', MODELTXT: 'TESTCAR', YEARTXT: '2099' }),
    // the same vehicle again with another component and a later record date
    row({ RECORD_ID: '13', YEARTXT: '2099', COMPNAME: 'STRUCTURE:FRAME', DATEA: '20990301' }),
    // a second make, its model year unknown; the advisory on one row is the campaign's
    row({
      RECORD_ID: '14',
      MAKETXT: 'OTHERMAKE',
      MODELTXT: 'TESTVAN',
      YEARTXT: '9999',
      DO_NOT_DRIVE: 'Yes',
      MFR_COMP_PTNO: 'TH-12345-A; TH-99999-C',
    }),
    // a byte-for-byte duplicate row (NHTSA ships some)
    row({ RECORD_ID: '11', MAKETXT: 'TESTMAKE', MODELTXT: 'TESTCAR', YEARTXT: '2098' }),
    // another campaign in between
    row({ RECORD_ID: '15', CAMPNO: '99E002000', RCLTYPECD: 'E', MAKETXT: 'TESTLITE', MODELTXT: 'LAMP' }),
  ];
  const forward = parseText(file(...rows));
  const backward = parseText(file(...[...rows].reverse()));
  assert.deepEqual(backward, forward, 'row order changes nothing');
  assert.equal(forward.dataAsOf, '2099-03-01');
  assert.deepEqual(
    forward.drafts.map((d) => d.recordId),
    ['99E002000', '99V001000'],
  );
  const campaign = forward.drafts[1]!;
  assert.equal(
    campaign.title,
    'OTHERMAKE TESTVAN, TESTMAKE TESTCAR (2098-2099): ELECTRICAL SYSTEM:WIRING (+1 more)',
  );
  assert.deepEqual(campaign.product, {
    category: 'vehicles',
    brands: ['OTHERMAKE', 'TESTMAKE'],
    models: ['OTHERMAKE TESTVAN', 'TESTMAKE TESTCAR 2098', 'TESTMAKE TESTCAR 2099'],
  });
  assert.equal(campaign.severity, 'serious');
  assert.equal(campaign.source_classification, 'Do Not Drive');
  assert.equal(campaign.recall_date, '2099-01-05');
  assert.equal(
    campaign.published_date,
    '2099-01-10',
    'the earliest record date: when it was first published',
  );
  assert.deepEqual(
    campaign.identifiers.map((i) => [i.value, i.normalized, i.confidence]),
    [
      ['TH-12345-A', 'TH12345A', 'exact'],
      ['TH-12346-B', 'TH12346B', 'exact'],
      ['TH-99999-C', 'TH99999C', 'exact'],
    ],
  );
  assert.equal(forward.drafts[0]!.product.category, 'vehicle_equipment');
});

test('names at most two vehicles in a title and keeps it within 160 characters', () => {
  const rows = ['A', 'B', 'C', 'D'].map((m, i) =>
    row({ RECORD_ID: String(i), MODELTXT: `MODEL ${m}`, YEARTXT: String(2090 + i) }),
  );
  const [draft] = parseText(file(...rows)).drafts;
  assert.equal(
    draft?.title,
    'TESTMAKE MODEL A, TESTMAKE MODEL B and 2 more (2090-2093): ELECTRICAL SYSTEM:WIRING',
  );
  const long = parseText(file(row({ COMPNAME: 'WORD '.repeat(60).trim() }))).drafts[0]?.title ?? '';
  assert.ok(long.length <= 160, long);
  assert.match(long, /^TESTMAKE TESTCAR \(2099\): (WORD )+WORD$/);
});

test('takes labelled models from the defect summary of equipment campaigns only, never from the remedy', () => {
  const defect =
    'TEST DATA: CHILD RESTRAINTS, MODEL NUMBERS 22-190, 22-191 AND 306-1234, MANUFACTURED IN 2098.';
  const corrective = 'TESTSEAT WILL SEND A FREE REPLACEMENT HARNESS, PART NUMBER 55-0001.';
  const seat = row({
    CAMPNO: '99C003000',
    RCLTYPECD: 'C',
    DESC_DEFECT: defect,
    CORRECTIVE_ACTION: corrective,
    MFR_COMP_PTNO: '',
  });
  const car = row({
    DESC_DEFECT: `${defect} MODEL YEAR 2099.`,
    CORRECTIVE_ACTION: corrective,
    MFR_COMP_PTNO: '',
  });
  const [seatDraft, carDraft] = parseText(file(seat, car)).drafts;
  assert.equal(seatDraft?.recordId, '99C003000');
  assert.equal(seatDraft?.product.category, 'child_restraints');
  assert.deepEqual(
    seatDraft?.identifiers.map((i) => [i.kind, i.value, i.normalized, i.confidence]),
    [
      ['model', '22-190', '22190', 'inferred'],
      ['model', '22-191', '22191', 'inferred'],
      ['model', '306-1234', '3061234', 'inferred'],
    ],
  );
  assert.equal(seatDraft?.remedy, 'replace');
  // a vehicle campaign's "MODEL" is a vehicle model or year: nothing is taken from its prose
  assert.deepEqual(carDraft?.identifiers, []);
});

test('reads rows of 24 to 29 fields, LF line ends, a byte order mark and blank lines', () => {
  const text = `\ufeff${row({ CAMPNO: '99V000024' }, 24)}\n\n${row({ CAMPNO: '99V000027' }, 27)}\n${row({ CAMPNO: '99V000029' })}\n`;
  const drafts = parseText(text).drafts;
  assert.deepEqual(
    drafts.map((d) => [d.recordId, d.identifiers.length]),
    [
      ['99V000024', 0], // no MFR_COMP_PTNO before 2020
      ['99V000027', 2],
      ['99V000029', 2],
    ],
  );
  assert.deepEqual(parseText('').drafts, []);
});

test('keeps a stray LF inside a narrative of a CRLF file, and a quote character as text', () => {
  const drafts = parseText(file(row({ DESC_DEFECT: 'TEST DATA: "QUOTED"\nSECOND LINE.' }))).drafts;
  assert.equal(drafts[0]?.summary, 'TEST DATA: "QUOTED"\nSECOND LINE.');
});

test('sets aside a malformed row, naming its line and the drift, and reads the rest', () => {
  const good = row();
  const bad: Array<[string, string, string[], RegExp]> = [
    ['23 fields', file(good, row({}, 23)), ['line 2'], /^has 23 tab-separated fields, expected 24 to 29/],
    ['30 fields', file(`${good}\textra`, good), ['line 1'], /^has 30 tab-separated fields/],
    [
      'a row split by a stray CRLF',
      file(good, good.slice(0, 40), good.slice(40)),
      ['line 2', 'line 3'],
      /has/,
    ],
    [
      'an empty campaign number',
      file(good, row({ CAMPNO: '' })),
      ['line 2'],
      /CAMPNO "" is not a campaign number/,
    ],
    [
      'a campaign number of another shape',
      file(row({ CAMPNO: 'V-2099-1' }), good),
      ['line 1'],
      /CAMPNO "V-2099-1"/,
    ],
    [
      'an advisory flag other than Yes/No',
      file(good, row({ PARK_OUTSIDE: 'Maybe' })),
      ['line 2'],
      /PARK_OUTSIDE is "Maybe"/,
    ],
  ];
  for (const [why, text, lines, reason] of bad) {
    const parsed = usNhtsa.parse({ name: 'x.txt', body: Buffer.from(text), url: 'https://nhtsa.test/x' });
    assert.deepEqual(parsed.drafts, parseText(file(good)).drafts, why);
    assert.deepEqual(
      parsed.setAside.map((s) => s.record),
      lines,
      why,
    );
    assert.match(parsed.setAside[0]!.reason, reason, why);
  }
});

test('forEachFlatRclRow without a set-aside callback throws a format error naming the line', () => {
  assert.throws(
    () => forEachFlatRclRow(Buffer.from(file(row(), row({}, 23))), () => {}, 'https://nhtsa.test/x'),
    (e: unknown) =>
      isFormatError(e) &&
      /line 2 has 23 tab-separated fields/.test(e.message) &&
      e.details.url === 'https://nhtsa.test/x',
  );
});

test('reads a zip built with fflate, and refuses one without exactly one text file', () => {
  const text = strToU8(file(row()));
  const zip = (files: Record<string, Uint8Array>): Buffer => Buffer.from(zipSync(files));
  const drafts = usNhtsa.parse({
    name: 'FLAT_RCL_POST_2010.zip',
    body: zip({ 'FLAT_RCL_POST_2010.txt': text }),
  });
  assert.deepEqual(drafts, parseText(file(row())));
  // a folder entry beside the file is fine; the name of the page does not matter, the bytes do
  const withFolder = zip({ 'data/': new Uint8Array(0), 'data/FLAT_RCL_POST_2010.TXT': text });
  assert.equal(usNhtsa.parse({ name: 'page', body: withFolder }).drafts.length, 1);

  const refused: Array<[string, Buffer, RegExp]> = [
    ['no text file', zip({ 'RCL.pdf': strToU8('%PDF') }), /holds 0 \(RCL\.pdf\)/],
    ['two text files', zip({ 'a.txt': text, 'b.txt': text }), /holds 2/],
    ['an empty zip', zip({}), /holds 0 \(nothing\)/],
    ['a truncated zip', zip({ 'FLAT_RCL_POST_2010.txt': text }).subarray(0, 40), /cannot be read/],
  ];
  for (const [why, body, message] of refused) {
    assert.throws(
      () => usNhtsa.parse({ name: 'FLAT_RCL_POST_2010.zip', body }),
      (e: unknown) => isFormatError(e) && message.test(e.message),
      why,
    );
  }
});

/** One entry of a hand-made zip: its stored bytes and what its headers declare. */
interface CraftedEntry {
  name: string;
  data: Buffer;
  /** Declared inflated size. */
  size: number;
  crc?: number;
}

/** A deflate-compressed zip written byte by byte, so its headers may declare any size. */
function craftZip(entries: CraftedEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(e.crc ?? 0, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(e.crc ?? 0, 16);
    central.writeUInt32LE(e.data.length, 20);
    central.writeUInt32LE(e.size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, e.data);
    centrals.push(central, name);
    offset += local.length + name.length + e.data.length;
  }
  const dir = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.length, 8);
  eocd.writeUInt16LE(entries.length, 10);
  eocd.writeUInt32LE(dir.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, eocd]);
}

const MIB = 1024 * 1024;

test('counts the zip entries before inflating any: three entries declaring 1000 MiB are refused at once', () => {
  // Their data is not even deflate: reading any of them would fail differently.
  const huge = (name: string): CraftedEntry => ({ name, data: Buffer.alloc(64, 0xff), size: 1000 * MIB });
  const body = craftZip([huge('a.txt'), huge('b.txt'), huge('c.txt')]);
  assert.throws(
    () => usNhtsa.parse({ name: 'FLAT_RCL_POST_2010.zip', body }),
    (e: unknown) => isFormatError(e) && /holds 3 \(a\.txt, b\.txt, c\.txt\)/.test(e.message),
  );
});

test('inflates the one entry under the cap: over it is too_large, and inflation stops at the cap', () => {
  const text = Buffer.from(file(row()));
  const entry = (size: number, data = deflateRawSync(text)): CraftedEntry => ({
    name: 'FLAT_RCL_POST_2010.txt',
    data,
    size,
    crc: crc32(text),
  });
  assert.deepEqual(
    flatRclText(craftZip([entry(text.length)]), undefined, text.length),
    text,
    'exactly the cap',
  );
  assert.throws(
    () => flatRclText(craftZip([entry(text.length)]), 'https://nhtsa.test/z', text.length - 1),
    (e: unknown) =>
      e instanceof UpstreamError && e.failure === 'too_large' && e.details.url === 'https://nhtsa.test/z',
  );
  assert.equal(MAX_UNZIPPED_BYTES, 512 * MIB);
  assert.throws(
    () => flatRclText(craftZip([entry(MAX_UNZIPPED_BYTES + 1)])),
    (e: unknown) => e instanceof UpstreamError && e.failure === 'too_large',
    'the default cap',
  );

  // An entry that lies about its size: 4 MiB of zeros declared as 64 KiB, followed by bytes that
  // are not deflate. Inflating past the declared size would reach them and fail as unreadable.
  const zeros = deflateRawSync(Buffer.alloc(4 * MIB), { finishFlush: zlibConstants.Z_FULL_FLUSH });
  const lying = craftZip([entry(64 * 1024, Buffer.concat([zeros, Buffer.alloc(1024, 0xff)]))]);
  assert.throws(
    () => flatRclText(lying),
    (e: unknown) => isFormatError(e) && /inflates to more than its declared 65536 bytes/.test(e.message),
  );
  const badCrc = craftZip([{ ...entry(text.length), crc: 1 }]);
  assert.throws(
    () => flatRclText(badCrc),
    (e: unknown) => isFormatError(e) && /CRC-32/.test(e.message),
  );
});

test('fetches FLAT_RCL_POST_2010.zip from the configured base address and yields it as served', async (t) => {
  const zip = Buffer.from(zipSync({ 'FLAT_RCL_POST_2010.txt': strToU8(file(row())) }));
  const agency = await scriptedAgency(t, [
    [
      '/mirror/odi/ffdd/rcl/FLAT_RCL_POST_2010.zip',
      (_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(zip),
    ],
  ]);
  const client = createUpstreamClient({ timeoutMs: 2_000, retries: 0 });
  const fetcher: PageFetcher = { get: (url, init) => client.get(url, init) };
  const pages: RawPage[] = [];
  for await (const page of usNhtsa.fetch({
    baseUrl: `${agency.base}/mirror/`,
    fetcher,
    now: new Date('2099-01-11T07:30:00Z'),
    since: null,
  })) {
    pages.push(page);
  }
  await agency.finish();
  assert.equal(pages.length, 1);
  assert.equal(pages[0]!.name, 'FLAT_RCL_POST_2010.zip');
  assert.equal(pages[0]!.url, `${agency.base}/mirror/odi/ffdd/rcl/FLAT_RCL_POST_2010.zip`);
  assert.ok(pages[0]!.body.equals(zip), 'the body exactly as served');
  assert.equal(usNhtsa.parse(pages[0]!).drafts[0]?.recordId, '99V001000');
});

test('lets an agency failure through from fetch', async (t) => {
  const agency = await scriptedAgency(t, [
    ['/odi/ffdd/rcl/FLAT_RCL_POST_2010.zip', (_req, res) => res.writeHead(404).end('NoSuchKey')],
  ]);
  const client = createUpstreamClient({ timeoutMs: 2_000, retries: 0 });
  const pages = usNhtsa.fetch({
    baseUrl: agency.base,
    fetcher: { get: (url) => client.get(url) },
    now: new Date(),
    since: null,
  });
  await assert.rejects(
    async () => {
      for await (const _ of pages) assert.fail('no page expected');
    },
    (e: unknown) => e instanceof UpstreamError && e.failure === 'http_status' && e.details.status === 404,
  );
  await agency.finish();
});

test('describes the feed: meta, licence, address and mirror files', () => {
  assert.equal(usNhtsa.meta.id, 'us-nhtsa');
  assert.equal(usNhtsa.meta.agency, 'National Highway Traffic Safety Administration');
  assert.equal(usNhtsa.meta.jurisdiction, 'US');
  assert.equal(usNhtsa.meta.cadenceHours, 24);
  assert.equal(usNhtsa.meta.defaultBaseUrl, 'https://static.nhtsa.gov');
  assert.ok(usNhtsa.meta.licence.id && usNhtsa.meta.licence.url && usNhtsa.meta.licence.attribution);
  assert.equal(
    flatRclUrl(usNhtsa.meta.defaultBaseUrl),
    'https://static.nhtsa.gov/odi/ffdd/rcl/FLAT_RCL_POST_2010.zip',
  );
  assert.equal(usNhtsa.acceptsFile('FLAT_RCL_POST_2010.zip'), true);
  assert.equal(usNhtsa.acceptsFile('FLAT_RCL-legacy-sample.txt'), true);
  assert.equal(usNhtsa.acceptsFile('FLAT_RCL.TXT'), true);
  assert.equal(usNhtsa.acceptsFile('page-0001.json'), false);
  assert.equal(usNhtsa.acceptsFile('FLAT_RCL_POST_2010.zip.tmp'), false);
});

test('part numbers: clean tokens from a list, no placeholders, years, short numbers or phrases', () => {
  assert.deepEqual(
    partNumberIdentifiers([
      '68379823AA, 68379824AB',
      'P/N: JL3Z-2140-A',
      'N/A',
      'UNKNOWN',
      'SEE DEALER',
      '2019',
      '1234',
      '12345',
      'AB12',
      'A1',
      'JL3Z 2140 A; 7L1Z-9C888-B',
    ]).map((i) => [i.value, i.normalized]),
    [
      ['68379823AA', '68379823AA'],
      ['68379824AB', '68379824AB'],
      ['P/N: JL3Z-2140-A', 'JL3Z2140A'],
      ['12345', '12345'],
      ['AB12', 'AB12'],
      ['7L1Z-9C888-B', '7L1Z9C888B'],
    ],
  );
});

test('narratives lose HTML tags and entities; dates lose sentinels and typos', () => {
  assert.equal(
    narrativeText(
      ' GO TO <A HREF=HTTP://WWW.SAFERCAR.GOV>HTTP://WWW.SAFERCAR.GOV</A> . A &amp; B &lt;5 MPH ',
    ),
    'GO TO HTTP://WWW.SAFERCAR.GOV . A & B <5 MPH',
  );
  assert.equal(narrativeText('SPEEDS <5 MPH AND >2 MPH'), 'SPEEDS <5 MPH AND >2 MPH');
  assert.equal(nhtsaDate('20060216'), '2006-02-16');
  assert.equal(nhtsaDate('19010101'), null);
  assert.equal(nhtsaDate('11111111'), null);
  assert.equal(nhtsaDate('00220729'), null);
  assert.equal(nhtsaDate('20230229'), null);
  assert.equal(nhtsaDate(''), null);
});
