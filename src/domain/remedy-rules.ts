/** Remedy from agency wording: first matching rule wins; unmatched wording is `other`, none is `unknown`. */
import type { Remedy } from './taxonomy.ts';

/** One row of the remedy table: the remedy and the wordings that name it. */
export interface RemedyRule {
  remedy: Exclude<Remedy, 'other' | 'unknown'>;
  patterns: RegExp[];
}

/** A French word boundary: no letter before or after (accented letters are letters). */
const FR = (body: string): RegExp => new RegExp(String.raw`(?<!\p{L})(?:${body})(?!\p{L})`, 'iu');

/** Order matters: a concrete remedy offered (repair, replace, refund) beats the advice to stop using. */
export const REMEDY_RULES: readonly RemedyRule[] = [
  {
    remedy: 'repair',
    patterns: [
      /\brepair(s|ed)?\b/i,
      /\bfree (repair|inspection|retrofit|fix)\b/i,
      /\bretrofit\b/i,
      /\breprogram/i,
      /\bsoftware update\b/i,
      /\bdealers? will (inspect|replace|repair|install|update|modify|adjust)/i,
      /\brework\b/i,
      /\bremedy kit\b/i,
      // French (RappelConso): "réparation", "mise à jour du logiciel".
      FR(String.raw`r[ée]paration|r[ée]parer|mise à jour (?:du )?logiciel`),
    ],
  },
  {
    remedy: 'replace',
    patterns: [/\breplace(ment|d)?\b/i, /\bexchange\b/i, FR(String.raw`[ée]changes?|remplacements?`)],
  },
  {
    remedy: 'refund',
    patterns: [/\brefund/i, /\bmoney back\b/i, /\breimburse/i, /\bcredit\b/i, FR(String.raw`rembours\p{L}*`)],
  },
  {
    remedy: 'dispose',
    patterns: [
      /\b(dispose|disposal|destroy|discard|thrown? (it |them )?(away|out))\b/i,
      /\b(do not|not to) (eat|consume|drink|feed)\b/i,
      /\breturn(ed)? (it |them |the products? )?to the (store|place of purchase|shop)\b/i,
      // French: "ne plus consommer", "détruire le produit", "rapporter le produit au point de vente".
      FR(String.raw`ne (?:plus|pas) (?:les? |l['’])?(?:consommer|manger|boire)|d[ée]truire|jeter`),
      FR(String.raw`rapporter (?:le|les) produits? (?:au|en) (?:point de vente|magasin)`),
    ],
  },
  {
    remedy: 'stop_use',
    patterns: [
      /\bstop us(e|ing)\b/i,
      /\bdo not use\b/i,
      /\bcease us(e|ing)\b/i,
      /\bimmediately (stop|unplug|remove)\b/i,
      /\bpark (it )?outside\b/i,
      /\bdo not drive\b/i,
      FR(String.raw`ne (?:plus|pas) (?:les? |l['’])?utiliser|cesser d['’]utiliser`),
    ],
  },
];

/** Whether a remedy asks something of consumers (one a rule names), rather than `other` or `unknown`. */
export function isConcreteRemedy(remedy: Remedy): boolean {
  return remedy !== 'other' && remedy !== 'unknown';
}

/** Of several remedies offered, the first concrete one in rule order; `other` when none is concrete. */
export function firstConcreteRemedy(remedies: readonly Remedy[]): Remedy {
  return REMEDY_RULES.find((rule) => remedies.includes(rule.remedy))?.remedy ?? 'other';
}

/** Maps remedy wording (one or several phrases) to a canonical remedy. */
export function classifyRemedy(
  text: string | null | undefined | readonly (string | null | undefined)[],
): Remedy {
  const parts = (Array.isArray(text) ? text : [text]).filter(
    (t): t is string => typeof t === 'string' && t.trim() !== '',
  );
  if (parts.length === 0) return 'unknown';
  const joined = parts.join(' \n ');
  for (const rule of REMEDY_RULES) if (rule.patterns.some((p) => p.test(joined))) return rule.remedy;
  return 'other';
}
