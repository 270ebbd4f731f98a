import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { classifyHazard, isAllergenName, mostSpecificHazard } from '../../../src/domain/hazard-rules.ts';
import { HAZARD_RULES } from '../../../src/domain/hazard-table.ts';
import { HAZARD_CATEGORIES, type HazardCategory } from '../../../src/domain/taxonomy.ts';
import { requireShared, sharedPath } from '../../support/shared.ts';

/**
 * The expected category of every reason_for_recall in the three openFDA sample pages, written
 * by reading each reason (recall number → category).
 */
const SAMPLE_EXPECTATIONS: Record<string, Record<string, HazardCategory>> = {
  'us-fda-food': {
    'F-1575-2018': 'undeclared_allergen', // undeclared milk
    'F-1340-2014': 'undeclared_allergen', // undeclared shellfish (crab)
    'F-0980-2020': 'foreign_matter', // foreign material in starch
    'F-1517-2016': 'undeclared_allergen', // peanut protein
    'F-1238-2013': 'microbial_contamination', // Salmonella
    'F-2149-2019': 'undeclared_allergen', // "Mislabeling issue … undeclared shrimp": allergen beats mislabelling
    'H-0573-2026': 'microbial_contamination', // Salmonella
    'F-0874-2019': 'microbial_contamination', // Clostridium botulinum
    'F-0685-2017': 'undeclared_allergen', // egg, tree nuts, milk
    'F-1740-2014': 'microbial_contamination', // Listeria
    'F-1316-2019': 'undeclared_allergen', // crustaceans not listed on the label
    'F-0313-2017': 'undeclared_allergen', // more than the stated traces of milk
    'F-0359-2018': 'undeclared_allergen',
    'F-0583-2021': 'microbial_contamination',
    'F-0570-2021': 'microbial_contamination',
    'F-0960-2020': 'undeclared_allergen', // undeclared peanut allergen
    'F-0878-2013': 'undeclared_allergen', // undeclared milk and egg
    'F-2054-2019': 'undeclared_allergen',
    'F-1859-2016': 'undeclared_allergen',
    'F-1387-2012': 'undeclared_allergen',
    'F-1643-2012': 'foreign_matter', // small metal fragments ("lactic acid" is not lactose)
    'F-1616-2016': 'microbial_contamination',
    'F-1377-2014': 'mislabelling', // labelled with an extended sell-by date
    'F-0189-2023': 'foreign_matter', // metal fragment
    'F-0456-2021': 'undeclared_allergen',
    'F-1879-2013': 'undeclared_allergen', // colostrum
    'H-0940-2026': 'undeclared_allergen', // soy lecithin
    'F-1652-2012': 'microbial_contamination', // insanitary conditions ("shellfish" here is the product, not an allergen)
    'F-1397-2012': 'undeclared_allergen',
    'F-0193-2023': 'undeclared_allergen', // milk, not declared
    'F-1322-2016': 'undeclared_allergen', // cheese declared but milk not declared
    'F-1303-2013': 'microbial_contamination',
  },
  'us-fda-drug': {
    'D-1596-2014': 'chemical', // undeclared sildenafil (hidden drug ingredient), not an allergen
    'D-0413-2018': 'mislabelling', // Labeling: Not Elsewhere Classified
    'D-1387-2014': 'quality_defect', // failed stability specification
    'D-0397-2015': 'quality_defect', // oversized tablets
    'D-1130-2019': 'mislabelling', // Labeling: incorrect or missing lot/exp date
    'D-323-2014': 'quality_defect', // Subpotent
    'D-0266-2019': 'foreign_matter', // metal particles
    'D-0488-2026': 'quality_defect', // Subpotent drug
    'D-0503-2017': 'quality_defect', // failed impurities specification (no named carcinogen)
    'D-0859-2016': 'foreign_matter', // glass particulate matter
    'D-0564-2016': 'quality_defect', // iron above the USP impurity limit
    'D-1088-2017': 'quality_defect', // crystallization, subpotent
    'D-0487-2026': 'quality_defect', // failed stability
    'D-920-2013': 'foreign_matter', // glass particulate
  },
  'us-fda-device': {
    'Z-0198-2018': 'quality_defect', // unexpected movement of robot arm
    'Z-1506-2015': 'quality_defect', // not the specified steel
    'Z-0071-2023': 'mislabelling', // incorrectly labeled
    'Z-0001-2023': 'other', // distributed without authorisation: no harm named
    'Z-0856-2022': 'microbial_contamination', // failed microbial testing (TAMC)
    'Z-0174-2023': 'laceration', // needle tip left exposed
    'Z-0441-2019': 'other', // replacement campaign, no hazard stated
    'Z-2481-2023': 'quality_defect', // crack in the weld
    'Z-0899-2022': 'mislabelling', // incorrect implant packaged in kit (wrong product in pack)
    'Z-2317-2017': 'quality_defect', // outside Quality System Regulation
    'Z-2049-2023': 'quality_defect', // may not meet specifications
    'Z-1697-2023': 'mislabelling', // package may contain units of another flavour
  },
};

for (const [source, expected] of Object.entries(SAMPLE_EXPECTATIONS)) {
  test(`classifies every reason_for_recall of the real ${source} page as read by hand`, (t) => {
    const path = sharedPath('upstream-samples', source, 'page-1.json');
    if (!requireShared(t, path, `upstream-samples/${source}/page-1.json`)) return;
    const page = JSON.parse(readFileSync(path, 'utf8')) as {
      results: { recall_number: string; reason_for_recall: string }[];
    };
    assert.deepEqual(
      page.results.map((r) => r.recall_number).sort(),
      Object.keys(expected).sort(),
      'the expectation table covers exactly the records of the page',
    );
    for (const r of page.results) {
      assert.equal(
        classifyHazard(r.reason_for_recall),
        expected[r.recall_number],
        `${r.recall_number}: ${r.reason_for_recall}`,
      );
    }
  });
}

test('returns null for no text and `other` when nothing matches', () => {
  assert.equal(classifyHazard(null), null);
  assert.equal(classifyHazard(''), null);
  assert.equal(classifyHazard('   \n '), null);
  assert.equal(classifyHazard('Replacement campaign on all units.'), 'other');
  assert.equal(classifyHazard('Marketed Without An Approved NDA/ANDA'), 'other');
});

test('every rule names a canonical category', () => {
  for (const rule of HAZARD_RULES) {
    assert.ok((HAZARD_CATEGORIES as readonly string[]).includes(rule.category), rule.category);
    assert.ok(rule.patterns.length > 0);
  }
});

const CASES: [string, HazardCategory][] = [
  // Issue 9, from real FSIS, FSA and CPSC wording:
  ['The product was produced with a non-food-grade mineral oil', 'chemical'],
  ['The products contain sodium nitrite above the regulatory limit', 'chemical'],
  ['The possible presence of glass in the product which makes it unsafe to eat.', 'foreign_matter'],
  ['La solución limpiadora con hipoclorito sódico, una sustancia no aprobada', 'chemical'],
  [
    "The recalled children's pajamas fail to meet the flammability standards for children's sleepwear, posing a risk of burn injuries to children.",
    'fire',
  ],
  [
    'The recalled toys violate the mandatory standard for toys containing button cell batteries because the compartment can be accessed. When button cell or coin batteries are swallowed, the ingested batteries can cause serious injuries, including internal chemical burns.',
    'choking',
  ],
  [
    'The climbing sticks can break at the weld point, posing fall and laceration hazards to consumers.',
    'fall',
  ],
  [
    'The ceramic cloth abrasive flaps can detach while in use, posing laceration and injury hazards.',
    'laceration',
  ],
  ['AN OVERHEATED FLASHLIGHT COULD RESULT IN BURNS.', 'burn'],
  ['The recalled tables can collapse when a horizontal force is applied, posing a risk of injury.', 'injury'],
  // Issue 9, from real ACCC wording (August 2026): the harm comes after "Risk of … from".
  ['Risk of serious injury to a child from a fall if the detachable seat breaks while in use.', 'fall'],
  ['Risk of injury from cuts or scratches by the loose or raised section of the infuser.', 'laceration'],
  ['Risk of serious injury or death if the brake calliper fails and causes an accident.', 'vehicle_crash'],
  [
    'Risk of death, serious injury or property damage from an accident if the filter comes off while the vehicle is being driven. The oil spill may cause a fire.',
    'vehicle_crash',
  ],
  // food
  ['Product contains undeclared sulfites.', 'undeclared_allergen'],
  ['Undeclared wheat and egg', 'undeclared_allergen'],
  ['The product may contain undeclared sesame.', 'undeclared_allergen'],
  ['Product labeled gluten-free but contains wheat flour.', 'undeclared_allergen'],
  ['Misbranded: the label does not declare the presence of soy.', 'mislabelling'],
  ['Potential contamination with Listeria monocytogenes', 'microbial_contamination'],
  ['Shiga toxin-producing E. coli O157:H7', 'microbial_contamination'],
  ['Product may be contaminated with Escherichia coli', 'microbial_contamination'],
  ['Cronobacter sakazakii found in powdered infant formula', 'microbial_contamination'],
  ['Visible mold growth in the jars.', 'microbial_contamination'],
  ['Products are not sterile', 'microbial_contamination'],
  ['Under-processing of low-acid canned food may lead to Clostridium botulinum', 'microbial_contamination'],
  ['Product may contain pieces of hard plastic.', 'foreign_matter'],
  ['Glass fragments were found in the jars.', 'foreign_matter'],
  ['Wrong label: chicken broth labelled as vegetable broth', 'mislabelling'],
  ['Elevated levels of lead in cinnamon', 'chemical'],
  ['Product contains excessive levels of vitamin D', 'chemical'],
  ['Elevated histamine levels (scombrotoxin)', 'chemical'],
  // drugs
  ['CGMP Deviations: products manufactured under conditions not meeting cGMP', 'quality_defect'],
  ['Failed Dissolution Specifications: low out-of-specification results', 'quality_defect'],
  ['CGMP Deviations: presence of N-nitrosodimethylamine (NDMA) above the acceptable intake', 'chemical'],
  ['Failed Impurities/Degradation Specifications: NDMA above the interim limit', 'chemical'],
  ['Lack of Assurance of Sterility', 'microbial_contamination'],
  ['Superpotent drug', 'quality_defect'],
  ['Presence of Foreign Tablets/Capsules: a bottle contained tablets of another drug', 'mislabelling'],
  ['Labeling: Label Mixup', 'mislabelling'],
  ['Marketed without an approved NDA: product found to contain undeclared tadalafil', 'chemical'],
  // devices
  ['The device may malfunction and stop delivering therapy.', 'quality_defect'],
  ['Software error may cause the pump to display an incorrect dose.', 'quality_defect'],
  ['Sterile barrier packaging may be compromised.', 'microbial_contamination'],
  // consumer products (CPSC wording)
  ['The lithium-ion battery can overheat and ignite, posing fire and burn hazards.', 'fire'],
  ['The heater can emit sparks, posing a fire hazard.', 'fire'],
  ['The kettle can leak hot water, posing a burn hazard.', 'burn'],
  ['Exposed wiring poses a shock hazard to consumers.', 'electrical_shock'],
  [
    'The hair dryers lack an immersion protection device, posing a risk of electrocution.',
    'electrical_shock',
  ],
  ['The wheels can detach, posing a choking hazard to young children.', 'choking'],
  ['Loops in the cord can wrap around a child’s neck, posing a strangulation hazard.', 'strangulation'],
  ['The inclined sleeper poses a suffocation hazard to infants.', 'suffocation'],
  ['The blade guard can detach, posing a laceration hazard.', 'laceration'],
  ['The chair can break while in use, posing a fall hazard.', 'fall'],
  ['The bed rail can create a gap, posing an entrapment hazard.', 'entrapment'],
  ['The pool ladder can let a child gain access to the pool, posing a drowning hazard.', 'drowning'],
  ['The dresser is unstable if not anchored, posing tip-over and entrapment hazards.', 'entrapment'],
  ['The weight plates can dislodge, posing an impact injury hazard.', 'injury'],
  ['The paint contains levels of lead that exceed the federal lead paint ban.', 'chemical'],
  [
    'The packaging is not child-resistant, posing a risk of poisoning if swallowed by young children.',
    'chemical',
  ],
  [
    'The clothing can get entrapped in the belt drive, posing a fall hazard.', // the named harm wins over the mechanism
    'fall',
  ],
  ['When high-powered magnets are swallowed, they can cause blood poisoning and death.', 'choking'],
  // vehicles (NHTSA consequence wording)
  ['A loss of drive power while driving can increase the risk of a crash.', 'vehicle_crash'],
  ['The air bag may not deploy as intended, increasing the risk of injury.', 'vehicle_crash'],
  ['The vehicle may roll away, increasing the risk of a crash or injury.', 'vehicle_crash'],
  ['A fuel leak in the presence of an ignition source increases the risk of a fire.', 'fire'],
  ['Reduced braking performance can increase the risk of a crash.', 'vehicle_crash'],
  // words that must not mislead
  ['Test results may fall outside specification before expiry.', 'quality_defect'],
  ['Customer complaints of anaphylactic shock after use.', 'other'],
  ['Frozen shellfish recalled; product held under insanitary conditions.', 'microbial_contamination'],
  // French (RappelConso), written after real notices' wording:
  ['présence de listéria monocytogenes', 'microbial_contamination'],
  ['détection de salmonelle suite à analyse', 'microbial_contamination'],
  ['taux de t-2 toxine et ht-2 toxine supérieures à la valeur réglementaire', 'microbial_contamination'],
  ["présence de sulfites, non mentionnée sur l'étiquetage", 'undeclared_allergen'],
  ["présence d'un corps étranger dans le produit", 'foreign_matter'],
  ['morceau de verre retrouvé dans une verrine', 'foreign_matter'],
  ['présence de benzène dans des seuils élevés', 'chemical'],
  ["un court-circuit interne peut entraîner un événement thermique. il y a un risque d'incendie.", 'fire'],
  ["l'utilisateur pourrait recevoir un choc électrique", 'electrical_shock'],
  ["petits éléments, risque d'étouffement", 'choking'],
  [
    "ce défaut peut entraîner la rupture de la jonction, engendrant un risque de chute pour l'utilisateur.",
    'fall',
  ],
  // the clause after "risque d'" beats an earlier word ("aspiration" is no choking here)
  [
    "un tuyau d'aspiration mal acheminé pourrait réduire l'efficacité du freinage et augmenter le risque d'accident.",
    'vehicle_crash',
  ],
  ['pourrait empêcher les occupants de sortir du véhicule', 'entrapment'],
  ['erreur de date dlc affichée au 30/07 au lieu de 30/06', 'mislabelling'],
  ["il existe un risque de perte d'étanchéité au niveau du couvercle", 'quality_defect'],
];

for (const [text, category] of CASES) {
  test(`classifies "${text}" as ${category}`, () => {
    assert.equal(classifyHazard(text), category);
  });
}

test('of several categories, the most specific harm wins; `other` only when nothing is named', () => {
  assert.equal(mostSpecificHazard(['injury', 'fire']), 'fire');
  assert.equal(mostSpecificHazard(['burn', 'electrical_shock']), 'electrical_shock');
  assert.equal(mostSpecificHazard(['quality_defect', 'microbial_contamination']), 'microbial_contamination');
  assert.equal(mostSpecificHazard(['other', null, 'choking']), 'choking');
  assert.equal(mostSpecificHazard(['other', null]), 'other');
  assert.equal(mostSpecificHazard([null]), null);
  assert.equal(mostSpecificHazard([]), null);
});

test("an allergen's bare name is recognised, and nothing longer", () => {
  for (const name of [
    'Wheat',
    ' egg ',
    'Gluten',
    'Tree nuts',
    'Sulphites',
    'Mustard',
    'Sesame',
    'Crustaceans',
  ])
    assert.equal(isAllergenName(name), true, name);
  for (const text of ['Wheat flour', 'Allergen - Milk', 'Salmonella', 'Performance', ''])
    assert.equal(isAllergenName(text), false, text);
});
