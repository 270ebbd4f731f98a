/**
 * FDA lot forms the shared prose rules do not read (`src/ingest/sources/openfda/lot-rules.ts`), on
 * synthetic enforcement records written for these tests: "may be followed by" lots as prefix rules,
 * device lot lists of `2019/04 KT`-style items, and GS1 `(01)` strings printed with spaces.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { storageKeys } from '../../../../../src/domain/identifiers/match-keys.ts';
import { normaliseIdentifier } from '../../../../../src/domain/identifiers/normalise.ts';
import { ruleMatches } from '../../../../../src/domain/identifiers/match-rules.ts';
import type { Identifier } from '../../../../../src/domain/recall.ts';
import { fieldIdentifiers } from '../../../../../src/ingest/sources/openfda/lot-rules.ts';
import { normaliseOpenFdaRecord } from '../../../../../src/ingest/sources/openfda/normalise.ts';

const show = (ids: readonly Identifier[]) =>
  ids.map((i) => `${i.kind}:${i.value}=${i.normalized}(${i.confidence})`).sort();

const prefix = (stem: string) => `lot:${stem}*=${stem.replace(/[^A-Za-z0-9]/g, '').toUpperCase()}*(inferred)`;
const lot = (value: string) => `lot:${value}=${value.replace(/[^A-Za-z0-9]/g, '').toUpperCase()}(inferred)`;

test('a drug lot that "may be followed by" a suffix is a prefix rule of that lot, inferred', () => {
  const cases: [string, string[]][] = [
    // a footnote marked with `*` applies to the marked lots only
    [
      'Lot numbers: 7310045*, 7310046, 7310047* *Lot numbers may be followed by 01-99',
      [prefix('7310045'), prefix('7310047'), lot('7310046')],
    ],
    // a parenthesis after the lots: every lot before it
    [
      'Lot #: 7310045, 7310046 (may be followed by -01 to -99), Exp 06/30',
      [prefix('7310045'), prefix('7310046')],
    ],
    // a clause naming a two-digit suffix; en dash
    ['Lot 7Q10045 may be followed by 01–99, Exp. 06/2030', [prefix('7Q10045')]],
    [
      'Lot: 7310045, exp 10/2030. Each lot number may be followed by a two-digit suffix.',
      [prefix('7310045')],
    ],
    ['Lots 7310045 and 7310046 followed by a two-digit suffix', [prefix('7310045'), prefix('7310046')]],
    // the first suffix printed, then "through -99"
    ['Lot 7310045-01 through -99, Exp 06/30', [prefix('7310045')]],
    // a lot after the words is not under them
    [
      'Lot #: 7310045 may be followed by 01-99, Exp. 06/2030; Lot 8B20001, Exp 07/2030',
      [prefix('7310045'), lot('8B20001')],
    ],
    // a stem under five characters is no rule: the lot stays as printed
    ['Lot AB12 (may be followed by -01 to -99)', [lot('AB12')]],
    // without the words, the shared rules' answer
    ['Lot # 7310045, Exp 07/30', [lot('7310045')]],
  ];
  for (const [text, expected] of cases) assert.deepEqual(show(fieldIdentifiers(text)), expected.sort(), text);

  // A full lot of a shop matches the rule, a value shorter than the stem does not.
  const rule = fieldIdentifiers('Lot 7310045 may be followed by 01-99')[0]!;
  assert.equal(rule.normalized, '7310045*');
  assert.ok(ruleMatches(rule.normalized, '731004512'));
  assert.ok(!ruleMatches(rule.normalized, '731004'));
});

test('the footnote reaches the draft of a drug record, as a lot prefix rule', () => {
  const draft = normaliseOpenFdaRecord(
    {
      recall_number: 'D-9999-2099',
      product_type: 'Drugs',
      product_description: 'TEST DATA Fictional Tablets, 10 mg, 100-count bottles, Rx only, NDC 99999-123-01',
      code_info: 'Lot numbers: 7310045*, 7310046* *may be followed by 01-99. Exp 12/2099',
    },
    'drug',
  );
  const lots = draft.identifiers.filter((i) => i.kind === 'lot');
  assert.deepEqual(show(lots), [prefix('7310045'), prefix('7310046')]);
  for (const l of lots) assert.ok(storageKeys('lot', l.normalized).matchKey.startsWith('lot*'));
});

test('a footnote in more_code_info, the continuation of code_info, covers the lots of code_info', () => {
  const draft = normaliseOpenFdaRecord(
    {
      recall_number: 'D-9997-2099',
      product_type: 'Drugs',
      product_description: 'TEST DATA Fictional Capsules, 20 mg, 30-count bottles, Rx only',
      code_info: 'Lot numbers: 7310045, 7310046, 7310047, Exp 12/2099',
      more_code_info: 'Lot numbers may be followed by a two-digit suffix 01 through 99.',
    },
    'drug',
  );
  assert.deepEqual(show(draft.identifiers.filter((i) => i.kind === 'lot')), [
    prefix('7310045'),
    prefix('7310046'),
    prefix('7310047'),
  ]);
});

test('device lot lists of a date-like part and a short code give one lot per item, when labelled lots', () => {
  const lots = (text: string) => show(fieldIdentifiers(text).filter((i) => i.kind === 'lot'));
  assert.deepEqual(lots('Lot Numbers: 2019/04 KT, 2019/05 KT and 2020/11 AB. Exp 2021/04'), [
    lot('2019/04 KT'),
    lot('2019/05 KT'),
    lot('2020/11 AB'),
  ]);
  // Not after a lot label: an expiry and a word.
  assert.deepEqual(lots('Exp 2019/04 KT'), []);

  const draft = normaliseOpenFdaRecord(
    {
      recall_number: 'Z-9999-2099',
      product_type: 'Devices',
      product_description: 'TEST DATA Fictional Test Kit, Catalog Number FX-100',
      code_info: 'Lot Numbers: 2019/04 KT, 2019/05 KT, 2019/06 KT; Exp 2021/06',
    },
    'device',
  );
  assert.deepEqual(show(draft.identifiers.filter((i) => i.kind === 'lot')), [
    lot('2019/04 KT'),
    lot('2019/05 KT'),
    lot('2019/06 KT'),
  ]);
});

test('a GS1 (01) string printed with spaces gives its GTIN on the FDA path', () => {
  const draft = normaliseOpenFdaRecord(
    {
      recall_number: 'Z-9998-2099',
      product_type: 'Devices',
      product_description: 'TEST DATA Fictional Catheter, REF FX-200',
      code_info: 'UDI-DI: (01) 0 0952000 00001 9, Lot Number: 9X1001',
    },
    'device',
  );
  const gtin = normaliseIdentifier('gtin', '00952000000019');
  assert.ok(gtin.ok);
  const key = storageKeys('gtin', gtin.normalized).matchKey;
  const gs1 = draft.identifiers.filter((i) => storageKeys(i.kind, i.normalized).matchKey === key);
  assert.equal(gs1.length, 1, JSON.stringify(draft.identifiers));
  assert.equal(gs1[0]!.confidence, 'extracted');
  assert.ok(draft.identifiers.some((i) => i.kind === 'lot' && i.normalized === '9X1001'));
});

test('a field of 1 MB of spaces, subject words or list items is read in time proportional to its length', () => {
  // Runs a pattern tried at every position could backtrack over: each finishes, and finds nothing or the list.
  for (const text of [
    `Lot ${' '.repeat(1 << 20)}x`,
    `${'the '.repeat(1 << 18)}lot`,
    `${'lot may '.repeat(1 << 17)}`,
  ])
    assert.deepEqual(
      fieldIdentifiers(text).filter((id) => id.normalized.endsWith('*')),
      [],
    );
  const items = 'Lot Numbers: ' + '2019/04 KT, '.repeat(1 << 16);
  assert.equal(new Set(fieldIdentifiers(items).map((id) => id.normalized)).size, 1);
});
