import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import type { RecallDraft } from '../../../../src/domain/recall.ts';
import { UpstreamError } from '../../../../src/ingest/errors.ts';
import { createUpstreamClient } from '../../../../src/ingest/http-client.ts';
import type { FetchContext, PageFetcher, RawPage } from '../../../../src/ingest/source.ts';
import { windowStart } from '../../../../src/ingest/since-window.ts';
import {
  fetchRappelConso,
  RAPPELCONSO_MAX_PAGES,
  RAPPELCONSO_OFFSET_CAP,
  RAPPELCONSO_PAGE_LIMIT,
  rappelConsoUrl,
  type RecordsQuery,
} from '../../../../src/ingest/sources/fr-rappelconso/fetch.ts';
import {
  identificationGroups,
  identificationIdentifiers,
  isDateOrDateRange,
  listedLots,
  partShape,
} from '../../../../src/ingest/sources/fr-rappelconso/identification.ts';
import { frRappelConso } from '../../../../src/ingest/sources/fr-rappelconso/index.ts';
import {
  isReference,
  modelIdentifiers,
  rappelConsoDate,
  rappelConsoHazard,
  rappelConsoRemedy,
  safetyGateReference,
} from '../../../../src/ingest/sources/fr-rappelconso/normalise.ts';
import { scriptedAgency } from '../../../support/scripted-agency.ts';
import { assertSetAside, type BadRecord } from '../../../support/set-aside.ts';
import { requireShared, sharedPath } from '../../../support/shared.ts';

const FIXTURE = readFileSync(new URL('../../../fixtures/fr-rappelconso/records-0001.json', import.meta.url));

const gtin = (value: string, normalized: string) =>
  ({ kind: 'gtin', value, normalized, confidence: 'exact' }) as const;
const lot = (value: string, normalized: string) =>
  ({ kind: 'lot', value, normalized, confidence: 'exact' }) as const;
const VOLUNTARY = 'volontaire (sans arrêté préfectoral)';

/** The fixture's notices as they must normalise (written by hand from the fixture file). */
const EXPECTED: RecallDraft[] = [
  {
    recordId: '2099-01-0001',
    title: 'charcuterie fictive (fictional) TEST DATA rillettes fictives',
    summary:
      'Motif du rappel : présence de listeria monocytogenes\n' +
      'Risques encourus : listeria monocytogenes (agent responsable de la listériose)\n' +
      'Conduites à tenir : ne plus consommer, rapporter le produit au point de vente\n' +
      'Compensation : remboursement',
    hazard: {
      category: 'microbial_contamination',
      text: 'listeria monocytogenes (agent responsable de la listériose)',
    },
    product: {
      category: 'alimentation',
      brands: ['charcuterie fictive (fictional)'],
      models: [], // a product name with a pack size is no reference
    },
    severity: 'unknown',
    source_classification: VOLUNTARY,
    remedy: 'refund',
    recall_date: '2099-01-12',
    published_date: '2099-01-12',
    countries: ['FR'],
    url: 'https://rappel.conso.gouv.fr/fiche-rappel/990001/interne',
    // Two products: `|` glued to the first one's date starts the second.
    identifiers: [
      gtin('9520000000011', '09520000000011'),
      gtin('9520000000028', '09520000000028'),
      lot('7001 l:ab1 001', '7001LAB1001'),
      lot('7002', '7002'),
    ],
  },
  {
    recordId: '2099-01-0002',
    title: 'TEST DATA croissant fictif', // "fabriqué sur place" is no brand
    summary:
      'Motif du rappel : présence de salmonelles\n' +
      'Risques encourus : salmonella spp (agent responsable de la salmonellose)\n' +
      'Conduites à tenir : ne plus consommer\n' +
      'Compensation : remboursement, echange',
    hazard: {
      category: 'microbial_contamination',
      text: 'salmonella spp (agent responsable de la salmonellose)',
    },
    product: { category: 'alimentation', brands: [], models: [] },
    severity: 'unknown',
    source_classification: VOLUNTARY,
    remedy: 'replace',
    recall_date: '2099-01-12',
    published_date: '2099-01-12',
    countries: ['FR'],
    url: 'https://rappel.conso.gouv.fr/fiche-rappel/990002/interne',
    // In-store codes (02…), one with a valid check digit: not GTINs, not lots.
    identifiers: [],
  },
  {
    recordId: '2099-01-0003',
    title: 'jouets fictifs (fictional) TEST DATA porte-clés fictif',
    summary:
      "Motif du rappel : petits éléments détachables, risque d'étouffement\n" +
      'Risques encourus : étouffement\n' +
      'Conduites à tenir : ne plus utiliser le produit, détruire le produit',
    hazard: { category: 'choking', text: 'étouffement' },
    product: {
      category: 'bébés-enfants (hors alimentaire)',
      brands: ['jouets fictifs (fictional)'],
      models: ['4242'],
    },
    severity: 'unknown',
    source_classification: VOLUNTARY,
    remedy: 'dispose',
    recall_date: '2099-01-12',
    published_date: '2099-01-12',
    countries: ['FR'],
    url: 'https://rappel.conso.gouv.fr/fiche-rappel/990003/interne',
    // The customs code in the GTIN slot is nothing; "réf 4242" is a model.
    identifiers: [{ kind: 'model', value: '4242', normalized: '4242', confidence: 'exact' }],
  },
  {
    recordId: '2099-01-0004',
    title: 'ferme fictive (fictional) TEST DATA lait cru fictif',
    summary:
      'Motif du rappel : erreur de date dlc affichée au 30/07 au lieu de 30/06\n' +
      "Risques encourus : anomalie d'étiquetage\n" +
      'Conduites à tenir : ne plus consommer, rapporter le produit au point de vente\n' +
      'Compensation : remboursement',
    hazard: { category: 'mislabelling', text: "anomalie d'étiquetage" },
    product: { category: 'alimentation', brands: ['ferme fictive (fictional)'], models: [] },
    severity: 'unknown',
    source_classification: VOLUNTARY,
    remedy: 'refund',
    recall_date: '2099-01-12',
    published_date: '2099-01-12',
    countries: ['FR'],
    url: 'https://rappel.conso.gouv.fr/fiche-rappel/990004/interne',
    // A placeholder GTIN and a day/month in the lot slot: nothing.
    identifiers: [],
  },
  {
    recordId: '2099-01-0005',
    title: 'conserverie fictive (fictional) TEST DATA pâté fictif en verrine',
    summary:
      'Motif du rappel : morceau de verre retrouvé dans une verrine\n' +
      'Risques encourus : blessures, étouffement\n' +
      'Conduites à tenir : ne plus consommer, détruire le produit\n' +
      'Compensation : remboursement',
    // The reason names the harm: a foreign body, not the list's choking.
    hazard: { category: 'foreign_matter', text: 'blessures, étouffement' },
    product: {
      category: 'alimentation',
      brands: ['conserverie fictive (fictional)'],
      models: [],
    },
    severity: 'unknown',
    source_classification: VOLUNTARY,
    remedy: 'refund',
    recall_date: '2099-01-13',
    published_date: '2099-01-13',
    countries: ['FR'],
    url: 'https://rappel.conso.gouv.fr/fiche-rappel/990006/interne',
    // Version 2 wins over version 1 listed after it; eight digits after a GTIN are its lot.
    identifiers: [gtin('09520000000066', '09520000000066'), lot('31339999', '31339999')],
  },
  {
    recordId: '2099-01-0006',
    title: 'sports fictifs (fictional) TEST DATA trottinette fictive',
    summary:
      'Motif du rappel : une fissure peut apparaître sur le cadre.\n' +
      'Risques encourus : blessures\n' +
      "Précisions sur le risque : risque de chute pour l'utilisateur.\n" +
      'Conduites à tenir : ne plus utiliser le produit, contacter le point de vente\n' +
      'Compensation : réparation',
    hazard: { category: 'fall', text: 'blessures' },
    product: {
      category: 'sports-loisirs',
      brands: ['sports fictifs (fictional)'],
      models: ['4243'],
    },
    severity: 'unknown',
    source_classification: VOLUNTARY,
    remedy: 'repair',
    recall_date: '2099-01-13',
    published_date: '2099-01-13',
    countries: ['FR'],
    url: 'https://rappel.conso.gouv.fr/fiche-rappel/990007/interne',
    // A UPC-12, a lone "|", a bad check digit left out; a pack size is no model.
    identifiers: [
      gtin('012345678905', '00012345678905'),
      gtin('9520000000035', '09520000000035'),
      { kind: 'model', value: '4243', normalized: '4243', confidence: 'exact' },
    ],
  },
  {
    recordId: 'sr/09999/99',
    title: 'constructeur fictif (fictional) TEST DATA voiture fictive',
    summary:
      'Notification Safety Gate : SR/09999/99\n' +
      "Motif du rappel : les boulons de roue peuvent se détacher, entraînant une perte de contrôle du véhicule et un risque d'accident.\n" +
      'Risques encourus : blessures',
    hazard: { category: 'vehicle_crash', text: 'blessures' },
    product: {
      category: 'automobiles et moyens de déplacement',
      brands: ['constructeur fictif (fictional)'],
      models: [], // a sentence with a VIN range
    },
    severity: 'unknown',
    source_classification: null,
    remedy: 'unknown',
    recall_date: '2099-01-13',
    published_date: '2099-01-13',
    countries: ['FR'],
    url: 'https://rappel.conso.gouv.fr/fiche-rappel/999001/rapex',
    // Production date ranges and a VIN range: no identifier.
    identifiers: [],
  },
];

test('normalises every fixture notice to the draft written by hand', () => {
  const parsed = frRappelConso.parse({ name: 'records-0001.json', body: FIXTURE });
  assert.deepEqual(parsed.drafts, EXPECTED);
  assert.deepEqual(parsed.setAside, []);
  assert.equal(parsed.dataAsOf, '2099-01-13T09:00:00+00:00', 'a short page dates the feed');
});

test('never stores the contact number, the distributors or the public contact details', () => {
  const corpus = JSON.stringify(frRappelConso.parse({ name: 'records-0001.json', body: FIXTURE }).drafts);
  for (const absent of [
    '0199001234',
    '0199001236',
    '01 99 00 12 35',
    'jean fictif',
    'marché fictif',
    'du lundi au vendredi',
  ])
    assert.ok(!corpus.includes(absent), absent);
});

// --- identification_produits -----------------------------------------------------------------

test('groups the parts at every `|`, glued or alone', () => {
  assert.deepEqual(identificationGroups(['a', 'b|c', '|', 'd', '|e', 'f|']), [
    ['a', 'b'],
    ['c'],
    ['d'],
    ['e', 'f'],
  ]);
  assert.deepEqual(identificationGroups('9520000000011$lot 1$$date$2099-01-01|9520000000028$2'), [
    ['9520000000011', 'lot 1', 'date', '2099-01-01'],
    ['9520000000028', '2'],
  ]);
  assert.deepEqual(identificationGroups(null), []);
  assert.deepEqual(identificationGroups([]), []);
});

test('classifies each part by its shape', () => {
  const cases: [string, string][] = [
    ['9520000000011', 'gtin'], // EAN-13
    ['09520000000066', 'gtin'], // GTIN-14
    ['012345678905', 'gtin'], // UPC-12
    ['9520 000000 011', 'gtin'], // printed in groups
    ['9520000000012', 'other-barcode'], // check digit fails
    ['0209999000002', 'other-barcode'], // 020–029: in-store, variable weight
    ['02099990000', 'other-barcode'], // in-store, written short
    ['2952000000000', 'other-barcode'], // 200–299: in-store
    ['0509999000003', 'other-barcode'], // UPC coupon range (050–059) — check digit irrelevant
    ['0300450001009', 'gtin'], // UPC number system 3 (medicines): a trade item
    ['9782954000015', 'gtin'], // ISBN-13 (978): a trade item
    ['9810000000006', 'other-barcode'], // 981–984: coupons
    ['95030099', 'eight-digits'], // customs code, GTIN-8 or lot
    ['00000000', 'none'], // placeholder
    ['312', 'lot'],
    ['1/c/cl/ab/24', 'lot'],
    ['2931l:k2c091', 'lot'],
    ['1096 l:k2c 090', 'lot'],
    ['lot : 1096 l:k2c090', 'lot'],
    ['n° lot ab94859', 'lot'],
    ['ensk958', 'lot'],
    ['2026-06-25', 'none'], // a date
    ['24/06/2026', 'none'],
    ['30/06', 'none'], // a day and month
    ['19.6.2024', 'none'],
    ['07.01.2015 - 29.04.2017', 'none'], // a production range
    ['date limite de consommation', 'none'],
    ['tous les lots', 'none'],
    ['non concerné', 'none'],
    ['production journée du 17/062026', 'none'],
    ['blanche (4%) lot / ddm : 02/28', 'none'],
  ];
  for (const [part, shape] of cases) assert.equal(partShape(part).shape, shape, part);
  assert.deepEqual(partShape('lot : 1096 l:k2c090'), { shape: 'lot', value: '1096 l:k2c090' });
});

test('reads GTINs and lots, never dates, in-store or customs codes', () => {
  assert.deepEqual(
    identificationIdentifiers([
      '02099990000',
      'vendu au rayon traditionnel',
      'date limite de consommation',
      '2099-01-05|0209999000002',
      'date limite de consommation',
      '2099-01-08',
    ]),
    [],
  );
  // Eight digits are a lot only right after a GTIN of the same group.
  assert.deepEqual(identificationIdentifiers(['95030099', 'tous les lots', 'non concerné']), []);
  assert.deepEqual(identificationIdentifiers(['9520000000011', '31339999', 'date', '2099-01-01|31330000']), [
    gtin('9520000000011', '09520000000011'),
    lot('31339999', '31339999'),
  ]);
  // A missing GTIN leaves the lot first: still a lot.
  assert.deepEqual(identificationIdentifiers(['6162', 'date limite de consommation', '2099-06-30']), [
    lot('6162', '6162'),
  ]);
  // The unsplit string form reads the same.
  assert.deepEqual(identificationIdentifiers('9520000000011$7001$date limite de consommation$2099-01-20'), [
    gtin('9520000000011', '09520000000011'),
    lot('7001', '7001'),
  ]);
});

test('models are one-token codes of modeles_ou_references, French reference labels removed', () => {
  assert.deepEqual(
    modelIdentifiers('référence 2687023').identifiers.map((i) => i.normalized),
    ['2687023'],
  );
  assert.deepEqual(
    modelIdentifiers('znf001').identifiers.map((i) => i.normalized),
    ['ZNF001'],
  );
  assert.deepEqual(modelIdentifiers('haricots rouge 265g').identifiers, []);
  assert.deepEqual(modelIdentifiers('non concerné'), { identifiers: [], values: [] });
  // A VIN range is no VIN, and no model.
  assert.deepEqual(
    modelIdentifiers('t-roc voiture de tourisme. niv : vf1aaaaaa00000001 - vf1aaaaaa00000099.').identifiers,
    [],
  );
});

test('a date or a range of dates is never a barcode nor a lot, whatever its check digit', () => {
  // Synthetic production periods whose digits alone would read as a trade item's GTIN.
  const passing: string[] = [];
  for (let day = 1; day <= 28; day++) {
    const range = `${day}.3.2016 - 4.9.2019`;
    if (partShape(range.replace(/\D/g, '')).shape === 'gtin') passing.push(range);
  }
  assert.ok(passing.length > 0, 'some synthetic date range passes the check digit once glued');
  for (const range of passing) {
    for (const printed of [range, range.replace(' - ', '-'), range.replace(/\./g, '-')]) {
      assert.ok(isDateOrDateRange(printed), printed);
      assert.deepEqual(partShape(printed), { shape: 'none' }, printed);
      assert.deepEqual(identificationIdentifiers([printed]), [], printed);
      assert.deepEqual(identificationIdentifiers(['9520000000011', printed]), [
        gtin('9520000000011', '09520000000011'),
      ]);
    }
  }
  for (const printed of [
    '01/02/2024',
    '01/02/2024 - 03/04/2025',
    '1.06.2023 – 13.01.2026',
    '2016-03-12 au 2019-09-04',
    '12-03-16 - 04-09-19',
  ]) {
    assert.ok(isDateOrDateRange(printed), printed);
    assert.equal(partShape(printed).shape, 'none', printed);
  }
  // Not dates: a month 13 and a day 0 with both orders impossible, a GTIN printed in groups.
  for (const printed of ['13.13.2016 - 4.9.2019', '3 760324 843376', '9520.000000.011'])
    assert.ok(!isDateOrDateRange(printed), printed);
});

test('lots separated by spaces are lots of their own when every group is a lot of one pattern', () => {
  assert.deepEqual(
    identificationIdentifiers(['9520000000011', '918220041 918220077', 'date', '2099-01-01']),
    [gtin('9520000000011', '09520000000011'), lot('918220041', '918220041'), lot('918220077', '918220077')],
  );
  assert.deepEqual(partShape('lot 918220041 918220077 918220099 918220100'), {
    shape: 'lots',
    values: ['918220041', '918220077', '918220099', '918220100'],
  });
  assert.deepEqual(listedLots('abcd958 abcd959'), ['abcd958', 'abcd959']);
  // Listed with commas, semicolons or "et": each item a lot.
  assert.deepEqual(listedLots('7001, 7002; 7003 et 7004'), ['7001', '7002', '7003', '7004']);
  // One lot printed with inner spaces: short groups, or groups of other patterns, stay together.
  for (const one of ['7001 l:ab1 001', '123456 1234', 'ab1234 567890', '2931 l:k2c091']) {
    assert.equal(listedLots(one), undefined, one);
    assert.deepEqual(partShape(one), { shape: 'lot', value: one }, one);
  }
  // A list with an item that is no lot is no list.
  assert.equal(listedLots('7001, tous les lots'), undefined);
  // Barcodes listed in one part are read one by one: never lots, never glued.
  assert.deepEqual(identificationIdentifiers(['9520000000011 9520000000028', '7001']), [
    gtin('9520000000011', '09520000000011'),
    gtin('9520000000028', '09520000000028'),
    lot('7001', '7001'),
  ]);
  assert.deepEqual(identificationIdentifiers(['9520000000011, 9520000000012']), [
    gtin('9520000000011', '09520000000011'),
  ]);
});

test('product.models holds references, never descriptions or sentences', () => {
  for (const ref of ['znf001', '2687023', 'kx-200a/bk', 'abc-xl', 'sd500e', '181', 'ab 1234'])
    assert.ok(isReference(ref), ref);
  for (const text of [
    'rillettes fictives 200g',
    'x6 330g',
    'lait cru',
    'pâté fictif 180g',
    'voiture fictive voiture de tourisme. niv : vf1aaaaaa00000001 - vf1aaaaaa00000099.',
    'modèle fictif 3 niveaux, 800 w',
    'gamme 2000 pour la maison',
    'lot n° 4321',
    'fr 99.999.001 ce',
    'fr99999001ce',
    '01.02.2024 - 03.04.2025',
    'v12.',
  ])
    assert.ok(!isReference(text), text);
  assert.deepEqual(
    modelIdentifiers(
      'chaussure fictive taille 40¤voiture fictive de tourisme. niv : vf1aaaaaa00000001 - vf1aaaaaa00000099.',
    ),
    { identifiers: [], values: [] },
  );
  // References after a label inside an item; the words before it count when they are one.
  const labelled = modelIdentifiers('zx900f code modèle : 4400101 / 4400102¤jouet fictif référence 77-410');
  assert.deepEqual(labelled.values, ['zx900f', '4400101', '4400102', '77-410']);
  assert.deepEqual(
    labelled.identifiers.map((i) => [i.normalized, i.confidence]),
    [
      ['4400101', 'exact'],
      ['4400102', 'exact'],
      ['77410', 'exact'],
      ['ZX900F', 'exact'],
    ],
  );
});

test('the real notices (../shared): models are references, and no date gives an identifier', (t) => {
  const name = 'upstream-samples/fr-rappelconso/records-offset-0000.json';
  const path = sharedPath('upstream-samples', 'fr-rappelconso', 'records-offset-0000.json');
  if (!requireShared(t, path, name)) return;
  const body = readFileSync(path);
  const { drafts, setAside } = frRappelConso.parse({ name: 'records-offset-0000.json', body });
  assert.deepEqual(setAside, []);
  // Read here on their own terms, not by the adapter's code: a date is digits with `.`, `/` or `-`.
  const date = /^(?:\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}-\d{1,2}-\d{1,2})$/;
  const isDates = (v: string) => v.split(/\s+[-\u2013]\s+|\s*\u2013\s*/).every((p) => date.test(p.trim()));
  let withModels = 0;
  for (const d of drafts) {
    for (const id of d.identifiers) assert.ok(!isDates(id.value), `${d.recordId}: ${id.kind} ${id.value}`);
    for (const m of d.product.models) {
      assert.ok(m.length <= 40 && m.split(/\s+/).length <= 3, `${d.recordId}: model "${m}"`);
      assert.ok(/\d/.test(m) || !/\s/.test(m), `${d.recordId}: model "${m}"`);
      assert.doesNotMatch(m, /[:,]|\.$|\b(?:vin|niv)\b/, `${d.recordId}: model "${m}"`);
    }
    if (d.product.models.length > 0) withModels++;
  }
  assert.ok(withModels > 0 && withModels < drafts.length / 4, `${withModels} notices with models`);
});

// --- hazard, remedy, dates ---------------------------------------------------------------------

test('maps the French wording to hazards, and says why when the list and the reason differ', () => {
  const cases: [string | null, string | null, string | null][] = [
    [
      'listeria monocytogenes (agent responsable de la listériose)',
      'présence de listéria',
      'microbial_contamination',
    ],
    [
      'salmonella spp (agent responsable de la salmonellose)',
      'détection de salmonelle',
      'microbial_contamination',
    ],
    [
      'substances allergisantes non déclarées',
      "présence de sulfites, non mentionnée sur l'étiquetage",
      'undeclared_allergen',
    ],
    ['inertes (verre, métal, plastique, papier, textile…)', 'morceaux de plastique dur', 'foreign_matter'],
    ['blessures|étouffement', "présence d'un corps étranger", 'foreign_matter'],
    // Mould toxins are microbial (the taxonomy's "toxins from them"), whatever the list says.
    [
      'autres contaminants chimiques',
      'taux de t-2 toxine et ht-2 toxine supérieures à la valeur réglementaire',
      'microbial_contamination',
    ],
    ['risque chimique', 'présence de benzène', 'chemical'],
    // A label defect is a cause: the list's named harms decide, the most specific first.
    ['blessures|incendie|asphyxie |risque chimique', 'étiquetage de danger non conforme', 'chemical'],
    ['incendie', 'un court-circuit peut provoquer une surchauffe', 'fire'],
    ['choc électrique', null, 'electrical_shock'],
    ['blessures', "perte de contrôle du véhicule, risque d'accident", 'vehicle_crash'],
    ['blessures', 'pourrait empêcher les occupants de sortir du véhicule', 'entrapment'],
    ['blessures', 'surcarbonatation', 'injury'],
    [
      "défaut de fabrication, défaut d'étanchéité (ex: micro fuites)",
      "perte d'étanchéité du couvercle",
      'quality_defect',
    ],
    ['modifications organoleptiques|autre risque', 'rupture de la chaîne du froid', 'quality_defect'],
    ["anomalie d'étiquetage", 'erreur de date dlc', 'mislabelling'],
    ['autre risque', null, 'other'],
    [null, null, null],
  ];
  for (const [risks, reason, expected] of cases)
    assert.equal(rappelConsoHazard(risks, reason), expected, `${risks} / ${reason}`);
});

test('maps compensation and conduct to remedies', () => {
  assert.equal(
    rappelConsoRemedy('remboursement', 'ne plus consommer|rapporter le produit au point de vente'),
    'refund',
  );
  assert.equal(rappelConsoRemedy('remboursement|echange', 'ne plus consommer'), 'replace');
  assert.equal(rappelConsoRemedy('réparation', 'ne plus utiliser le produit'), 'repair');
  assert.equal(
    rappelConsoRemedy('autre (voir informations complémentaires)', 'ne plus consommer'),
    'dispose',
  );
  assert.equal(
    rappelConsoRemedy(null, 'ne plus utiliser le produit|contacter le point de vente'),
    'stop_use',
  );
  assert.equal(rappelConsoRemedy('autre (voir informations complémentaires)', null), 'other');
  assert.equal(rappelConsoRemedy(null, null), 'unknown');
});

test('reads dates and Safety Gate references', () => {
  assert.equal(rappelConsoDate('2026-07-01T18:07:30+00:00'), '2026-07-01');
  assert.equal(rappelConsoDate('2026-02-30T00:00:00+00:00'), null);
  assert.equal(rappelConsoDate(null), null);
  assert.equal(safetyGateReference('sr/01783/26'), 'SR/01783/26');
  assert.equal(safetyGateReference('2026-07-0014'), null);
});

// --- pages: shape, records set aside, versions, freshness ---------------------------------------

function page(results: unknown[], totalCount = results.length): Buffer {
  return Buffer.from(JSON.stringify({ total_count: totalCount, results }));
}

function notice(n: number, date: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    numero_fiche: `2099-02-${String(n).padStart(4, '0')}`,
    numero_version: 1,
    date_publication: date,
    libelle: `TEST DATA notice ${n}`,
    id: 900_000 + n,
    ...extra,
  };
}

test('sets aside a notice that drifted, with its place and reason, and reads the rest', () => {
  const bad: BadRecord[] = [
    ['no numero_fiche', { libelle: 'x' }, 'results[0]', /numero_fiche/],
    ['an empty numero_fiche', { numero_fiche: '  ' }, 'results[1]', /empty numero_fiche/],
    [
      'identification_produits of the wrong type',
      { numero_fiche: 'B-1', identification_produits: 5 },
      'results[2] (B-1)',
      /identification_produits/,
    ],
    [
      'a version that is no number',
      { numero_fiche: 'B-2', numero_version: 'deux' },
      'results[3] (B-2)',
      /numero_version/,
    ],
  ];
  const parsed = frRappelConso.parse({
    name: 'records-0001.json',
    body: page([...bad.map(([, r]) => r), notice(1, '2099-02-01T10:00:00+00:00')]),
  });
  assertSetAside(parsed, ['2099-02-0001'], bad);
});

test('fails loudly with a format error when the page shape drifts', () => {
  const bad: [string, Buffer][] = [
    ['not JSON', Buffer.from('<html>')],
    ['no results', Buffer.from(JSON.stringify({ total_count: 1 }))],
    ['results not an array', Buffer.from(JSON.stringify({ results: {} }))],
    ['an error object', Buffer.from(JSON.stringify({ error_code: 'ODSQLError', message: 'x' }))],
  ];
  for (const [why, body] of bad) {
    assert.throws(
      () => frRappelConso.parse({ name: 'records-0001.json', body, url: 'https://rc.test/x' }),
      (e: unknown) =>
        e instanceof UpstreamError && e.failure === 'format' && e.details.url === 'https://rc.test/x',
      why,
    );
  }
});

test('keeps one draft per notice: the highest version, then the latest published', () => {
  const drafts = frRappelConso.parse({
    name: 'records-0001.json',
    body: page([
      notice(1, '2099-02-02T10:00:00+00:00', { numero_version: 2, motif_rappel: 'v2' }),
      notice(1, '2099-02-01T10:00:00+00:00', { numero_version: 1, motif_rappel: 'v1' }),
      notice(2, '2099-02-01T10:00:00+00:00', { motif_rappel: 'early' }),
      notice(2, '2099-02-03T10:00:00+00:00', { motif_rappel: 'late' }),
    ]),
  }).drafts;
  assert.deepEqual(
    drafts.map((d) => [d.recordId, d.summary]),
    [
      ['2099-02-0001', 'Motif du rappel : v2'],
      ['2099-02-0002', 'Motif du rappel : late'],
    ],
  );
});

test('only a page short of the limit dates the feed; an empty one has no records', () => {
  const full = Array.from({ length: RAPPELCONSO_PAGE_LIMIT }, (_, i) =>
    notice(i + 1, `2099-02-01T10:${String(i % 60).padStart(2, '0')}:00+00:00`),
  );
  assert.equal(frRappelConso.parse({ name: 'records-0001.json', body: page(full) }).dataAsOf, null);
  assert.equal(
    frRappelConso.parse({ name: 'records-0002.json', body: page(full.slice(0, 3)) }).dataAsOf,
    '2099-02-01T10:02:00+00:00',
  );
  assert.deepEqual(frRappelConso.parse({ name: 'records-0001.json', body: page([]) }), {
    dataAsOf: null,
    drafts: [],
    setAside: [],
  });
});

// --- fetching against a local agency ------------------------------------------------------------

function pageFetcher(): PageFetcher {
  const client = createUpstreamClient({ timeoutMs: 2_000, retries: 0, sleep: async () => {} });
  return { get: async (url) => ({ status: 200, body: (await client.get(url)).body }) };
}

async function collect(pages: AsyncIterable<RawPage>): Promise<RawPage[]> {
  const out: RawPage[] = [];
  for await (const p of pages) out.push(p);
  return out;
}

const json = (body: Buffer) => (_req: unknown, res: ServerResponse) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(body);

/** The path of a request as the agency sees it. */
function path(query: RecordsQuery): string {
  const url = new URL(rappelConsoUrl('http://agency.test', query));
  return url.pathname + url.search;
}

/** `count` notices from number `from`, one a minute from `start`. */
function notices(
  from: number,
  count: number,
  start = Date.parse('2099-03-01T00:00:00Z'),
): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) =>
    notice(from + i, new Date(start + (from + i) * 60_000).toISOString().replace('.000Z', '+00:00')),
  );
}

function ctx(base: string, since: Date | null): FetchContext {
  return { baseUrl: `${base}/`, fetcher: pageFetcher(), now: new Date('2099-03-05T06:00:00Z'), since };
}

test('builds the records address: oldest first, a window on date_publication, an offset in it', () => {
  assert.equal(
    rappelConsoUrl('https://data.economie.gouv.fr/', { from: null, offset: 0 }),
    'https://data.economie.gouv.fr/api/explore/v2.1/catalog/datasets/rappelconso-v2-gtin-espaces/records?order_by=date_publication+asc%2Cid+asc&limit=100&offset=0',
  );
  const windowed = new URL(
    rappelConsoUrl('https://x.test', { from: '2099-03-01T00:01:00+00:00', offset: 4 }),
  );
  assert.equal(windowed.searchParams.get('where'), "date_publication >= date'2099-03-01T00:01:00+00:00'");
  assert.equal(windowed.searchParams.get('offset'), '4');
  assert.equal(windowStart(new Date('2099-03-05T06:30:00.250Z')), '2099-03-03T06:30:00Z');
});

test('a first run walks the whole dataset in date windows, each page overlapping the last by one', async (t) => {
  const all = notices(0, 230);
  const first = all.slice(0, 100);
  const second = all.slice(99, 199); // from the last date read, that one record repeated
  const third = all.slice(198); // 32: short, the end
  const at = (r: Record<string, unknown>) => r.date_publication as string;
  const agency = await scriptedAgency(t, [
    [path({ from: null, offset: 0 }), json(page(first, 230))],
    [path({ from: at(first[99]!), offset: 0 }), json(page(second, 131))],
    [path({ from: at(second[99]!), offset: 0 }), json(page(third, 32))],
  ]);
  const pages = await collect(frRappelConso.fetch(ctx(agency.base, null)));
  await agency.finish();
  assert.deepEqual(
    pages.map((p) => p.name),
    ['records-0001.json', 'records-0002.json', 'records-0003.json'],
  );
  const parsed = pages.map((p) => frRappelConso.parse(p));
  assert.equal(new Set(parsed.flatMap((p) => p.drafts.map((d) => d.recordId))).size, 230);
  assert.deepEqual(
    parsed.map((p) => p.dataAsOf),
    [null, null, at(all[229]!)],
    'the last, short page dates the feed',
  );
  for (const p of pages) assert.equal(frRappelConso.acceptsFile(p.name), true);
});

test('many notices of one date page on with an offset inside the window', async (t) => {
  const sameDate = '2099-03-01T00:00:00+00:00';
  const block = Array.from({ length: 150 }, (_, i) => notice(i, sameDate));
  const agency = await scriptedAgency(t, [
    [path({ from: null, offset: 0 }), json(page(block.slice(0, 100)))],
    // 100 of that date read: skip 99, repeat one.
    [path({ from: sameDate, offset: 99 }), json(page(block.slice(99)))],
  ]);
  const pages = await collect(frRappelConso.fetch(ctx(agency.base, null)));
  await agency.finish();
  assert.equal(pages.length, 2);
});

test('an incremental run starts two days before the last success', async (t) => {
  const since = new Date('2099-03-04T06:30:00Z');
  const agency = await scriptedAgency(t, [
    [path({ from: '2099-03-02T06:30:00Z', offset: 0 }), json(FIXTURE)],
  ]);
  const pages = await collect(frRappelConso.fetch(ctx(agency.base, since)));
  await agency.finish();
  assert.deepEqual(
    pages.map((p) => p.name),
    ['records-0001.json'],
  );
  assert.equal(frRappelConso.parse(pages[0]!).drafts.length, 7);
});

test('a quiet window reads the newest notice instead of an empty run', async (t) => {
  const since = new Date('2099-03-04T06:30:00Z');
  const newest = notices(7, 1);
  const agency = await scriptedAgency(t, [
    [path({ from: '2099-03-02T06:30:00Z', offset: 0 }), json(page([]))],
    [path({ from: null, offset: 0, newest: true }), json(page(newest, 9000))],
  ]);
  const pages = await collect(frRappelConso.fetch(ctx(agency.base, since)));
  await agency.finish();
  assert.equal(pages.length, 1);
  assert.match(pages[0]!.url!, /order_by=date_publication\+desc%2Cid\+desc&limit=1$/);
  assert.equal(frRappelConso.parse(pages[0]!).dataAsOf, newest[0]!.date_publication);
});

test('a first run of an empty dataset yields its empty page, for the run to fail as empty', async (t) => {
  const agency = await scriptedAgency(t, [[path({ from: null, offset: 0 }), json(page([]))]]);
  const pages = await collect(frRappelConso.fetch(ctx(agency.base, null)));
  await agency.finish();
  assert.equal(pages.length, 1);
  assert.deepEqual(frRappelConso.parse(pages[0]!).drafts, []);
});

test('a server that ignores the window is a format error, not an endless loop', async (t) => {
  const full = page(notices(0, 100));
  const agency = await scriptedAgency(t, [
    [path({ from: null, offset: 0 }), json(full)],
    [path({ from: notices(99, 1)[0]!.date_publication as string, offset: 0 }), json(full)],
  ]);
  await assert.rejects(
    collect(frRappelConso.fetch(ctx(agency.base, null))),
    (e: unknown) => e instanceof UpstreamError && e.failure === 'format',
  );
  await agency.finish();
});

test('more notices of one date than the paging cap allows is too_large, not a silent gap', async (t) => {
  const sameDate = '2099-03-01T00:00:00+00:00';
  const script: [string, ReturnType<typeof json>][] = [];
  let offset = 0;
  for (let i = 0; offset + RAPPELCONSO_PAGE_LIMIT <= RAPPELCONSO_OFFSET_CAP; i++) {
    script.push([
      path(i === 0 ? { from: null, offset: 0 } : { from: sameDate, offset }),
      json(page(Array.from({ length: 100 }, (_, k) => notice(offset + k, sameDate)))),
    ]);
    offset += 99; // each page repeats the last record of the one before
  }
  const agency = await scriptedAgency(t, script);
  await assert.rejects(
    collect(frRappelConso.fetch(ctx(agency.base, null))),
    (e: unknown) => e instanceof UpstreamError && e.failure === 'too_large',
  );
  await agency.finish();
});

test('a walk longer than its page bound is too_large', async (t) => {
  const all = notices(0, 400);
  const at = (r: Record<string, unknown>) => r.date_publication as string;
  const agency = await scriptedAgency(t, [
    [path({ from: null, offset: 0 }), json(page(all.slice(0, 100)))],
    [path({ from: at(all[99]!), offset: 0 }), json(page(all.slice(99, 199)))],
  ]);
  await assert.rejects(
    collect(fetchRappelConso(ctx(agency.base, null), 2)),
    (e: unknown) =>
      e instanceof UpstreamError && e.failure === 'too_large' && /more than 2 pages/.test(e.message),
  );
  await agency.finish();
  assert.equal(RAPPELCONSO_MAX_PAGES, 1_000, 'documented in the readme');
});

test('describes the feed: meta, licence and attribution', () => {
  const { meta } = frRappelConso;
  assert.equal(meta.id, 'fr-rappelconso');
  assert.equal(meta.jurisdiction, 'FR');
  assert.match(meta.agency, /DGCCRF/);
  assert.equal(meta.licence.id, 'etalab-2.0');
  assert.equal(meta.licence.url, 'https://www.etalab.gouv.fr/licence-ouverte-open-licence/');
  assert.match(meta.licence.attribution, /RappelConso, DGCCRF/);
  assert.match(meta.licence.attribution, /Licence Ouverte \/ Open Licence 2\.0/);
  assert.equal(meta.defaultBaseUrl, 'https://data.economie.gouv.fr');
  assert.equal(frRappelConso.acceptsFile('notes.txt'), false);
  assert.equal(frRappelConso.acceptsFile('records-offset-0000.json'), true);
});

test('a models item of 1 MB is read in time proportional to its length, and gives no reference', () => {
  for (const item of [`produit réf ${'1'.repeat(1 << 20)} x`, `${'a '.repeat(1 << 19)}code model: 5177606`])
    assert.deepEqual(modelIdentifiers(item).values, []);
});
