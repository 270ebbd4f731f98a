/** One Safety Gate notification → one RecallDraft. Pure; the tables are exported for the readme and tests. */
import { countryCode } from '../../../domain/countries.ts';
import { HAZARD_RULES, classifyHazard } from '../../../domain/hazard-rules.ts';
import { isPlaceholder } from '../../../domain/identifiers/text-codes.ts';
import type { RecallDraft } from '../../../domain/recall.ts';
import { classifyRemedy, isConcreteRemedy } from '../../../domain/remedy-rules.ts';
import type { HazardCategory, Remedy, Severity } from '../../../domain/taxonomy.ts';
import { extractLabelledIdentifiers, mergeIdentifiers } from '../../extract/labelled-identifiers.ts';
import { barcodeFieldIdentifiers, codeFieldIdentifiers } from '../../extract/field-codes.ts';
import { clipAtWord } from '../../extract/titles.ts';
import type { Notification } from './schema.ts';

const TITLE_MAX = 120;

/** `riskType` (comma-separated) → hazard; a type naming no harm of ours is `other`, and `danger` decides. */
export const HAZARD_BY_RISK_TYPE: Readonly<Record<string, HazardCategory>> = {
  burns: 'burn',
  burn: 'burn',
  chemical: 'chemical',
  choking: 'choking',
  cuts: 'laceration',
  'damage to hearing': 'injury',
  'damage to sight': 'injury',
  drowning: 'drowning',
  'electric shock': 'electrical_shock',
  'electromagnetic disturbance': 'other',
  'energy consumption': 'other',
  entrapment: 'entrapment',
  environment: 'other',
  falls: 'fall',
  fire: 'fire',
  'health risk / other': 'other',
  'health risk': 'other',
  injuries: 'injury',
  injury: 'injury',
  microbiological: 'microbial_contamination',
  security: 'other',
  strangulation: 'strangulation',
  suffocation: 'suffocation',
  asphyxiation: 'suffocation',
  other: 'other',
};

/** The notifying authority's `level` → severity; anything else `unknown`. */
export const SEVERITY_BY_LEVEL: Readonly<Record<string, Severity>> = {
  'serious risk': 'serious',
  serious: 'serious',
  'high risk': 'high',
  high: 'high',
  'medium risk': 'medium',
  medium: 'medium',
  'low risk': 'low',
  low: 'low',
  // "Less than serious" under the pre-2024 guidelines: not graded further, so not guessed.
  'other risk level': 'unknown',
  'other risk': 'unknown',
  'other alert type': 'unknown',
};

/** Brands that are no brand. */
const NO_BRAND =
  /^(?:unknown|not known|no brand|brand unknown|unbranded|none|no name|without brand|generic|n\/?a|-+|\.+)$/i;

/** "Recall of the product from end users", however worded. */
const RECALL_FROM_END_USERS =
  /\brecall\w*\s+(?:of\s+(?:the\s+)?products?\s+)?from\s+(?:the\s+)?end[- ]?users?\b/i;

function text(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  const joined = (Array.isArray(value) ? value.join('; ') : value).trim();
  return joined === '' ? null : joined;
}

/** A category's place in the shared hazard table, `other` last. */
function precedence(category: HazardCategory): number {
  const i = HAZARD_RULES.findIndex((r) => r.category === category);
  return i === -1 ? HAZARD_RULES.length : i;
}

/** The mapped risk types (most specific first, per the shared table), else `danger`, else `other`/null. */
export function safetyGateHazard(riskType: string | null, danger: string | null): HazardCategory | null {
  const types = (riskType ?? '')
    .split(/[,;]/)
    .map((t) => t.trim().toLowerCase().replace(/\s+/g, ' '))
    .filter((t) => t !== '');
  const named = types
    .map((t) => HAZARD_BY_RISK_TYPE[t] ?? classifyHazard(t))
    .filter((c): c is HazardCategory => c !== null && c !== 'other')
    .sort((a, b) => precedence(a) - precedence(b));
  if (named[0] !== undefined) return named[0];
  const fromDanger = classifyHazard(danger);
  if (fromDanger !== null && fromDanger !== 'other') return fromDanger;
  return types.length > 0 || danger !== null ? 'other' : null;
}

/** `Serious risk` → `serious` …; `unknown` for any other level. */
export function safetyGateSeverity(level: string | null): Severity {
  return SEVERITY_BY_LEVEL[(level ?? '').trim().toLowerCase().replace(/\s+/g, ' ')] ?? 'unknown';
}

/**
 * A consumer remedy the shared table names wins; a recall from end users is `stop_use` (but
 * `other` for motor vehicles: repair campaigns not spelt out); other measures `other`; none `unknown`.
 */
export function safetyGateRemedy(measures: string | null, category: string | null): Remedy {
  const classified = classifyRemedy(measures);
  if (isConcreteRemedy(classified)) return classified;
  if (measures === null) return 'unknown';
  if (RECALL_FROM_END_USERS.test(measures) && !/\bmotor vehicles?\b/i.test(category ?? '')) return 'stop_use';
  return 'other';
}

function realBrand(brand: string | null): string | null {
  if (brand === null || NO_BRAND.test(brand) || isPlaceholder(brand)) return null;
  return brand;
}

function cap(title: string): string {
  return title.length <= TITLE_MAX ? title : clipAtWord(title, TITLE_MAX).replace(/[\s,;:.-]+$/, '');
}

/** "Brand Name" (brand prefixed unless the name carries it), else the product type. */
function title(brand: string | null, name: string | null, product: string | null): string | null {
  const base = name ?? product;
  if (base === null) return brand;
  const t = brand !== null && !base.toLowerCase().includes(brand.toLowerCase()) ? `${brand} ${base}` : base;
  return cap(t.replace(/\s+/g, ' '));
}

/** Country names from the optional `countries` element, text or nested. */
function listedCountries(value: unknown): string[] {
  if (typeof value === 'string') return value.split(/[,;\n]/);
  if (Array.isArray(value)) return value.flatMap(listedCountries);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(listedCountries);
  return [];
}

/** The notifying country, then any other listed, as ISO codes; unknown names and origin left out. */
export function safetyGateCountries(n: Notification): string[] {
  const names = [n.notifyingCountry ?? '', ...listedCountries(n.countries)];
  const codes = names.map((name) => countryCode(name)).filter((c): c is string => c !== null);
  return [...new Set(codes)];
}

/** Maps one notification of a weekly report published on `reportDate` to a recall draft. */
export function normaliseNotification(n: Notification, reportDate: string): RecallDraft {
  const danger = text(n.danger);
  const level = text(n.level) ?? text(n.riskLevel);
  const category = text(n.category);
  const brand = realBrand(text(n.brand));
  const models = codeFieldIdentifiers(text(n.type_numberOfModel) ?? text(n.model), 'model');
  const batches = codeFieldIdentifiers(text(n.batchNumber), 'batch');
  const barcodes = barcodeFieldIdentifiers(text(n.barcode), 'gtin');
  const description = text(n.description);
  const prose = description === null ? [] : extractLabelledIdentifiers(description);
  const reference = text(n.reference);

  return {
    recordId: n.caseNumber.trim(),
    title: title(brand, text(n.name), text(n.product)),
    summary: danger,
    hazard: { category: safetyGateHazard(text(n.riskType), danger), text: danger },
    product: { category, brands: brand === null ? [] : [brand], models: models.values },
    severity: safetyGateSeverity(level),
    source_classification: level,
    remedy: safetyGateRemedy(text(n.measures), category),
    recall_date: reportDate,
    published_date: reportDate,
    countries: safetyGateCountries(n),
    url: reference !== null && /^https?:\/\//i.test(reference) ? reference : null,
    identifiers: mergeIdentifiers(barcodes, batches.identifiers, models.identifiers, prose),
  };
}
