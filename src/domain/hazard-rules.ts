/**
 * By `hazard-table.ts`: agency wording → one canonical category; first match wins (allergen over mislabelling,
 * harm over its cause). Clauses naming the harm ("posing a fall hazard") are tried before the whole
 * text, since CPSC describes the mechanism first.
 */
import type { HazardCategory } from './taxonomy.ts';
import { ALLERGEN, HAZARD_RULES, OVERRIDES } from './hazard-table.ts';

/** A category's place in the table (its precedence); `other`, and anything unnamed, last. */
function precedence(category: HazardCategory): number {
  const i = HAZARD_RULES.findIndex((r) => r.category === category);
  return i === -1 ? HAZARD_RULES.length : i;
}

/**
 * Of several categories (one per value of a multi-valued field), the one earliest in the table:
 * the most specific harm, as for one text. `other` only when no value names a harm; null for none.
 */
export function mostSpecificHazard(categories: readonly (HazardCategory | null)[]): HazardCategory | null {
  let best: HazardCategory | null = null;
  for (const c of categories) if (c !== null && (best === null || precedence(c) < precedence(best))) best = c;
  return best;
}

const ALLERGEN_NAME = new RegExp(String.raw`^\s*${ALLERGEN}\s*$`, 'i');

/** Whether a value is an allergen's bare name (`Wheat`, `Tree nuts`), as an issue list names the allergen found. */
export function isAllergenName(text: string): boolean {
  return ALLERGEN_NAME.test(text.normalize('NFKC'));
}

/** Clauses naming the harm: after "posing", "presents", "increasing the risk of", "risque de" … to the sentence end. */
const NAMED_HARM =
  /\b(?:pos(?:e|es|ing)|present(?:s|ing)?|increas\w* the (?:risk|chance) of|risk of|hazard of|result(?:s|ed|ing)? in|risques? (?=d)|dangers? (?=d))\b([^.;]*)/gi;

function firstMatch(text: string): number {
  for (let i = 0; i < HAZARD_RULES.length; i++) {
    if (HAZARD_RULES[i]!.patterns.some((p) => p.test(text))) return i;
  }
  return -1;
}

/** The canonical hazard category: null for no text, `other` when no rule names it. */
export function classifyHazard(text: string | null): HazardCategory | null {
  return text === null ? null : classify(text);
}

function classify(text: string): HazardCategory | null {
  const clean = text.normalize('NFKC').replace(/\s+/g, ' ').trim();
  if (clean === '') return null;
  for (const o of OVERRIDES) if (o.pattern.test(clean)) return o.category;

  let best = -1;
  for (const m of clean.matchAll(NAMED_HARM)) {
    const i = firstMatch(m[1] ?? '');
    if (i !== -1 && (best === -1 || i < best)) best = i;
  }
  if (best === -1) best = firstMatch(clean);
  return best === -1 ? 'other' : HAZARD_RULES[best]!.category;
}
