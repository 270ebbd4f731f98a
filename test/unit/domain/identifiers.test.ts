/**
 * The identifier normaliser and key space, beyond the shared vectors: rejection reasons per
 * rule, label stripping, GS1 key equivalence, VIN check digits, NDC prefix keys, UDI lots and
 * Unicode input.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  expandUpcE,
  hibccCheckCharacter,
  isPlaceholder,
  lookupKeys,
  matchFamily,
  normaliseIdentifier,
  parseGs1,
  storageKeys,
  stripLabel,
  vinCheckDigit,
  type IdentifierKind,
  type Normalised,
  type RejectionReason,
} from '../../../src/domain/identifiers/index.ts';

function ok(kind: string, value: string): Extract<Normalised, { ok: true }> {
  const r = normaliseIdentifier(kind, value);
  assert.ok(r.ok, `${kind} ${JSON.stringify(value)} should normalise, got ${JSON.stringify(r)}`);
  return r;
}

function rejected(kind: string, value: string, reason: RejectionReason, detail?: RegExp): string {
  const r = normaliseIdentifier(kind, value);
  assert.equal(r.ok, false, `${kind} ${JSON.stringify(value)} should be rejected, got ${JSON.stringify(r)}`);
  if (r.ok) return '';
  assert.equal(r.reason, reason, `${kind} ${JSON.stringify(value)}: ${r.detail}`);
  assert.ok(r.detail.length > 0);
  if (detail) assert.match(r.detail, detail);
  return r.detail;
}

describe('kinds and general rejections', () => {
  test('kind is case-insensitive and trimmed', () => {
    assert.equal(ok('UPC', '012000007897').kind, 'upc');
    assert.equal(ok(' Gtin ', '012000007897').kind, 'gtin');
  });
  test('unknown kind', () => {
    rejected('isbn', '0471117099', 'unknown_kind', /"isbn"/);
    rejected('', '012000007897', 'unknown_kind');
  });
  test('empty, blank, label only', () => {
    rejected('gtin', '', 'empty');
    rejected('lot', '   \t ', 'empty');
    rejected('upc', 'UPC:', 'empty');
    rejected('lot', 'Lot #', 'empty', /label/);
  });
  test('values longer than 512 characters are invalid_length', () => {
    rejected('lot', 'A'.repeat(513), 'invalid_length', /512/);
    assert.equal(ok('lot', 'A'.repeat(512)).normalized.length, 512);
  });
  test('so are values longer than 512 characters once NFKC has expanded them, before any rule reads them', () => {
    // U+FDFA is 18 characters under NFKC: 29 of them are 522, 28 are 504
    rejected('lot', '\ufdfa'.repeat(29), 'invalid_length', /512 characters once normalised/);
    rejected('lot', '\ufdfa'.repeat(339), 'invalid_length', /NFKC/);
    rejected('lot', '\ufdfa'.repeat(28), 'invalid_characters');
    rejected('lot', `${'A'.repeat(510)}\u3392`, 'invalid_length'); // ㎒ is MHz
    assert.equal(ok('lot', `${'A'.repeat(509)}\u3392`).normalized.length, 512);
  });
  test('GS (U+001D) in a lot, model or batch is invalid_characters, never dropped (10ABC<GS>21X is not 10ABC21X)', () => {
    for (const kind of ['lot', 'model', 'batch']) {
      for (const value of ['10ABC\x1d21X', 'ABC\x1d123', '\x1d10ABC', '10ABC\x1d']) {
        rejected(kind, value, 'invalid_characters', /GS \(U\+001D\)/);
      }
    }
    // the same code without the separator is a code; with GS only a GS1 kind reads it (as an element string)
    assert.equal(ok('lot', '10ABC21X').normalized, '10ABC21X');
    assert.equal(ok('udi', ']d20112312312312333\x1d10ABC123').kind, 'udi');
  });
  test('placeholders are empty for every kind', () => {
    for (const kind of ['gtin', 'vin', 'ndc', 'udi', 'model', 'lot', 'batch']) {
      for (const value of [
        'N/A',
        'n.a.',
        'NA',
        'None',
        'unknown',
        'No code',
        'No codes',
        'All',
        'ALL LOTS',
      ]) {
        rejected(kind, value, 'empty');
      }
    }
  });
  test('isPlaceholder keeps real codes', () => {
    assert.equal(isPlaceholder('ALL-IN-ONE 5'), false);
    assert.equal(isPlaceholder('ALLEGRO'), false);
    assert.equal(isPlaceholder('No. 5'), false);
    assert.equal(isPlaceholder('NOV23'), false);
    assert.equal(isPlaceholder('All lot codes.'), true);
    assert.equal(isPlaceholder('No UDI Codes provided'), true);
  });
});

describe('GTIN rules (gtin, upc, ean)', () => {
  test('characters', () => {
    rejected('gtin', '0120000O7897', 'invalid_characters', /"O"/);
    rejected('upc', '012000007897X', 'invalid_characters');
  });
  test('lengths', () => {
    rejected('gtin', '1234567', 'invalid_length', /7 digits/);
    rejected('gtin', '123456789012345', 'invalid_length');
  });
  test('check digits are verified, never repaired', () => {
    rejected('gtin', '7501031311308', 'invalid_check_digit', /^check digit does not verify \(expected 9\)$/);
    rejected('ean', '02345674', 'invalid_check_digit', /expected 3/);
    rejected('gtin', '00208851107345', 'invalid_check_digit', /expected 7/);
  });
  test('9 to 11 digits: a UPC-A whose leading zeros a spreadsheet dropped, only if its check digit holds', () => {
    assert.equal(ok('upc', '12000007897').normalized, '00012000007897');
    rejected('upc', '12000007896', 'invalid_check_digit', /lost 1 leading zero,.*expected 7/);
    assert.equal(ok('upc', '9303000090').normalized, '00009303000090');
    assert.equal(ok('gtin', '9303000090').normalized, '00009303000090');
    assert.equal(ok('ean', '100000009').normalized, '00000100000009');
    rejected(
      'gtin',
      '123456789',
      'invalid_check_digit',
      /UPC-A 000123456789 that lost 3 leading zeros.*expected 4/,
    );
    rejected('upc', '0471117099', 'invalid_check_digit', /lost 2 leading zeros/);
  });
  test('10 digits: ISBN-10 to 978 for ean and gtin only', () => {
    assert.equal(ok('ean', '0-471-11709-9').normalized, '09780471117094');
    assert.equal(ok('gtin', '080442957X').normalized, '09780804429573');
    // Neither a valid ISBN-10 nor, padded, a valid UPC-A.
    rejected('ean', '0471117098', 'invalid_check_digit');
    rejected('upc', '080442957X', 'invalid_characters');
  });
  test('UPC-E only for upc; gtin reads 8 digits as GTIN-8', () => {
    assert.equal(expandUpcE('01278907'), '012000007897');
    assert.equal(expandUpcE('04252614'), '042100005264');
    assert.equal(expandUpcE('00123457'), '001234000057');
    assert.equal(expandUpcE('01234531'), '012300000451');
    assert.equal(expandUpcE('21278907'), undefined);
    rejected('gtin', '01278907', 'invalid_check_digit');
    rejected('upc', '01278906', 'invalid_check_digit', /UPC-E.*012000007896.*expected 7/);
    // A upc of 8 digits not starting with 0 or 1 is a GTIN-8.
    assert.equal(ok('upc', '73513537').normalized, '00000073513537');
  });
  test('UPC-A, EAN-13, GTIN-14, UPC-E, element string, scans and Digital Link share one key', () => {
    const forms: [IdentifierKind, string][] = [
      ['upc', '012000007897'],
      ['upc', '0 12000 00789 7'],
      ['ean', '0012000007897'],
      ['gtin', '00012000007897'],
      ['upc', '01278907'],
      ['gtin', '(01)00012000007897'],
      ['gtin', '(01)00012000007897(10)ABC(17)261231'],
      ['upc', ']E00012000007897'],
      ['ean', ']d2010001200000789710ABC'],
      ['gtin', 'https://id.gs1.org/01/00012000007897?linkType=all'],
      ['gtin', 'https://example.com/shop/gtin/012000007897'],
      ['upc', ']Q1https://id.gs1.org/01/00012000007897/10/X1'],
      ['gtin', '010001200000789710ABC'],
      ['udi', '(01)00012000007897(10)L1'],
      ['udi', '00012000007897'],
    ];
    for (const [kind, value] of forms) {
      const r = ok(kind, value);
      assert.equal(r.normalized, '00012000007897', `${kind} ${value}`);
      assert.equal(storageKeys(kind, r.normalized).matchKey, 'gs1:00012000007897', `${kind} ${value}`);
    }
  });
  test('a UDI lot is not attached to a gtin', () => {
    assert.equal(ok('gtin', '(01)00012000007897(10)ABC').lot, undefined);
  });
  test('GS1 syntax errors are reported', () => {
    rejected('gtin', '(10)ABC123', 'invalid_characters', /no GTIN/);
    rejected('gtin', '(01)0001200000789', 'invalid_length', /14 digits/);
    rejected('gtin', '(01)00012000007896', 'invalid_check_digit', /expected 7/);
    rejected('gtin', 'https://example.com/product/123', 'invalid_characters', /primary key/);
    rejected('gtin', 'https://id.gs1.org/01/00012000007897/', 'invalid_characters', /slash/);
  });
});

describe('parseGs1', () => {
  test('unbracketed data with GS separators', () => {
    const r = parseGs1('0112312312312333\x1d10ABC123\x1d99TESTING');
    assert.ok(r.ok);
    assert.deepEqual(r.data.elements, [
      { ai: '01', value: '12312312312333' },
      { ai: '10', value: 'ABC123' },
      { ai: '99', value: 'TESTING' },
    ]);
    assert.equal(r.data.gtin, '12312312312333');
    assert.equal(r.data.lot, 'ABC123');
  });
  test('caret as FNC1 and fixed-length AIs without separators', () => {
    const r = parseGs1('^01095201234567881724123110AB-1^2112');
    assert.ok(r.ok);
    assert.deepEqual(
      r.data.elements.map((e) => `${e.ai}=${e.value}`),
      ['01=09520123456788', '17=241231', '10=AB-1', '21=12'],
    );
  });
  test('Digital Link: stem, convenience names, query AIs, percent-decoding', () => {
    const r = parseGs1('https://example.com/a/b/gtin/9520123456788/lot/AB%2F1?exp=261231&linkType=pip');
    assert.ok(r.ok);
    assert.equal(r.data.syntax, 'digital-link');
    assert.equal(r.data.gtin, '09520123456788');
    assert.equal(r.data.lot, 'AB/1');
    assert.deepEqual(r.data.elements.at(-1), { ai: '17', value: '261231' });
  });
  test('SSCC without GTIN parses, with gtin null', () => {
    const r = parseGs1('https://a/00/006141411234567890');
    assert.ok(r.ok);
    assert.equal(r.data.gtin, null);
  });
  test('conflicting repeated AI, unknown AI, bad characters', () => {
    assert.equal(parseGs1('(01)09520123456788(10)A(10)B').ok, false);
    assert.equal(parseGs1('(01)09520123456788(05)A').ok, false);
    assert.equal(parseGs1('(01)09520123456788(10)A B').ok, false);
    assert.equal(parseGs1('(01)0952012345678X').ok, false);
  });
});

describe('labels', () => {
  const stripped: [string, string][] = [
    ['UPC: 012000007897', '012000007897'],
    ['UPC 012000007897', '012000007897'],
    ['upc code: 012000007897', '012000007897'],
    ['EAN-13 5000159484695', '5000159484695'],
    ['GTIN#00012000007897', '00012000007897'],
    ['NDC#0065-0474-01', '0065-0474-01'],
    ['NDC: 0065-0474-01', '0065-0474-01'],
    ['NDC#:  23243-9561-5.', '23243-9561-5.'],
    ['Lot # 544821A', '544821A'],
    ['Lot#174250', '174250'],
    ['LOT: A5', 'A5'],
    ['Lot No. 5A', '5A'],
    ['Lot Number 5A', '5A'],
    ['Batch No. BF0707', 'BF0707'],
    ['Batch No.BF0707', 'BF0707'],
    ['batch #2502315', '2502315'],
    ['Batch code KBF/05', 'KBF/05'],
    ['Model: HGS011F', 'HGS011F'],
    ['Model No. HGS011F', 'HGS011F'],
    ['P/N: K6870', 'K6870'],
    ['Model/Catalog Number: 409-375', '409-375'],
    ['Catalog Number: CO-02', 'CO-02'],
    ['UDI Code: N/A', 'N/A'],
    ['UDI-DI: (01)00844505000772', '(01)00844505000772'],
    ['Date Code: 06/30/23CH1', '06/30/23CH1'],
    ['Item No. 1000199', '1000199'],
    ['VIN: 1M8GDM9AXKP042788', '1M8GDM9AXKP042788'],
  ];
  for (const [input, value] of stripped) {
    test(`strips ${JSON.stringify(input)}`, () => assert.equal(stripLabel(input).value, value));
  }
  const kept = ['LOTA5', 'LOT42X', 'UPC012000007897', 'CAT 320', 'Item 5', 'Lot', 'MODELX1'];
  for (const input of kept) {
    test(`keeps ${JSON.stringify(input)}`, () => assert.equal(stripLabel(input).value, input));
  }
  test('a label with no separator stays part of the value', () => {
    assert.equal(ok('lot', 'LOTA5').normalized, 'LOTA5');
    assert.equal(ok('batch', 'LOT42X').normalized, 'LOT42X');
    assert.equal(ok('lot', 'Lot NOV23').normalized, 'NOV23');
    assert.equal(ok('model', 'CAT 320').normalized, 'CAT320');
  });
  test('labels apply before every rule', () => {
    assert.equal(ok('upc', 'UPC: 0 12000 00789 7').normalized, '00012000007897');
    assert.equal(ok('ndc', 'NDC 0065-0474-01').normalized, '00065047401');
    assert.equal(ok('vin', 'VIN: 1M8GDM9AXKP042788').normalized, '1M8GDM9AXKP042788');
    assert.equal(ok('udi', 'UDI: (01) 04050598000582').normalized, '04050598000582');
  });
});

describe('VIN', () => {
  test('check digit is computed per 49 CFR 565', () => {
    assert.equal(vinCheckDigit('1M8GDM9AXKP042788'), 'X');
    assert.equal(vinCheckDigit('1G4AH59H45G118341'), '4');
    assert.equal(vinCheckDigit('SALVA2AE4EH877322'), '7');
  });
  test('checkDigitValid is reported, not required', () => {
    assert.equal(ok('vin', '1M8GDM9AXKP042788').checkDigitValid, true);
    const european = ok('vin', 'W0LPC6DB3CC123456');
    assert.equal(european.checkDigitValid, false);
    assert.equal(european.normalized, 'W0LPC6DB3CC123456');
    assert.equal(ok('ndc', '0071-0155-23').checkDigitValid, undefined);
  });
  test('reasons: characters, length, I/O/Q without auto-correction', () => {
    rejected('vin', '1M8GDM9AXKP04278_', 'invalid_characters');
    rejected('vin', '1M8GDM9AXKP04278', 'invalid_length', /16/);
    rejected('vin', '1M8GDM9AXKPO42788', 'invalid_characters', /letter O/);
  });
});

describe('NDC', () => {
  test('layouts', () => {
    assert.equal(ok('ndc', '0023-6022-01').normalized, '00023602201');
    assert.equal(ok('ndc', '63739-644-10').normalized, '63739064410');
    assert.equal(ok('ndc', '62011-0295-1').normalized, '62011029501');
    assert.equal(ok('ndc', '0023 6022 01').normalized, '00023602201');
    assert.equal(ok('ndc', '0006-0107').normalized, '000060107');
    assert.equal(ok('ndc', '83698-102').normalized, '836980102');
    assert.equal(ok('ndc', '12345-6789').normalized, '123456789');
  });
  test('reasons', () => {
    rejected('ndc', '0071015523', 'ambiguous', /hyphens/);
    rejected('ndc', '123-4567-89', 'invalid_length', /3-4-2/);
    rejected('ndc', '123456789', 'invalid_length');
    rejected('ndc', '0023/6022/01', 'invalid_characters');
  });
});

describe('match keys', () => {
  test('families', () => {
    assert.equal(matchFamily('upc', '00012000007897'), 'gs1');
    assert.equal(matchFamily('udi', '00012000007897'), 'gs1');
    assert.equal(matchFamily('udi', 'hibcc:X999123ABC0'), 'udi');
    assert.equal(matchFamily('batch', 'BF0330'), 'lot');
    assert.equal(matchFamily('ndc', '00071015523'), 'ndc');
  });
  test('lot and batch share a key; model, vin, udi have their own', () => {
    assert.equal(storageKeys('lot', ok('lot', 'BF 0330').normalized).matchKey, 'lot:BF0330');
    assert.equal(storageKeys('batch', ok('batch', 'Batch No. BF0330').normalized).matchKey, 'lot:BF0330');
    assert.equal(storageKeys('model', 'BF0330').matchKey, 'model:BF0330');
    assert.equal(storageKeys('vin', '1M8GDM9AXKP042788').matchKey, 'vin:1M8GDM9AXKP042788');
    assert.deepEqual(storageKeys('udi', 'hibcc:X999123ABC0'), {
      matchKey: 'udi:hibcc:X999123ABC0',
      productKey: null,
    });
    assert.deepEqual(storageKeys('udi', 'iccbba:A9999XYZ100T0944'), {
      matchKey: 'udi:iccbba:A9999XYZ100T0944',
      productKey: null,
    });
    // A batch looks up the lot key, and the buckets of the lot rules that may hold it.
    const batch = lookupKeys('batch', 'BF0330');
    assert.deepEqual(batch.matchKeys, ['lot:BF0330']);
    assert.ok(batch.ruleKeys.length > 0);
    assert.ok(batch.ruleKeys.every((k) => k.startsWith('lot*') || k.startsWith('lot..')));
  });
  test('NDC storage keys: an 11-digit package has its 9-digit product key', () => {
    assert.deepEqual(storageKeys('ndc', '00071015523'), {
      matchKey: 'ndc:00071015523',
      productKey: 'ndc:000710155',
    });
    assert.deepEqual(storageKeys('ndc', '000710155'), { matchKey: 'ndc:000710155', productKey: null });
  });
  test('NDC lookup keys', () => {
    assert.deepEqual(lookupKeys('ndc', '000710155'), {
      matchKeys: ['ndc:000710155'],
      productKeys: ['ndc:000710155'],
      ruleKeys: [],
      normalized: '000710155',
    });
    assert.deepEqual(lookupKeys('ndc', '00071015523'), {
      matchKeys: ['ndc:00071015523', 'ndc:000710155'],
      productKeys: [],
      ruleKeys: [],
      normalized: '00071015523',
    });
  });
  test('NDC prefix matching against a simulated store', () => {
    const stored = [
      { id: 'package-23', value: '0071-0155-23' },
      { id: 'package-30', value: '0071-0155-30' },
      { id: 'product', value: '0071-0155' },
      { id: 'other-product', value: '0071-0156-23' },
    ].map(({ id, value }) => ({ id, ...storageKeys('ndc', ok('ndc', value).normalized) }));
    const find = (value: string): string[] => {
      const { matchKeys, productKeys } = lookupKeys('ndc', ok('ndc', value).normalized);
      return stored
        .filter(
          (row) =>
            matchKeys.includes(row.matchKey) ||
            (row.productKey !== null && productKeys.includes(row.productKey)),
        )
        .map((row) => row.id);
    };
    // A product NDC finds the product and every package of it.
    assert.deepEqual(find('00071-0155'), ['package-23', 'package-30', 'product']);
    // A package NDC finds itself and its product, not the other packages of the product.
    assert.deepEqual(find('00071-0155-23'), ['package-23', 'product']);
    assert.deepEqual(find('0071-0156-23'), ['other-product']);
  });
});

describe('UDI', () => {
  test('GS1 lot from AI 10, normalised by the lot rules', () => {
    const r = ok('udi', '(01)51022222233336(11)141231(17)150707(10)A213B1(21)1234');
    assert.deepEqual(r, { ok: true, kind: 'udi', normalized: '51022222233336', lot: 'A213B1' });
    assert.equal(ok('udi', 'https://id.gs1.org/01/09520123456788/10/ab%2D12').lot, 'AB12');
    assert.equal(ok('udi', '^010952012345678810LOT-7').lot, 'LOT7');
    assert.equal(ok('udi', '(01)09520123456788(17)261231').lot, undefined);
  });
  test('HIBCC DI and lot from the secondary data', () => {
    assert.deepEqual(ok('udi', '+A99912345/$$52001510X33'), {
      ok: true,
      kind: 'udi',
      normalized: 'hibcc:A99912345',
      lot: '10X3',
    });
    const primaryOnly = ok('udi', '+A123BJC5D6E71G');
    assert.equal(primaryOnly.normalized, 'hibcc:A123BJC5D6E71');
    assert.equal(primaryOnly.lot, undefined);
    assert.equal(ok('udi', '*+A123BJC5D6E71G*').normalized, 'hibcc:A123BJC5D6E71');
    assert.equal(ok('udi', '+X999123ABC0/$$05191234AB/S5678EDFG/16D20151001A').lot, '1234AB');
  });
  test('ICCBBA DI and MPHO lot', () => {
    const r = ok('udi', '=/A9999XYZ100T0944=,000025=A99971312345600=>014032=}013032&,1000000000000XYZ123');
    assert.equal(r.normalized, 'iccbba:A9999XYZ100T0944');
    assert.equal(r.lot, '000000000000XYZ123');
  });
  test('a normalised UDI normalises to itself', () => {
    assert.equal(ok('udi', 'hibcc:X999123ABC0').normalized, 'hibcc:X999123ABC0');
    assert.equal(ok('udi', 'iccbba:A9999XYZ100T0944').normalized, 'iccbba:A9999XYZ100T0944');
    assert.equal(ok('udi', '51022222233336').normalized, '51022222233336');
  });
  test('reasons', () => {
    rejected('udi', '+A123BJC5D6E71H', 'invalid_check_digit', /expected G/);
    const secondaryOnly = '+$$52001510X3';
    rejected('udi', secondaryOnly + hibccCheckCharacter(secondaryOnly), 'invalid_characters', /secondary/);
    rejected('udi', '=/A9999XYZ100', 'invalid_length', /16/);
    rejected('udi', '(10)A213B1(17)150707', 'invalid_characters', /device identifier/);
    rejected('udi', '(01)00208851107345', 'invalid_check_digit', /expected 7/);
    rejected('udi', '12345678901', 'invalid_length');
    rejected('udi', 'device 42', 'invalid_characters');
    rejected('udi', 'No UDI Codes provided', 'empty');
  });
});

describe('model, lot, batch', () => {
  test('reasons', () => {
    rejected('model', 'X', 'invalid_length');
    rejected('lot', '-/-', 'empty');
    rejected('batch', 'Ж5', 'invalid_characters', /Ж/);
  });
  test('leading zeros stay; accents lose their marks', () => {
    assert.equal(ok('lot', '0007').normalized, '0007');
    assert.equal(ok('model', 'Café-2').normalized, 'CAFE2');
  });
});

describe('Unicode (NFKC)', () => {
  test('full-width digits and letters', () => {
    assert.equal(ok('upc', '０１２０００００７８９７').normalized, '00012000007897');
    assert.equal(ok('batch', 'ＢＦ０３３０').normalized, 'BF0330');
    assert.equal(ok('upc', 'ＵＰＣ：０１２０００００７８９７').normalized, '00012000007897');
    assert.equal(ok('udi', '（０１）５１０２２２２２２３３３３６').normalized, '51022222233336');
  });
  test('Unicode hyphens, minus signs and spaces', () => {
    assert.equal(ok('upc', '8\u201049398\u201006623\u20102').normalized, '00849398066232');
    assert.equal(ok('upc', '8\u201149398\u201106623\u20112').normalized, '00849398066232');
    assert.equal(ok('ndc', '0023\u20136022\u201301').normalized, '00023602201');
    assert.equal(ok('ndc', '0023\u22126022\u221201').normalized, '00023602201');
    assert.equal(ok('lot', 'PA17\u2014412').normalized, 'PA17412');
    assert.equal(ok('vin', '1M8\uFF0DGDM9AX\uFF0DKP042788').normalized, '1M8GDM9AXKP042788');
    assert.equal(ok('upc', '0\u00a050428\u00a054100\u00a05').normalized, '00050428541005');
    assert.equal(ok('lot', '\u200bA213\u00adB1\ufeff').normalized, 'A213B1');
  });
});

describe('idempotence', () => {
  test('a normalised value normalises to itself (9-digit NDC product keys excepted)', () => {
    const samples: [IdentifierKind, string][] = [
      ['upc', '01278907'],
      ['ean', '0471117099'],
      ['vin', '1m8-gdm9ax-kp042788'],
      ['ndc', '0071-0155-23'],
      ['udi', '+X999123ABC0/$$05191234AB/S5678EDFG/16D20151001A'],
      ['udi', '(01)51022222233336(10)A213B1'],
      ['model', 'P/N: K6870.20.US.L'],
      ['lot', 'Lot # 544821A'],
    ];
    for (const [kind, value] of samples) {
      const once = ok(kind, value).normalized;
      assert.equal(ok(kind, once).normalized, once, `${kind} ${value}`);
    }
  });
});
