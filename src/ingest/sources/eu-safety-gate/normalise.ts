/** One Safety Gate notification → one RecallDraft. Pure; the tables are exported for the readme and tests. */
import { KNOWN_COUNTRY_CODES, countryCode } from '../../../domain/countries.ts';
import { mostSpecificHazard } from '../../../domain/hazard-rules.ts';
import { classifyHazard } from '../../hazard-texts.ts';
import { isPlaceholder } from '../../../domain/identifiers/text-codes.ts';
import type { RecallDraft } from '../../../domain/recall.ts';
import { classifyRemedy, isConcreteRemedy } from '../../../domain/remedy-rules.ts';
import type { HazardCategory, Remedy, Severity } from '../../../domain/taxonomy.ts';
import { barcodeFieldIdentifiers, codeFieldIdentifiers } from '../../extract/field-codes.ts';
import { extractLabelledIdentifiers, mergeIdentifiers } from '../../extract/labelled-identifiers.ts';
import { clipAtWord } from '../../extract/titles.ts';
import { safetyGateDate, type Notification } from './schema.ts';

const TITLE_MAX = 120;

/** The public page of a notification, by its numeric id (on the Commission's site, never on the base address). */
export function safetyGateAlertUrl(id: number): string {
  return `https://ec.europa.eu/safety-gate-alerts/screen/webReport/alertDetail/${id}?lang=en`;
}

/** `risk.riskType[].name` → hazard; a type naming no harm of ours is `other`, and the risk description decides. */
export const HAZARD_BY_RISK_TYPE: Readonly<Record<string, HazardCategory>> = {
  ASPHYXIATION: 'suffocation',
  BURNS: 'burn',
  CHEMICAL: 'chemical',
  CHOKING: 'choking',
  CUTS: 'laceration',
  DAMAGE_TO_HEARING: 'injury',
  DAMAGE_TO_SIGHT: 'injury',
  DROWNING: 'drowning',
  ELECTRIC_SHOCK: 'electrical_shock',
  ELECTROMAGNETIC_DISTURBANCE: 'other',
  ENERGY_CONSUMPTION: 'other',
  ENTRAPMENT: 'entrapment',
  ENVIRONMENT: 'other',
  FIRE: 'fire',
  HEALTH_RISK_OTHER: 'other',
  INJURIES: 'injury',
  MEASUREMENT_INCORRECT: 'quality_defect',
  MICROBIOLOGICAL: 'microbial_contamination',
  SECURITY: 'other',
  STRANGULATION: 'strangulation',
  SUFFOCATION: 'suffocation',
  OTHER: 'other',
};

/** `notificationType.code` → severity: an Article 12 notification is one of a serious risk; others are not graded. */
export const SEVERITY_BY_NOTIFICATION_TYPE: Readonly<Record<string, Severity>> = { A12: 'serious' };

/** `measureTaken.measures[].measureCategory.name` asking something of consumers; every other measure is `other`. */
export const REMEDY_BY_MEASURE: Readonly<Record<string, Remedy>> = {
  PRODUCT_RECALL_FROM_CONSUMERS: 'stop_use',
};

/** Brands that are no brand. */
const NO_BRAND =
  /^(?:unknown|not known|no brand|brand unknown|unbranded|none|no name|without brand|generic|n\/?a|-+|\.+)$/i;

/** A text field, trimmed; null when empty. */
function text(value: string | null | undefined): string | null {
  const t = (value ?? '').trim();
  return t === '' ? null : t;
}

/** The English version of a translated part, else the first one. */
function english<T extends { language?: { key?: string | null } | null }>(
  versions: readonly T[] | null | undefined,
): T | undefined {
  return versions?.find((v) => v.language?.key?.toUpperCase() === 'EN') ?? versions?.[0];
}

/** Risk types (most specific first, per the shared table), else the risk description, else `other`/null. */
export function safetyGateHazard(
  riskTypes: readonly string[],
  description: string | null,
): HazardCategory | null {
  const named = mostSpecificHazard(
    riskTypes.map((t) => HAZARD_BY_RISK_TYPE[t.toUpperCase()] ?? classifyHazard(t.replace(/_/g, ' '))),
  );
  if (named !== null && named !== 'other') return named;
  const fromText = classifyHazard(description);
  if (fromText !== null && fromText !== 'other') return fromText;
  return riskTypes.length > 0 || description !== null ? 'other' : null;
}

/** `A12` → `serious`; any other type, or none, `unknown`. */
export function safetyGateSeverity(notificationType: string | null): Severity {
  return SEVERITY_BY_NOTIFICATION_TYPE[(notificationType ?? '').trim().toUpperCase()] ?? 'unknown';
}

/**
 * A consumer remedy the shared table finds in a measure's own wording wins; a recall from consumers
 * is `stop_use` (but `other` for motor vehicles: a repair campaign not spelt out); other measures
 * `other`; none `unknown`.
 */
export function safetyGateRemedy(
  measures: readonly { category: string | null; wording: string | null }[],
  productCategory: string | null,
): Remedy {
  if (measures.length === 0) return 'unknown';
  const worded = classifyRemedy(measures.map((m) => m.wording));
  if (isConcreteRemedy(worded)) return worded;
  const vehicle = /motor_?vehicles?/i.test(productCategory ?? '');
  const asked = measures.map((m) => REMEDY_BY_MEASURE[(m.category ?? '').toUpperCase()]);
  return asked.includes('stop_use') && !vehicle ? 'stop_use' : 'other';
}

function realBrand(brand: string | null): string | null {
  return brand === null || NO_BRAND.test(brand) || isPlaceholder(brand) ? null : brand;
}

/** "Brand Name" (brand prefixed unless the name carries it), else the product type; at most 120 characters. */
function title(brand: string | null, name: string | null, product: string | null): string | null {
  const base = name ?? product;
  if (base === null) return brand;
  const t = (
    brand !== null && !base.toLowerCase().includes(brand.toLowerCase()) ? `${brand} ${base}` : base
  ).replace(/\s+/g, ' ');
  return t.length <= TITLE_MAX ? t : clipAtWord(t, TITLE_MAX).replace(/[\s,;:.-]+$/, '');
}

/** A country as the API writes it (`{key: "DE", name: "Germany"}`, or a bare name or code) → ISO code. */
function countryOf(value: unknown): string | null {
  if (typeof value === 'string') return countryCode(value) ?? (KNOWN_COUNTRY_CODES.has(value) ? value : null);
  if (value === null || typeof value !== 'object') return null;
  const { name, key } = value as { name?: unknown; key?: unknown };
  return (
    (typeof name === 'string' ? countryOf(name) : null) ?? (typeof key === 'string' ? countryOf(key) : null)
  );
}

/** The notifying country, then the reacting ones, as ISO codes; unknown ones and the country of origin left out. */
export function safetyGateCountries(n: Notification): string[] {
  const codes = [n.country, ...(n.reactingCountries ?? [])].map(countryOf);
  return [...new Set(codes.filter((c): c is string => c !== null))];
}

/** The agency's product category as an id: `ELECTRICAL_APPLIANCES` → `electrical_appliances`. */
function categoryId(name: string | null | undefined): string | null {
  const id = (name ?? '')
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return id === '' ? null : id;
}

/** The earliest measure in force, else the publication date. */
function recallDate(n: Notification, published: string | null): string | null {
  const dates = (n.measureTaken?.measures ?? [])
    .map((m) => safetyGateDate(m.entryIntoForceDate))
    .filter((d): d is string => d !== null)
    .sort();
  return dates[0] ?? published;
}

/** Maps one notification to a recall draft. */
export function normaliseNotification(n: Notification): RecallDraft {
  const product = n.product ?? {};
  const version = english(product.versions);
  const risk = english(n.risk?.versions);
  const danger = text(risk?.riskDescription);
  const riskTypes = (n.risk?.riskType ?? []).flatMap((t) => text(t?.name) ?? []);
  const category = categoryId(product.productCategory?.name);
  const brands = [...new Set((product.brands ?? []).flatMap((b) => realBrand(text(b.brand)) ?? []))];
  const models = (product.modelTypes ?? []).map((m) => codeFieldIdentifiers(m.modelType, 'model'));
  const batches = (product.batchNumbers ?? []).map((b) => codeFieldIdentifiers(b.batchNumber, 'batch'));
  const barcodes = (product.barcodes ?? []).map((b) => barcodeFieldIdentifiers(b.barcode, 'gtin'));
  const description = text(version?.description);
  const type = text(n.notificationType?.code);
  const published = safetyGateDate(n.publicationDate);
  const measures = (n.measureTaken?.measures ?? []).map((m) => ({
    category: text(m.measureCategory?.name),
    wording: text(english(m.versions)?.measureCategoryOther),
  }));

  return {
    recordId: n.reference.trim(),
    title: title(brands[0] ?? null, text(product.nameSpecific), text(version?.name)),
    summary: danger,
    hazard: {
      category: safetyGateHazard(
        riskTypes,
        [danger, text(risk?.riskTypeOther)].filter((t) => t !== null).join('\n') || null,
      ),
      text: danger,
    },
    product: { category, brands, models: [...new Set(models.flatMap((m) => m.values))] },
    severity: safetyGateSeverity(type),
    source_classification: type,
    remedy: safetyGateRemedy(measures, category),
    recall_date: recallDate(n, published),
    published_date: published,
    countries: safetyGateCountries(n),
    url: safetyGateAlertUrl(n.id),
    identifiers: mergeIdentifiers(
      ...barcodes,
      ...batches.map((b) => b.identifiers),
      ...models.map((m) => m.identifiers),
      description === null ? [] : extractLabelledIdentifiers(description),
    ),
  };
}
