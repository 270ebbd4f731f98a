import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  extractLabelledIdentifiers,
  mergeIdentifiers,
} from '../../../../src/ingest/extract/labelled-identifiers.ts';
import type { Identifier } from '../../../../src/domain/recall.ts';

/** `kind:normalized:confidence:value` strings, in output order, for compact assertions. */
function ids(text: string): string[] {
  return extractLabelledIdentifiers(text).map((i) => `${i.kind}:${i.normalized}:${i.confidence}:${i.value}`);
}

// --- positives -------------------------------------------------------------------------------

test('takes a list of barcodes after one label, keeping the printed value', () => {
  assert.deepEqual(ids('The product UPC codes 6926145714029 and  6926145712902. Manufacturer: X'), [
    'upc:06926145712902:extracted:6926145712902',
    'upc:06926145714029:extracted:6926145714029',
  ]);
});

test('reads barcodes printed in groups with spaces or dashes', () => {
  assert.deepEqual(
    ids('CVS Berries 8oz (227 g), UPC: 0 50428 54100 5; Candy 9oz (255g), UPC: 024354501105'),
    ['upc:00024354501105:extracted:024354501105', 'upc:00050428541005:extracted:0 50428 54100 5'],
  );
  assert.deepEqual(ids('Shampoo, 177 mL bottle, UPC 3 45802-237-01 9.'), [
    'upc:00345802237019:extracted:3 45802-237-01 9',
  ]);
  assert.deepEqual(ids('UPC 0 44000 03826 7    Best by Dates     18SEP20  20SEP20'), [
    'upc:00044000038267:extracted:0 44000 03826 7',
  ]);
});

test('accepts the usual label spellings for barcodes', () => {
  for (const label of [
    'UPC',
    'UPC:',
    'UPC#',
    'UPC #',
    'UPC No.',
    'UPC code',
    'UPC Code:',
    'UPC code of',
    'The UPC is',
    'UPCs:',
  ]) {
    assert.deepEqual(
      ids(`Cookies, 14 oz, ${label} 046567025469 Sell By 08/02/21`),
      ['upc:00046567025469:extracted:046567025469'],
      label,
    );
  }
  assert.deepEqual(ids('EAN 4006381333931'), ['ean:04006381333931:extracted:4006381333931']);
  assert.deepEqual(ids('GTIN: 00012345678905'), ['gtin:00012345678905:extracted:00012345678905']);
  assert.deepEqual(ids('EAN-13: 5000159484695'), ['ean:05000159484695:extracted:5000159484695']);
});

test('takes each complete code of a space-separated barcode list', () => {
  assert.deepEqual(ids('UPC 012345678905 012345678912'), [
    'upc:00012345678905:extracted:012345678905',
    'upc:00012345678912:extracted:012345678912',
  ]);
});

test('takes labelled NDCs in hyphenated layouts as extracted, several after one label', () => {
  assert.deepEqual(
    ids('Tablets, Rx Only, Distributed by: Allergan USA, Inc., Irvine, CA 92612, NDC 0023-6022-01.'),
    ['ndc:00023602201:extracted:0023-6022-01'],
  );
  assert.deepEqual(
    ids('a) unit dose cup (NDC 50383-720-15), b) 100-count tray (NDC 50383-720-19), Rx Only'),
    ['ndc:50383072015:extracted:50383-720-15', 'ndc:50383072019:extracted:50383-720-19'],
  );
  assert.deepEqual(ids('Carton NDC #: 68084-633-01  Single Dose NDC #: 68084-633-11'), [
    'ndc:68084063301:extracted:68084-633-01',
    'ndc:68084063311:extracted:68084-633-11',
  ]);
  assert.deepEqual(ids('NDC: 62011-0295-1, NDC 0703-9040-01, 0703-9040-03'), [
    'ndc:00703904001:extracted:0703-9040-01',
    'ndc:00703904003:extracted:0703-9040-03',
    'ndc:62011029501:extracted:62011-0295-1',
  ]);
  // A bare 11-digit run is read by shape only; a bare 10-digit one is ambiguous and dropped.
  assert.deepEqual(ids('NDC 00071015523'), ['ndc:00071015523:inferred:00071015523']);
  assert.deepEqual(ids('NDC 0071015523'), []);
});

test('takes lots, batches and models as inferred, with lists after one label', () => {
  assert.deepEqual(ids('Lots 9280009, 9280010, 9280011, 9280012'), [
    'lot:9280009:inferred:9280009',
    'lot:9280010:inferred:9280010',
    'lot:9280011:inferred:9280011',
    'lot:9280012:inferred:9280012',
  ]);
  assert.deepEqual(ids('Lot 21096, 21106'), ['lot:21096:inferred:21096', 'lot:21106:inferred:21106']);
  assert.deepEqual(ids('Lot: 10313-8J  UPC 77890 27864  Use By Date: 01/08/2014'), [
    'lot:103138J:inferred:10313-8J',
  ]);
  assert.deepEqual(ids('Lot Codes 06109805 & 06102005'), [
    'lot:06102005:inferred:06102005',
    'lot:06109805:inferred:06109805',
  ]);
  assert.deepEqual(ids('Lots: PA17-412, PA17-077,PA17-196, Exp 11/18'), [
    'lot:PA17077:inferred:PA17-077',
    'lot:PA17196:inferred:PA17-196',
    'lot:PA17412:inferred:PA17-412',
  ]);
  assert.deepEqual(ids('Lot#:  M030042P, Exp. 01/2020'), ['lot:M030042P:inferred:M030042P']);
  assert.deepEqual(ids('Lot#174250'), ['lot:174250:inferred:174250']);
  assert.deepEqual(ids('Batch: 0004711598, Production date 04/26/2012, Iff Code 76185.'), [
    'batch:0004711598:inferred:0004711598',
  ]);
  assert.deepEqual(ids('Batch No. BF0330, BF0619 and BG1026'), [
    'batch:BF0330:inferred:BF0330',
    'batch:BF0619:inferred:BF0619',
    'batch:BG1026:inferred:BG1026',
  ]);
  assert.deepEqual(ids('Heron toilet and bath chair Model 880505-01 & 880505-11'), [
    'model:88050501:inferred:880505-01',
    'model:88050511:inferred:880505-11',
  ]);
  assert.deepEqual(ids('Model Number (REF): 781270'), ['model:781270:inferred:781270']);
  assert.deepEqual(ids('BD Nexiva REF 383516 20 GA X1.0o in'), ['model:383516:inferred:383516']);
  assert.deepEqual(ids('Item No. 15-2979/02; Cat#: CO-02; Product No. 90885 and 90888'), [
    'model:15297902:inferred:15-2979/02',
    'model:90885:inferred:90885',
    'model:90888:inferred:90888',
    'model:CO02:inferred:CO-02',
  ]);
  assert.deepEqual(ids('model numbers NS-AF34D2, NS-AF5DSS2 and NS-AF5DSS3'), [
    'model:NSAF34D2:inferred:NS-AF34D2',
    'model:NSAF5DSS2:inferred:NS-AF5DSS2',
    'model:NSAF5DSS3:inferred:NS-AF5DSS3',
  ]);
});

test('skips expiry phrases and short parentheticals inside a lot list', () => {
  assert.deepEqual(ids('Lot #: 099534, Exp. 07/18; 099512 Exp. 06/18.'), [
    'lot:099512:inferred:099512',
    'lot:099534:inferred:099534',
  ]);
  assert.deepEqual(ids('Lot F0067 exp. 06/14,  F0079 exp. 04/15'), [
    'lot:F0067:inferred:F0067',
    'lot:F0079:inferred:F0079',
  ]);
  assert.deepEqual(ids('Lots 980221 (exp. 01/20/2023) and 974221 (exp. 01/25/2023)  2) UDI-DI:'), [
    'lot:974221:inferred:974221',
    'lot:980221:inferred:980221',
  ]);
  assert.deepEqual(ids('Lot Code#2123B(S), 2123C(M)'), [
    'lot:2123B:inferred:2123B',
    'lot:2123C:inferred:2123C',
  ]);
});

test('reads a lot printed in space-separated groups as one code, a space-separated list as several', () => {
  assert.deepEqual(ids('Lot code CR 18 13B, and Best Before: 2015-08.'), ['lot:CR1813B:inferred:CR 18 13B']);
  assert.deepEqual(ids('Lots 18024 18037 18043'), [
    'lot:18024:inferred:18024',
    'lot:18037:inferred:18037',
    'lot:18043:inferred:18043',
  ]);
});

test('takes GS1 UDIs as extracted and their AI 10 lot as a separate lot', () => {
  assert.deepEqual(ids('Catalog Number: 383516 UDI-DI Code: (01)00382903835164 Lot Number: 2168865'), [
    'lot:2168865:inferred:2168865',
    'model:383516:inferred:383516',
    'udi:00382903835164:extracted:(01)00382903835164',
  ]);
  assert.deepEqual(ids('UDI: (01)00844505000772(10)122927(17)310301'), [
    'lot:122927:extracted:122927',
    'udi:00844505000772:extracted:(01)00844505000772(10)122927(17)310301',
  ]);
  // A GS1 element string needs no other label.
  assert.deepEqual(ids('Label shows (01)51022222233336(11)141231(17)150707(10)A213B1(21)1234 on the pouch'), [
    'lot:A213B1:extracted:A213B1',
    'udi:51022222233336:extracted:(01)51022222233336(11)141231(17)150707(10)A213B1(21)1234',
  ]);
  assert.deepEqual(ids('UDI-DI: 04026575284658 Lot Codes: C010108, C151519'), [
    'lot:C010108:inferred:C010108',
    'lot:C151519:inferred:C151519',
    'udi:04026575284658:extracted:04026575284658',
  ]);
});

test('restricts the kinds extracted when asked', () => {
  const found = extractLabelledIdentifiers('UPC 046567025469 Lot 21096 Model 880505-01', { kinds: ['lot'] });
  assert.deepEqual(
    found.map((i) => i.kind),
    ['lot'],
  );
});

// --- negatives -------------------------------------------------------------------------------

const NOTHING: [string, string][] = [
  ['placeholders', 'All lot codes.'],
  ['placeholders', 'all lot codes'],
  ['placeholders', 'Lot codes: All'],
  ['placeholders', 'No codes'],
  ['placeholders', 'UDI-DI Code: No UDI Codes provided'],
  ['placeholders', 'UDI Code: N/A'],
  ['dates', 'Best By: 08/27/19'],
  ['dates', 'Exp 10/15'],
  ['dates', 'Sell By 11/13/2022 Sell By: 11/14/2022'],
  ['dates', 'Use by Date: 2017-05-25'],
  ['dates', 'Exp:12/31/13, 12/31/12,12/30/11,'],
  ['dates', 'Best by Dates     18SEP20  20SEP20  28SEP20'],
  ['dates as lots', 'Lot: 08/27/19'],
  ['dates as lots', 'Lot 18SEP20'],
  ['dates as lots', 'Lot 05/2018'],
  ['unlabelled digit runs', '18024 18037 18043 18058 18074'],
  ['unlabelled digit runs', 'Product of China 6926145714029'],
  ['unlabelled digit runs', 'net wt 16 oz 012345678905'],
  ['unlabelled codes', 'SUL4839705; SUL4839706; SUL4853771'],
  ['unlabelled codes', '77A05112  77A05232  77A05302'],
  ['weights and quantities', 'Net Weight 25 lb, 36 bags for a total case weight of 27 lbs.'],
  ['weights and quantities', 'Lot 5 cases'],
  ['weights and quantities', 'a lot of 500 units'],
  ['weights and quantities', 'Lots of 56oz'],
  ['zip codes and phones', 'Distributed by ALDI Inc., Batavia, IL 60510. Call 1-800-555-1234.'],
  ['zip codes and phones', 'Model 1-800-555-1234'],
  ['invalid barcodes', 'UPC 77890 27864'],
  ['invalid barcodes', 'UPC 4122033749'],
  ['invalid barcodes', 'UPC code of 28400-00901.'],
  ['invalid barcodes', 'UPC: 0007874209234'],
  ['invalid barcodes', 'UPC 330223-11478.'],
  ['barcode glued to a date', 'UPC 08/02/21'],
  ['label words that are ordinary words', 'Product 12345 and item 2345 and part 3456 of the catalog 4567'],
  ['lowercase ref', 'see ref 12345'],
  ['model years', 'Model Year 2019, models 2017-2019'],
  ['short codes', 'Lot 12'],
  ['not an identifier after the label', 'Lot: see attached list'],
  [
    'a range whose ends differ in shape',
    'Serial numbers QX1200 to QY1300 and serial numbers 1200 through 13000',
  ],
  ['serial numbers as prefixes', 'serial numbers starting with FC32 and ending in 211'],
  ['open bounds', 'Serial numbers 3114 or older are affected; lot 22C15 and later'],
  ['ends in groups whose shapes differ', 'Serial numbers 19K 0000000 000 to 22C 9999999 999 are affected.'],
  ['a month-first date-code range', 'Date codes for doors range from 031924 to 060524.'],
  [
    'a wildcard masking a position',
    'Serial numbers containing the date code (e.g., xxxxx2308xxxxx) are affected.',
  ],
  ['wildcards and formats', 'Date Code (in Serial Number) 911XXXXXX, a date code formatted as 20XX YY-58'],
  ['battery types and sizes', 'Model numbers CR2032, LR44/357, 2XL and 50mm/55mm/65mm'],
  ['zip and promo codes', 'zip code 60510 and promo code 12345'],
  ['fragments of VINs', 'Affected models have a VIN containing TDX9Z19A.'],
];

for (const [why, text] of NOTHING) {
  test(`takes no identifier from "${text}" (${why})`, () => {
    assert.deepEqual(extractLabelledIdentifiers(text), []);
  });
}

// --- lists and flattened tables (labelling.md rules 4 and 5) --------------------------------

test('reads every value of a multi-brand list of model numbers', () => {
  assert.deepEqual(
    ids(
      'The following brands and model numbers are included: Acme Model Numbers KX-200A KX-200A-C KX-310B Bolt Model Numbers BT-44 BT-45X.',
    ),
    [
      'model:BT44:inferred:BT-44',
      'model:BT45X:inferred:BT-45X',
      'model:KX200A:inferred:KX-200A',
      'model:KX200AC:inferred:KX-200A-C',
      'model:KX310B:inferred:KX-310B',
    ],
  );
});

test('a label and its value inside quotes or brackets: the closing quote ends the value', () => {
  // CPSC 10461 and 10520: "Production Batch Number 202408" and "Production Batch: 7654" in quotes.
  assert.deepEqual(ids('labels with "Production Batch Number 202408" printed on the back'), [
    'batch:202408:inferred:202408',
  ]);
  assert.deepEqual(ids('packages with “lot code 88123” and [lot 88124]'), [
    'lot:88123:inferred:88123',
    'lot:88124:inferred:88124',
  ]);
  // An apostrophe followed by a letter still glues: "X100's" is not read as "X100".
  assert.deepEqual(ids("the Model X100's handle"), []);
});

test('a brand in capitals heading the next model label is not a model of the list before it', () => {
  // CPSC 9894: "… Advantage AG models AG3, AG4 FORCE models FORCE02E, FORCE03E …".
  assert.deepEqual(ids('Advantage AG models AG3, AG4 FORCE models FORCE02E, FORCE03E'), [
    'model:AG3:inferred:AG3',
    'model:AG4:inferred:AG4',
    'model:FORCE02E:inferred:FORCE02E',
    'model:FORCE03E:inferred:FORCE03E',
  ]);
});

test('a list inside brackets ends with them; a number sign glued to a code or a plural is no value', () => {
  // CPSC 10114: "… Push Mowers (Model #PM 4910-10) or SKIL 40V …".
  assert.deepEqual(ids('Push Mowers (Model #PM 4910-10) or SKIL 40V Mowers (Model #SM4910-10).'), [
    'model:PM491010:inferred:PM 4910-10',
    'model:SM491010:inferred:SM4910-10',
  ]);
  // CPSC 9891's captions: "Model #s HWL-LF and HWL-LF-BP10 (White)".
  assert.deepEqual(ids('Sounders Model #s HWL-LF and HWL-LF-BP10 (White) showing the label'), [
    'model:HWLLF:inferred:HWL-LF',
    'model:HWLLFBP10:inferred:HWL-LF-BP10',
  ]);
});

test('reads the model column of a product table flattened into prose, not its sizes', () => {
  assert.deepEqual(
    ids(
      'The recalled ranges are: Name Model 36-inch Range AB123/BK/P AB123/S/P 48-inch Range AB148/BK/P AB148/S/P',
    ),
    [
      'model:AB123BKP:inferred:AB123/BK/P',
      'model:AB123SP:inferred:AB123/S/P',
      'model:AB148BKP:inferred:AB148/BK/P',
      'model:AB148SP:inferred:AB148/S/P',
    ],
  );
});

test('a model list introduced by a colon, after other words, separated by spaces', () => {
  assert.deepEqual(
    ids(
      'The following model numbers are included in this recall regardless of date manufactured: AWR070BLST3P8U AWR105BLST3P8U AWR140BLST3P8U',
    ),
    [
      'model:AWR070BLST3P8U:inferred:AWR070BLST3P8U',
      'model:AWR105BLST3P8U:inferred:AWR105BLST3P8U',
      'model:AWR140BLST3P8U:inferred:AWR140BLST3P8U',
    ],
  );
});

test('a table of models and serial-number ranges gives the models and one range rule per range', () => {
  assert.deepEqual(
    ids(
      'Model Number Serial Number Range FCRE3052BW VF34618193 thru VF34618322 FCRE305CBW VF34601466 thru VF34601608 FCRG3051BB VF34508449 thru VF34508592',
    ),
    [
      'lot:VF34508449..VF34508592:inferred:VF34508449 thru VF34508592',
      'lot:VF34601466..VF34601608:inferred:VF34601466 thru VF34601608',
      'lot:VF34618193..VF34618322:inferred:VF34618193 thru VF34618322',
      'model:FCRE3052BW:inferred:FCRE3052BW',
      'model:FCRE305CBW:inferred:FCRE305CBW',
      'model:FCRG3051BB:inferred:FCRG3051BB',
    ],
  );
  // First and last serial numbers in two columns: ends of two lengths are no rule.
  assert.deepEqual(
    ids(
      'Refrigerator Model First serial number Last serial number GDIM-49NT 9466976 10040916 GDM-45 9344197 10010080 GDM-47 9300299 10010063',
    ),
    ['model:GDIM49NT:inferred:GDIM-49NT', 'model:GDM45:inferred:GDM-45', 'model:GDM47:inferred:GDM-47'],
  );
});

test('a table with an item, a description and a barcode column: items as models, barcodes by check digit', () => {
  assert.deepEqual(
    ids(
      "ITEM # PRODUCT DESCRIPTION UPC BAR CODE 426028 MGA's Mini Verse PIZZA PARTY 035051426028 589938 MGA's Miniverse Food S3A PDQ 035051589938 593768 MGA's Mini Hllwn PDQ 035051591768",
    ),
    [
      'model:426028:inferred:426028',
      'model:589938:inferred:589938',
      'model:593768:inferred:593768',
      'upc:00035051426028:extracted:035051426028',
      'upc:00035051589938:extracted:035051589938',
    ],
  );
});

test('a header ending "Serial Number End" is no open bound; a model\'s other designation after a slash is read whole', () => {
  assert.deepEqual(
    ids(
      'Only boilers with the following model and serial numbers are included in the recall: Model Serial Number Start Serial Number End 020-410B2 / QZ 310-NG QZA-0310-100001 QZA-0310-100999 020-411B2 / QZ 310-LP QZA-0310-200001 QZA-0310-200999',
    ),
    [
      'lot:QZA0310100001..QZA0310100999:inferred:QZA-0310-100001 QZA-0310-100999',
      'lot:QZA0310200001..QZA0310200999:inferred:QZA-0310-200001 QZA-0310-200999',
      'model:020410B2:inferred:020-410B2',
      'model:020411B2:inferred:020-411B2',
      'model:QZ310LP:inferred:QZ 310-LP',
      'model:QZ310NG:inferred:QZ 310-NG',
    ],
  );
  // In prose, "starting with", "containing" and "from" still make a value an open bound.
  assert.deepEqual(ids('Serial numbers containing 41914, 49203, or 49988 are included.'), []);
  assert.deepEqual(ids('Lights with model numbers starting with QE1122 and QE1145 are included.'), []);
});

test('a range column holds only pairs of ends, each a rule: a lone code in it is no lot, unless the header allows singles', () => {
  // A serial prefix in its own column, and a variant after the last row, are not lots.
  assert.deepEqual(
    ids(
      'The following models and serial number ranges are included: Product Name Item Code Serial Number Range Start Serial Number Range End Widget Solo QB110 Widget Series QB044936 QB147874 QB155 Widget Series QB045337 QB147522 QB175 Widget Series QB044728 QB148532 ZQ4865G/BK/P',
    ),
    [
      'lot:QB044728..QB148532:inferred:QB044728 QB148532',
      'lot:QB044936..QB147874:inferred:QB044936 QB147874',
      'lot:QB045337..QB147522:inferred:QB045337 QB147522',
      'model:QB110:inferred:QB110',
      'model:QB155:inferred:QB155',
      'model:QB175:inferred:QB175',
      'model:ZQ4865GBKP:inferred:ZQ4865G/BK/P',
    ],
  );
  // Ends after a prefix column are no whole serial numbers: no rule.
  assert.deepEqual(
    ids(
      'The following models and serial number ranges are included. Serial Number Range Model Year Prefix Min Max 2021 Q2D 0000625 0000880 2022 Q0D 0513701 0514498 Q0E 0502001 0502134',
    ),
    [],
  );
  // "Serial Number(s) or Range": a single serial is read as one.
  assert.deepEqual(
    ids(
      'Model Name/ Number Recalled Serial Number(s) or Range Retail QT30 QM7291709CA00001 - QM7292104C00380 QT9800 QM87D070600070, QM87D080600128, and QM87D0940059',
    ),
    [
      'lot:QM87D070600070:inferred:QM87D070600070',
      'lot:QM87D080600128:inferred:QM87D080600128',
      'lot:QM87D0940059:inferred:QM87D0940059',
      'model:QT30:inferred:QT30',
      'model:QT9800:inferred:QT9800',
    ],
  );
});

test('a code carrying a whole date is a cohort code, not a model of the table', () => {
  assert.deepEqual(
    ids(
      'Product Name and Description Model Number(s) / Cohort Information Seller Walk-Through Gate QW046 (Black); QB20240330 Example Trading Co. Tall Gate QW371 (White); QA20240910 Example Trading Co. Auto Close Gate QW385 (White); QA20240801 Example Trading Co.',
    ),
    ['model:QW046:inferred:QW046', 'model:QW371:inferred:QW371', 'model:QW385:inferred:QW385'],
  );
});

test('a date code in two groups after a label is one lot; a model prefix printed twice is said once', () => {
  assert.deepEqual(ids('Recalled slot car, Item# QRX 113, Date Code: 01/15/24 CH1'), [
    'lot:011524CH1:inferred:01/15/24 CH1',
    'model:QRX113:inferred:QRX 113',
  ]);
  assert.deepEqual(ids('Recalled refrigerator, model number QDM QDM-49'), ['model:QDM49:inferred:QDM-49']);
});

test("a vehicle's name after its model year is not its model number", () => {
  assert.deepEqual(
    ids(
      'Product Name Model Number Vehicle Identification Number 2025 QX450 QX450MSFNN 2025 QX450SR QX450PSFNN 2025 QX450X QX450NSFNN',
    ),
    [
      'model:QX450MSFNN:inferred:QX450MSFNN',
      'model:QX450NSFNN:inferred:QX450NSFNN',
      'model:QX450PSFNN:inferred:QX450PSFNN',
    ],
  );
});

test('lots in quotes and under Spanish and French labels; a lot code ending in G is not a weight', () => {
  assert.deepEqual(
    ids(
      'with lot code "23342-2" and use-by date "12 8 25"; lot code “217638176,” and establishment number “P-27497”; lot codes “03.07.25.C1-1” and “03.07.25.C1-2”; and lot code 4162G.',
    ),
    [
      'lot:030725C11:inferred:03.07.25.C1-1',
      'lot:030725C12:inferred:03.07.25.C1-2',
      'lot:217638176:inferred:217638176',
      'lot:233422:inferred:23342-2',
      'lot:4162G:inferred:4162G',
    ],
  );
  assert.deepEqual(ids('con códigos de lote LPK1WA046, LPK1WA048, y LPK1WA050 impresos en la etiqueta'), [
    'lot:LPK1WA046:inferred:LPK1WA046',
    'lot:LPK1WA048:inferred:LPK1WA048',
    'lot:LPK1WA050:inferred:LPK1WA050',
  ]);
  assert.deepEqual(ids('numéro de lot 2312A et code de lot 2401B'), [
    'lot:2312A:inferred:2312A',
    'lot:2401B:inferred:2401B',
  ]);
});

test('serial numbers listed one by one are lots; a "code" label names lots; Julian dates are date codes', () => {
  assert.deepEqual(ids('Serial Numbers: AP0447, AP0448'), [
    'lot:AP0447:inferred:AP0447',
    'lot:AP0448:inferred:AP0448',
  ]);
  assert.deepEqual(ids('Yellow Icing - Code D16-095 & D-16-096'), [
    'lot:D16095:inferred:D16-095',
    'lot:D16096:inferred:D-16-096',
  ]);
  assert.deepEqual(ids('with Julian dates 3453 and 0154 printed on the side'), [
    'lot:0154:inferred:0154',
    'lot:3453:inferred:3453',
  ]);
});

test('VINs under their label, extracted when the check digit holds', () => {
  assert.deepEqual(
    ids(
      'Model Numbers VIN KAT1000ARFNN JKAATCA12RB500001 KAF1000LRFNN JKAAFCL17RB500001 KAF1000MRFNN JKAAFCM19RB500001',
    ),
    [
      'model:KAF1000LRFNN:inferred:KAF1000LRFNN',
      'model:KAF1000MRFNN:inferred:KAF1000MRFNN',
      'model:KAT1000ARFNN:inferred:KAT1000ARFNN',
      'vin:JKAAFCL17RB500001:extracted:JKAAFCL17RB500001',
      'vin:JKAAFCM19RB500001:extracted:JKAAFCM19RB500001',
      'vin:JKAATCA12RB500001:extracted:JKAATCA12RB500001',
    ],
  );
});

test('a model printed before a bare "model", and a model with its variant suffix', () => {
  assert.deepEqual(ids('The 10-quart DUAF-10 model is about 17 inches long; the 2019 model is not.'), [
    'model:DUAF10:inferred:DUAF-10',
  ]);
  assert.deepEqual(
    ids(
      'Model Numbers Model Name KAF1000LRFNN/LRFNL MULE PRO-FX 1000 KAT1000BRFNN/BRFNL MULE PRO-FXT 1000 KAT1000CRFNN/CRFNL',
    ),
    [
      'model:KAF1000LRFNN:inferred:KAF1000LRFNN',
      'model:KAT1000BRFNN:inferred:KAT1000BRFNN',
      'model:KAT1000CRFNN:inferred:KAT1000CRFNN',
    ],
  );
});

test('a number shaped like an NDC but labelled as a product number is a model, never an NDC', () => {
  assert.deepEqual(ids('Product Number: 69420-8351-1 Lot Number: U701SF1 UDI Code: N/A'), [
    'lot:U701SF1:inferred:U701SF1',
    'model:6942083511:inferred:69420-8351-1',
  ]);
});

test('returns nothing for empty text', () => {
  assert.deepEqual(extractLabelledIdentifiers(''), []);
});

// --- merging ---------------------------------------------------------------------------------

test('mergeIdentifiers deduplicates by (kind, normalized), keeps the surest confidence, sorts', () => {
  const a: Identifier = {
    kind: 'upc',
    value: '0 50428 54100 5',
    normalized: '00050428541005',
    confidence: 'extracted',
  };
  const b: Identifier = {
    kind: 'upc',
    value: '050428541005',
    normalized: '00050428541005',
    confidence: 'exact',
  };
  const c: Identifier = { kind: 'lot', value: 'A-1', normalized: 'A1', confidence: 'inferred' };
  const d: Identifier = {
    kind: 'gtin',
    value: '050428541005',
    normalized: '00050428541005',
    confidence: 'extracted',
  };
  assert.deepEqual(mergeIdentifiers([a, c], [b, d, c]), [d, c, b]);
  assert.deepEqual(mergeIdentifiers([a, a]), [a]);
});

// --- error classes found on records no rule was written from (issue 27) -----------------------

test('a range glued by a dash is no lot: date-code spans give nothing, long serial spans a range rule', () => {
  assert.deepEqual(ids('Only model number 55012 and date codes 22/4-24/11 are affected.'), [
    'model:55012:inferred:55012',
  ]);
  assert.deepEqual(
    ids('Model Date Codes 41120 03/2021-08/2022 41125 09/2022-01/2024 41130 02/2024-05/2024'),
    ['model:41120:inferred:41120', 'model:41125:inferred:41125', 'model:41130:inferred:41130'],
  );
  assert.deepEqual(ids('Serial numbers 5100200-5100999 are included.'), [
    'lot:5100200..5100999:inferred:5100200-5100999',
  ]);
  // A batch with a dash whose parts differ in shape or length stays one value.
  assert.deepEqual(ids('Batch 21-096 only.'), ['batch:21096:inferred:21-096']);
});

test('"between … and …" gives a serial range as one rule, not models', () => {
  assert.deepEqual(
    ids(
      'The minifridge model TQFR220 is affected. Model Number Serial Number TQFR220 Between K4001 and K4890',
    ),
    ['lot:K4001..K4890:inferred:K4001 and K4890', 'model:TQFR220:inferred:TQFR220'],
  );
  assert.deepEqual(ids('Serial numbers between 4400120 and 4400990 are affected.'), [
    'lot:4400120..4400990:inferred:4400120 and 4400990',
  ]);
  // A parenthesis after the first end, and ends in groups that mirror each other.
  assert.deepEqual(ids('serial numbers between 40712 (built in week 7) and 40748 are affected'), [
    'lot:40712..40748:inferred:40712 (built in week 7) and 40748',
  ]);
  assert.deepEqual(ids('Serial No. Between 41220 3310 and 41220 3399'), [
    'lot:412203310..412203399:inferred:41220 3310 and 41220 3399',
  ]);
});

test('marketplace codes are no lots, and "ASIN" is no model', () => {
  assert.deepEqual(ids('The lamps (Model QL-820 and ASIN B0ZZTEST01) were sold online.'), [
    'model:QL820:inferred:QL-820',
  ]);
  assert.deepEqual(ids('Batch number X00ZZTEST9 is printed on the box.'), []);
  assert.deepEqual(ids('Lot B0ZZTEST01, lot 24A117.'), ['lot:24A117:inferred:24A117']);
});

test('a brand in capitals after a model number is not a model', () => {
  assert.deepEqual(ids('Recalled Model No. QX4410HRT ZEPHYRA Elite Series disc'), [
    'model:QX4410HRT:inferred:QX4410HRT',
  ]);
  // Letter codes in a list separated as a list are still read.
  assert.deepEqual(ids('Models MPTESTA, MPTESTB and MP-2210.'), [
    'model:MP2210:inferred:MP-2210',
    'model:MPTESTA:inferred:MPTESTA',
    'model:MPTESTB:inferred:MPTESTB',
  ]);
});

test('a quoted model name that starts with a code is not a model number', () => {
  assert.deepEqual(ids('The model "Glide-2 Orbit" is printed on the label.'), []);
  assert.deepEqual(ids('The model "GL-2210" is printed on the label.'), ['model:GL2210:inferred:GL-2210']);
});

test('a model printed as a number and a short code is one value, never cut in two', () => {
  assert.deepEqual(ids('Model: 40512 ABX'), ['model:40512ABX:inferred:40512 ABX']);
  assert.deepEqual(ids('Models 40512 ABX and 40513 ABX are affected.'), [
    'model:40512ABX:inferred:40512 ABX',
    'model:40513ABX:inferred:40513 ABX',
  ]);
});

test('a barcode printed as AI (01) and digit groups gives its GTIN', () => {
  assert.deepEqual(ids('Barcode (01) 0 0361958 01013 9 on the carton.'), [
    'gtin:00361958010139:extracted:0 0361958 01013 9',
    'udi:00361958010139:extracted:(01)00361958010139',
  ]);
  assert.deepEqual(ids('The carton reads (01) 0 0361958 01013 9.'), [
    'udi:00361958010139:extracted:(01)00361958010139',
  ]);
  // A check digit that fails gives nothing.
  assert.deepEqual(ids('The carton reads (01) 0 0361958 01013 8.'), []);
});

test("a unit's date code and its plant are one lot", () => {
  assert.deepEqual(ids('The heaters have date codes 05/23 PL1 and 06/23 PL1 printed on the base.'), [
    'lot:0523PL1:inferred:05/23 PL1',
    'lot:0623PL1:inferred:06/23 PL1',
  ]);
});

test('a brand between the model numbers of a list does not end it; a model name is no model number', () => {
  assert.deepEqual(ids('Model numbers KX-200A, Zephyra KX-310B and KX-420C are included.'), [
    'model:KX200A:inferred:KX-200A',
    'model:KX310B:inferred:KX-310B',
    'model:KX420C:inferred:KX-420C',
  ]);
  assert.deepEqual(ids('Models KX-200A and Deluxe 3000 are included.'), ['model:KX200A:inferred:KX-200A']);
});

// --- match rules: wildcards and ranges (issue 36) ----------------------------------------------

test('class 1: wildcard models in a list or a table are prefix rules; a stem under 5 characters gives nothing', () => {
  assert.deepEqual(ids('Model Numbers QK2040GC* QK2050GC* QK2060* AB12* are included.'), [
    'model:QK2040GC*:inferred:QK2040GC*',
    'model:QK2050GC*:inferred:QK2050GC*',
    'model:QK2060*:inferred:QK2060*',
  ]);
  assert.deepEqual(
    ids(
      'The following models are included: Model Description QK2040GC* Cordless Drill QK3050* Impact Driver RX9xxxx Saw',
    ),
    ['model:QK2040GC*:inferred:QK2040GC*', 'model:QK3050*:inferred:QK3050*'],
  );
  assert.deepEqual(ids('Model number 7TRS40XXX is printed on the label.'), [
    'model:7TRS40*:inferred:7TRS40XXX',
  ]);
  assert.deepEqual(ids('Model numbers AB12xxxx and CD3xxx are affected.'), []);
  // Two lower-case x are a wildcard; two capitals may be printed as part of a model.
  assert.deepEqual(ids('Serial numbers QP5221803xx and QP5221804xx'), [
    'lot:QP5221803*:inferred:QP5221803xx',
    'lot:QP5221804*:inferred:QP5221804xx',
  ]);
  assert.deepEqual(ids('Model MX100XX'), ['model:MX100XX:inferred:MX100XX']);
  // Serial numbers printed with a run of x are lot prefixes.
  assert.deepEqual(
    ids(
      'Only units with serial numbers beginning with the following numbers are included: ZP4410233xxxxx ZP4410234xxxxx. The serial number is on the base.',
    ),
    ['lot:ZP4410233*:inferred:ZP4410233xxxxx', 'lot:ZP4410234*:inferred:ZP4410234xxxxx'],
  );
});

test('class 2: each serial range is one rule, glued ones in a row included, whatever word joins its ends', () => {
  assert.deepEqual(
    ids('Serial numbers within one of these ranges: 40512-41780 233006-235101 880100-880955 are included.'),
    [
      'lot:233006..235101:inferred:233006-235101',
      'lot:40512..41780:inferred:40512-41780',
      'lot:880100..880955:inferred:880100-880955',
    ],
  );
  assert.deepEqual(
    ids(
      'Units with serial numbers 40012000 through 40098999, lots A2001 thru A2308 and lot numbers Q10450 to Q10499.',
    ),
    [
      'lot:40012000..40098999:inferred:40012000 through 40098999',
      'lot:A2001..A2308:inferred:A2001 thru A2308',
      'lot:Q10450..Q10499:inferred:Q10450 to Q10499',
    ],
  );
  assert.deepEqual(ids('Serial numbers 40012000 to 40098999'), [
    'lot:40012000..40098999:inferred:40012000 to 40098999',
  ]);
  assert.deepEqual(
    ids('Only blowers with serial numbers ranging from 551200117 to 551916107 are included.'),
    ['lot:551200117..551916107:inferred:551200117 to 551916107'],
  );
  // A short glued pair outside a text of ranges stays one lot with a dash.
  assert.deepEqual(ids('Lot 12345-12399 only.'), ['lot:1234512399:inferred:12345-12399']);
});

test('class 3: a two-column table flattened into prose gives each cell its column: serial numbers are lots', () => {
  assert.deepEqual(ids('Model Number Serial Numbers MX100 GK2301, GK2302 DB60M / DB60P GK2401, GK2402'), [
    'lot:GK2301:inferred:GK2301',
    'lot:GK2302:inferred:GK2302',
    'lot:GK2401:inferred:GK2401',
    'lot:GK2402:inferred:GK2402',
    'model:DB60M:inferred:DB60M',
    'model:DB60P:inferred:DB60P',
    'model:MX100:inferred:MX100',
  ]);
  // A "(first N digits)" serial column gives prefix rules, never models; too short a beginning gives nothing.
  assert.deepEqual(
    ids('Model Numbers Serial Numbers (first 8 digits) 24110007 42KM50-01 or 42KM50-02 24120015 42KM60-01'),
    [
      'lot:24110007*:inferred:24110007*',
      'lot:24120015*:inferred:24120015*',
      'model:42KM5001:inferred:42KM50-01',
      'model:42KM5002:inferred:42KM50-02',
      'model:42KM6001:inferred:42KM60-01',
    ],
  );
  assert.deepEqual(
    ids('Model Numbers Serial Numbers (first 4 digits) 2411 42KM50-01 or 42KM50-02 2412 42KM60-01'),
    [
      'model:42KM5001:inferred:42KM50-01',
      'model:42KM5002:inferred:42KM50-02',
      'model:42KM6001:inferred:42KM60-01',
    ],
  );
});

test('class 4: range ends with spaces inside are one rule when they mirror each other, else nothing, never fragments', () => {
  assert.deepEqual(ids('Serial numbers 19K 0000000 000 to 22C 9999999 999 are affected.'), []);
  assert.deepEqual(ids('Only date codes 2023 32-58 through 2024 13-58 are affected.'), [
    'lot:20233258..20241358:inferred:2023 32-58 through 2024 13-58',
  ]);
  assert.deepEqual(ids('Lot numbers 17348 L24 - 23320 K26 are affected.'), []);
});

test('class 5: lists after an introducing sentence, after long product names, and codes starting with a digit', () => {
  assert.deepEqual(
    ids(
      'The following model numbers are included in this recall: Zephyra ZR4410 ZR4420 ZR4430 Kestrel KT200A KT300A',
    ),
    [
      'model:KT200A:inferred:KT200A',
      'model:KT300A:inferred:KT300A',
      'model:ZR4410:inferred:ZR4410',
      'model:ZR4420:inferred:ZR4420',
      'model:ZR4430:inferred:ZR4430',
    ],
  );
  // Colours name a listing's variants: the codes are models, the colours nothing.
  assert.deepEqual(
    ids(
      'The recalled bowls are: Pet Bowls Stainless Steel Elevated Raised Double Food Tray Model QB10004GR Gray QB10004BE Beige QB10004PK Pink. The bowls',
    ),
    [
      'model:QB10004BE:inferred:QB10004BE',
      'model:QB10004GR:inferred:QB10004GR',
      'model:QB10004PK:inferred:QB10004PK',
    ],
  );
  assert.deepEqual(ids('Model QK100 Black is sold with a Red lid.'), ['model:QK100:inferred:QK100']);
  assert.deepEqual(
    ids('Acme Model Numbers 1PAC10000 1PAC12000 1PAC14000 Bolt Model Numbers 2PBC100 2PBC200'),
    [
      'model:1PAC10000:inferred:1PAC10000',
      'model:1PAC12000:inferred:1PAC12000',
      'model:1PAC14000:inferred:1PAC14000',
      'model:2PBC100:inferred:2PBC100',
      'model:2PBC200:inferred:2PBC200',
    ],
  );
});

test('a range whose first end is one group ends after one group: a row label after it is not its second group', () => {
  assert.deepEqual(
    ids('Serial Number Range QT432C1210CA00002 - QT432C1606CA00200 T40 (QT433) QT4331201BD00466'),
    ['lot:QT432C1210CA00002..QT432C1606CA00200:inferred:QT432C1210CA00002 - QT432C1606CA00200'],
  );
});

test('a GS1 string whose GTIN is printed in groups keeps its element strings: the lot inside is a lot', () => {
  assert.deepEqual(ids('UDI (01) 0 0361958 01013 9 (17) 250101 (10) QB12'), [
    'lot:QB12:extracted:QB12',
    'udi:00361958010139:extracted:(01)00361958010139(17)250101(10)QB12',
  ]);
  assert.deepEqual(ids('The carton reads (01) 00361958 010139 (10) 77Q1.'), [
    'lot:77Q1:extracted:77Q1',
    'udi:00361958010139:extracted:(01)00361958010139(10)77Q1',
  ]);
});

test('a device lot written as year/month and a plant code is one lot', () => {
  assert.deepEqual(ids('Lot numbers: 2019/04 QT, 2019/05 QT and 2019/07 QT.'), [
    'lot:201904QT:inferred:2019/04 QT',
    'lot:201905QT:inferred:2019/05 QT',
    'lot:201907QT:inferred:2019/07 QT',
  ]);
  assert.deepEqual(ids('Lot 2019/04 AND more'), []);
});

test("a range's first end starts a table's body even when its case keeps it out of every column", () => {
  assert.deepEqual(
    ids('Serial Number Range Zap qZ0041591 through qZ0044486 Zap Max qZP000401 through qZP000422'),
    [
      'lot:QZ0041591..QZ0044486:inferred:qZ0041591 through qZ0044486',
      'lot:QZP000401..QZP000422:inferred:qZP000401 through qZP000422',
    ],
  );
});

test('"the serial range of … is" heads a range; "a lot of" still heads nothing', () => {
  assert.deepEqual(ids('The serial range of the recalled Q-Series carts is 000000 to 014034.'), [
    'lot:000000..014034:inferred:000000 to 014034',
  ]);
  assert.deepEqual(ids('A lot of 40 units was shipped.'), []);
});

test("a dash between a code and a name of another shape is no range; ranges count as a table's rows", () => {
  assert.deepEqual(
    ids(
      'Model Number / Name Serial Number Range QR0894 - 18Volt Brushless Nailer QC21146D220001 - QC24165N220001 QR0895 - 18Volt Framing Nailer QC21275D220001 - QC24165N220001',
    ),
    ['model:QR0894:inferred:QR0894', 'model:QR0895:inferred:QR0895'],
  );
});

test('revision marks in brackets after a model are no models', () => {
  assert.deepEqual(
    ids(
      'This recall involves carrier bearings sold for the Q-Cart in the identified date ranges: RECALLED CARRIER BEARING MODEL Q-CART PURCHASE DATE RANGE QEA01-001 4/13/17 through 4/27/19 QEA01-002 5/19/18 through 1/22/19 QEA01-005 (Rev A00 and A01) 1/25/19 through 9/2/22',
    ),
    [
      'model:QEA01001:inferred:QEA01-001',
      'model:QEA01002:inferred:QEA01-002',
      'model:QEA01005:inferred:QEA01-005',
    ],
  );
});

test('"Product Identification Number" heads a table of model numbers', () => {
  assert.deepEqual(
    ids(
      'The recalled mugs have one of the following product identification numbers printed on the bottom. Name Size Product Identification Number Trailhead 12 ounces 40-01437 16 ounces 40-01436, 40-02211 Trigger 12 ounces 40-02033, 40-02779',
    ),
    [
      'model:4001436:inferred:40-01436',
      'model:4001437:inferred:40-01437',
      'model:4002033:inferred:40-02033',
      'model:4002211:inferred:40-02211',
      'model:4002779:inferred:40-02779',
    ],
  );
});

test('fields of 1 MB are read in time proportional to their length (one long code, lists, ranges, prose)', () => {
  const mb = 1 << 20;
  const fields = [
    `Model ${'1'.repeat(mb)} x`,
    `Model ${'1'.repeat(mb)}/ABCD`,
    `Lot ${'A1'.repeat(mb / 2)} x`,
    `Model numbers ${'AB12 '.repeat(mb / 5)}`,
    `Model numbers ${Array.from({ length: mb / 8 }, (_, i) => `K${100000 + i} `).join('')}`,
    `Serial numbers within one of these ranges: ${'40512-41780 '.repeat(mb / 12)}`,
  ];
  // Each finishes (a quadratic step took minutes at this size) and reads what the field holds.
  const [long, slashed, lots, same, distinct, ranges] = fields.map((f) => extractLabelledIdentifiers(f));
  for (const ids of [long, slashed, lots]) assert.ok(ids!.length <= 1);
  assert.deepEqual([...new Set(same!.map((i) => i.normalized))], ['AB12']);
  assert.ok(distinct!.length > 1000);
  assert.deepEqual([...new Set(ranges!.map((i) => i.normalized))], ['40512..41780']);
});
