/** Canonical severity and remedy (the contract's) and hazard categories (an OpenAPI enum). */
import { StringEnum } from './json-schema.ts';

export const SEVERITIES = ['serious', 'high', 'medium', 'low', 'unknown'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const REMEDIES = ['repair', 'replace', 'refund', 'dispose', 'stop_use', 'other', 'unknown'] as const;
export type Remedy = (typeof REMEDIES)[number];

/** Hazard categories: a harm or its causing defect, so every wording maps to one; `other` for the rest. */
export const HAZARD_CATEGORIES = [
  'fire',
  'burn',
  'electrical_shock',
  'choking',
  'strangulation',
  'suffocation',
  'laceration',
  'fall',
  'entrapment',
  'injury',
  'vehicle_crash',
  'drowning',
  'chemical',
  'microbial_contamination',
  'undeclared_allergen',
  'foreign_matter',
  'mislabelling',
  'quality_defect',
  'other',
] as const;
export type HazardCategory = (typeof HAZARD_CATEGORIES)[number];

/** Short descriptions of the hazard categories, for the README and the OpenAPI document. */
export const HAZARD_CATEGORY_DESCRIPTIONS: Record<HazardCategory, string> = {
  fire: 'The product can catch fire, overheat to ignition, or explode.',
  burn: 'Burns or scalds from hot surfaces, liquids or steam, without a fire.',
  electrical_shock: 'Electric shock or electrocution.',
  choking: 'Small parts or pieces that can be swallowed or block the airway.',
  strangulation: 'Cords, straps or openings that can wrap around or catch the neck.',
  suffocation: 'Airway covered or chest compressed: bedding, bags, sleep products.',
  laceration: 'Cuts or punctures from sharp edges or points.',
  fall: 'A person can fall: collapse, tip-over of what they stand or sit on, instability.',
  entrapment: 'Head, limbs or body can be caught or trapped.',
  injury: 'Other mechanical injury: impact, crushing, pinching, projectiles, tip-over.',
  vehicle_crash: 'Loss of vehicle control or crash risk; airbags, brakes, steering.',
  drowning: 'Drowning in water-related products.',
  chemical: 'Poisoning or exposure to a harmful chemical, toxic substance or excess of an ingredient.',
  microbial_contamination: 'Bacteria, viruses, mould or toxins from them; lack of sterility.',
  undeclared_allergen: 'An allergen present but not declared on the label.',
  foreign_matter: 'Glass, metal, plastic or other foreign material in the product.',
  mislabelling: 'Wrong or missing label information other than allergens, wrong product in pack.',
  quality_defect:
    'Manufacturing or quality failure: potency, dissolution, device malfunction, GMP deviations.',
  other: 'A hazard none of the categories above names.',
};

export const HazardCategorySchema = StringEnum(HAZARD_CATEGORIES, {
  $id: 'HazardCategory',
  description:
    'Canonical hazard taxonomy of this service.\n\n' +
    HAZARD_CATEGORIES.map((c) => `- \`${c}\`: ${HAZARD_CATEGORY_DESCRIPTIONS[c]}`).join('\n'),
});
export const SeveritySchema = StringEnum(SEVERITIES, { $id: 'Severity' });
export const RemedySchema = StringEnum(REMEDIES, { $id: 'Remedy' });
