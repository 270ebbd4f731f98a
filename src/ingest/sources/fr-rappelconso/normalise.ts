/** One RappelConso notice → one RecallDraft. Pure; the tables are exported for the readme and tests. */
import { isCalendarDate } from '../../../domain/dates.ts';
import { mostSpecificHazard } from '../../../domain/hazard-rules.ts';
import { classifyHazard } from '../../hazard-texts.ts';
import { maskEmails } from '../../../domain/personal-data.ts';
import type { Identifier, RecallDraft } from '../../../domain/recall.ts';
import { classifyRemedy } from '../../../domain/remedy-rules.ts';
import type { HazardCategory, Remedy } from '../../../domain/taxonomy.ts';
import { exactIdentifiers } from '../../extract/field-codes.ts';
import { extractLabelledIdentifiers, mergeIdentifiers } from '../../extract/labelled-identifiers.ts';
import { clipAtWord } from '../../extract/titles.ts';
import { holdsDate, identificationIdentifiers, isDateOrDateRange } from './identification.ts';
import type { RappelConsoRecord } from './schema.ts';

const TITLE_MAX = 120;

/**
 * `risques_encourus` items (the agency's own list) → category; first match wins. Items naming no
 * harm of their own (`blessures`, a manufacturing defect, `autre risque`) are weak: the reason
 * for the recall decides when it names one.
 */
export const RISK_CATEGORIES: readonly { pattern: RegExp; category: HazardCategory; weak?: true }[] = [
  {
    pattern: /^(?:listeria|salmonell|escherichia|bacillus|campylobacter|staphylo|clostridium)/,
    category: 'microbial_contamination',
  },
  { pattern: /^(?:substances? allergisantes?|allerg)/, category: 'undeclared_allergen' },
  { pattern: /^inertes?\b/, category: 'foreign_matter' },
  {
    pattern:
      /^(?:autres? contaminants? chimiques?|risque chimique|produits phytosanitaires|d[ée]passement des limites)/,
    category: 'chemical',
  },
  { pattern: /^anomalies? d['’][ée]tiquetage/, category: 'mislabelling' },
  { pattern: /^incendie/, category: 'fire' },
  { pattern: /^choc [ée]lectrique/, category: 'electrical_shock' },
  { pattern: /^br[ûu]lure/, category: 'burn' },
  { pattern: /^[ée]touffement/, category: 'choking' },
  { pattern: /^asphyxie/, category: 'suffocation' },
  { pattern: /^[ée]tranglement/, category: 'strangulation' },
  { pattern: /^noyade/, category: 'drowning' },
  { pattern: /^chute/, category: 'fall' },
  { pattern: /^(?:blessures?|dommages? à la vue)/, category: 'injury', weak: true },
  {
    pattern: /^(?:d[ée]faut de fabrication|modifications organoleptiques)/,
    category: 'quality_defect',
    weak: true,
  },
  { pattern: /^autres? risques?$/, category: 'other', weak: true },
];

/** Categories naming a cause or no harm in particular: a named harm wins over them. */
const NO_HARM: ReadonlySet<HazardCategory> = new Set(['injury', 'quality_defect', 'mislabelling', 'other']);

/** Brands that are no brand. */
const NO_BRAND =
  /^(?:sans marques?(?: \(.*\))?|diverses marques|marques diverses|fabriqu[ée] sur place|non concern[ée]|aucune|inconnue?|-+)$/;

/** Text as served, spaces collapsed; null when empty. */
function text(value: string | null | undefined): string | null {
  const t = (value ?? '').replace(/\s+/g, ' ').trim();
  return t === '' ? null : t;
}

/** A `|`-separated list, items trimmed, empty ones left out. */
export function listItems(value: string | null | undefined): string[] {
  return (value ?? '')
    .split('|')
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s !== '');
}

/** `|` lists as `a, b`; `¤` items as `a; b`. */
function readable(value: string | null | undefined): string | null {
  const items = listItems(value).map((s) =>
    s
      .split('¤')
      .map((p) => p.trim())
      .filter((p) => p !== '')
      .join('; '),
  );
  return text(items.filter((s) => s !== '').join(', '));
}

/** The categories of the agency's `risques_encourus` items: those naming a harm, and the weak ones. */
export function riskCategories(risks: string | null | undefined): {
  strong: HazardCategory[];
  weak: HazardCategory[];
} {
  const strong: HazardCategory[] = [];
  const weak: HazardCategory[] = [];
  for (const item of listItems(risks).map((s) => s.toLowerCase())) {
    const rule = RISK_CATEGORIES.find((r) => r.pattern.test(item));
    if (rule !== undefined) (rule.weak ? weak : strong).push(rule.category);
    else {
      const category = classifyHazard(item) ?? 'other';
      (NO_HARM.has(category) ? weak : strong).push(category);
    }
  }
  return { strong, weak };
}

/**
 * In order: the reason for the recall when it names a harm (a foreign body beats the list's
 * `étouffement`, a crash risk its `blessures`); the most specific harm of the agency's list; its
 * weak items (`blessures` before a defect); the reason's cause (a defect, a label error); `other`
 * when there is any text, else null.
 */
export function rappelConsoHazard(
  risks: string | null | undefined,
  reason: string | null,
): HazardCategory | null {
  const fromReason = classifyHazard(reason);
  if (fromReason !== null && !NO_HARM.has(fromReason)) return fromReason;
  const { strong, weak } = riskCategories(risks);
  return (
    mostSpecificHazard(strong) ??
    mostSpecificHazard(weak.filter((c) => c !== 'other')) ??
    (fromReason !== null && fromReason !== 'other' ? fromReason : undefined) ??
    (fromReason !== null || strong.length + weak.length > 0 ? 'other' : null)
  );
}

/** The compensation offered, else what consumers are told to do (shared table, French wording). */
export function rappelConsoRemedy(compensation: string | null, conduct: string | null): Remedy {
  return classifyRemedy([listItems(compensation).join(' \n '), listItems(conduct).join(' \n ')]);
}

/** `date_publication` (ISO date-time with offset) as its `YYYY-MM-DD`, or null. */
export function rappelConsoDate(value: string | null | undefined): string | null {
  const day = (value ?? '').trim().slice(0, 10);
  return isCalendarDate(day) ? day : null;
}

/** The Safety Gate case number of a re-published notice (`sr/01783/26` → `SR/01783/26`), else null. */
export function safetyGateReference(numeroFiche: string): string | null {
  const id = numeroFiche.trim();
  return /^[a-z]{1,3}\d*\/\d{3,6}\/\d{2}$/i.test(id) ? id.toUpperCase() : null;
}

function brandOf(value: string | null | undefined): string | null {
  const brand = text(value);
  return brand === null || NO_BRAND.test(brand.toLowerCase()) ? null : brand;
}

/** "brand libellé" (brand left out when the label carries it), cut at a word to 120 characters. */
function title(brand: string | null, label: string | null): string | null {
  const base = label ?? brand;
  if (base === null) return null;
  const t =
    brand !== null && label !== null && !label.toLowerCase().includes(brand.toLowerCase())
      ? `${brand} ${label}`
      : base;
  return t.length <= TITLE_MAX ? t : clipAtWord(t, TITLE_MAX).replace(/[\s,;:.-]+$/, '');
}

/** A reference label opening a `modeles_ou_references` item (`référence 2687023`, `réf 181`). */
const REFERENCE_LABEL = /^r[ée]f(?:[ée]rence)?s?\.?\s*(?::\s*)?(?=\S*\d)/i;

/**
 * A label inside an item, then `:` and the references (`sd500e code model: 5177606 / 5244742`,
 * `référence paris store : 050280`): the words before the label stay a candidate of their own.
 */
const INNER_LABEL =
  /^(.*?)\s*\b(?:code\s+)?(?:mod[eè]les?|models?|r[ée]f[ée]rences?|r[ée]fs?|codes?\s+articles?)\b[^:]{0,30}:\s*(.+)$/i;

/** A reference label and one code closing an item, no `:` (`… partner référence 023-391`). */
const TRAILING_REFERENCE = /^(.*?)\s+r[ée]f(?:[ée]rence)?s?\.?\s+(\S*\d\S*)$/i;

/** Separators of references after an inner label: `/`, `,`, `;`, ` et `, ` ou `. */
const REFERENCE_SEPARATORS = /\s*[/,;]\s*|\s+(?:et|ou)\s+/i;

/** Longest reference, in characters, and most words. */
export const MAX_REFERENCE_LENGTH = 40;
export const MAX_REFERENCE_WORDS = 3;

/** A number with a unit or a pack count (`265g`, `3.4kg`, `169 g`, `800 w`, `x6`, `6x`, `4%`). */
const QUANTITY_WORD = /^(?:\d+(?:[.,]\d+)?(?:g|gr|kg|mg|l|cl|ml|w|kw|v|mm|cm|m|%)|x\d+|\d+x)$/i;
const QUANTITY_PHRASE = /\d(?:[.,]\d+)?\s(?:g|gr|kg|mg|l|cl|ml|w|kw|v|mm|cm|%)(?:\s|$)/i;
/** An EU health or identification mark (`fr 44.138.002 ce`, `fr24551002ce`): an establishment. */
const HEALTH_MARK = /^[a-z]{2}\s?\d{2,3}[.\s]?\d{3}[.\s]?\d{3}\s?(?:ce|ec|eg|ue|eu)?$/i;
/** A lot label opening an item (`lot n° 312`, `n° lot ab94859`): a lot, not a model. */
const LOT_ITEM = /^(?:n[°o]\s*)?lots?\b/i;

/**
 * Whether an item of `modeles_ou_references` is a reference (a model or article code), not a
 * product description or a sentence: at most {@link MAX_REFERENCE_LENGTH} characters and
 * {@link MAX_REFERENCE_WORDS} words; only ASCII letters, digits and `- / . _ + #` (no accented
 * word, no `:` or `,` of a sentence, no full stop ending it); a digit in it, or one token
 * joining letter groups with `-`, `/` or `.` (`abc-xl`); no quantity (`265g`, `x6`), date, lot
 * label or health mark.
 */
export function isReference(item: string): boolean {
  const v = item.replace(/\s+/g, ' ').trim();
  const words = v.split(' ');
  return (
    v.length >= 2 &&
    v.length <= MAX_REFERENCE_LENGTH &&
    words.length <= MAX_REFERENCE_WORDS &&
    /^[a-z0-9][a-z0-9 ./_+#-]*$/i.test(v) &&
    !/[.]$/.test(v) &&
    (/\d/.test(v) || (words.length === 1 && /^[a-z]+(?:[-/.][a-z0-9]+)+$/i.test(v))) &&
    !words.some((w) => QUANTITY_WORD.test(w)) &&
    !QUANTITY_PHRASE.test(v) &&
    !holdsDate(v) &&
    !isDateOrDateRange(v) &&
    !LOT_ITEM.test(v) &&
    !HEALTH_MARK.test(v)
  );
}

/** Longest item searched for an inner label: a labelled list of references is short, and the patterns stay cheap. */
const MAX_LABELLED_ITEM = 200;

/** The candidate references of one item: the item, or the words before an inner label and the list after it. */
function candidates(item: string): string[] {
  if (item.length > MAX_LABELLED_ITEM) return [item];
  const m = INNER_LABEL.exec(item) ?? TRAILING_REFERENCE.exec(item);
  if (m === null) return [item];
  return [m[1]!, ...m[2]!.split(REFERENCE_SEPARATORS)].map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * Models from `modeles_ou_references` (`¤` separates items), a leading French reference label
 * removed. `values` (the draft's `product.models`) keeps only references ({@link isReference}):
 * product names, descriptions and vehicle sentences with VIN ranges are left out. A one-token
 * reference is an `exact` model (`znf001`, `2687023`); items that are no reference are still read
 * as prose by the shared labelled-identifier rules.
 */
export function modelIdentifiers(value: string | null | undefined): {
  identifiers: Identifier[];
  values: string[];
} {
  const items = (value ?? '')
    .split('¤')
    .map((s) => s.replace(/\s+/g, ' ').trim().replace(REFERENCE_LABEL, ''))
    .filter((s) => s !== '' && !/^non concern[ée]$/i.test(s));
  const references: string[] = [];
  const prose: string[] = [];
  for (const item of items) {
    const found = candidates(item).filter(isReference);
    references.push(...found);
    if (found.length === 0) prose.push(item);
  }
  const values = [...new Set(references)];
  const exact = exactIdentifiers(
    'model',
    values.filter((v) => !/\s/.test(v)),
  );
  const inText = prose.length === 0 ? [] : extractLabelledIdentifiers(prose.join('\n'), { kinds: ['model'] });
  return { identifiers: mergeIdentifiers(exact, inText), values };
}

function summary(r: RappelConsoRecord, reference: string | null): string | null {
  const lines = (
    [
      ['Notification Safety Gate', reference],
      ['Motif du rappel', readable(r.motif_rappel)],
      ['Risques encourus', readable(r.risques_encourus)],
      ['Précisions sur le risque', readable(r.description_complementaire_risque)],
      ['Conduites à tenir', readable(r.conduites_a_tenir_par_le_consommateur)],
      ['Compensation', readable(r.modalites_de_compensation)],
    ] as const
  ).flatMap(([name, value]) => (value === null ? [] : [`${name} : ${value}`]));
  return lines.length === 0 ? null : maskEmails(lines.join('\n'));
}

/** Maps one notice to a recall draft; `numero_contact` and the distributors are never read. */
export function normaliseRappelConso(r: RappelConsoRecord): RecallDraft {
  const recordId = r.numero_fiche.trim();
  const reference = safetyGateReference(recordId);
  const brand = brandOf(r.marque_produit);
  const models = modelIdentifiers(r.modeles_ou_references);
  const reason = text(
    [r.motif_rappel, r.description_complementaire_risque]
      .map((t) => (t ?? '').replace(/¤/g, '; '))
      .join('\n'),
  );
  const published = rappelConsoDate(r.date_publication);
  const url = text(r.lien_vers_la_fiche_rappel);
  return {
    recordId,
    title: title(brand, text(r.libelle)),
    summary: summary(r, reference),
    hazard: { category: rappelConsoHazard(r.risques_encourus, reason), text: readable(r.risques_encourus) },
    product: {
      category: text(r.categorie_produit),
      brands: brand === null ? [] : [brand],
      models: models.values,
    },
    // RappelConso grades no risk; the legal nature (voluntary or ordered) is kept as published.
    severity: 'unknown',
    source_classification: text(r.nature_juridique_rappel),
    remedy: rappelConsoRemedy(
      text(r.modalites_de_compensation),
      text(r.conduites_a_tenir_par_le_consommateur),
    ),
    recall_date: published,
    published_date: published,
    countries: ['FR'],
    url: url !== null && /^https?:\/\//i.test(url) ? url : null,
    identifiers: mergeIdentifiers(identificationIdentifiers(r.identification_produits), models.identifiers),
  };
}
