/** Health Canada rows → recall drafts. Pure. No identifiers: the dump has none (only notice pages do). */
import { isCalendarDate, latestIso } from '../../../domain/dates.ts';
import { isAllergenName, mostSpecificHazard } from '../../../domain/hazard-rules.ts';
import { classifyHazard } from '../../hazard-texts.ts';
import { maskEmails } from '../../../domain/personal-data.ts';
import type { RecallDraft } from '../../../domain/recall.ts';
import { classifyRemedy } from '../../../domain/remedy-rules.ts';
import type { HazardCategory, Severity } from '../../../domain/taxonomy.ts';
import { plainText } from '../../extract/html-text.ts';
import { newestPerId } from '../newest-per-id.ts';
import { hcRecordId, type HcRow } from './schema.ts';

/** The site the dump's relative `URL`s are on. */
export const HC_SITE = 'https://recalls-rappels.canada.ca';

const NUMERAL = String.raw`(?:iii|ii|i|[123])`;
/** A class label and its numerals, ranges and lists too: `Class 1`, `Type I - II`, `Class 1/Class 2`. */
const CLASS_LABEL = new RegExp(
  String.raw`\b(?:class|type)\s*(${NUMERAL}(?:\s*(?:-|–|—|\/|,|&|\bto\b|\bor\b|\band\b)\s*(?:(?:class|type)\s*)?${NUMERAL})*)(?![a-z0-9])`,
  'i',
);
const SEVERITY_BY_LEVEL: readonly Severity[] = ['serious', 'medium', 'low'];
const NO_CLASS = /^(?:[-–—.\s]*|n\/?a|none|not applicable)$/i;

/** A cleaned text column (entities, padding, zero-width spaces); null when empty. */
export function hcText(value: string | null | undefined): string | null {
  return plainText(value);
}

/** The class label as published; null when empty or a placeholder (`--`, `N/A`). */
export function hcClassLabel(value: string | null | undefined): string | null {
  const text = hcText(value);
  return text === null || NO_CLASS.test(text) ? null : text;
}

/** Class 1/Type I → serious, 2 → medium, 3 → low; a range takes its most severe (`Class 2-3` → medium). */
export function hcSeverity(value: string | null | undefined): Severity {
  const label = hcClassLabel(value);
  if (label === null) return 'unknown';
  const m = CLASS_LABEL.exec(label);
  if (m === null) return 'unknown';
  const levels = [...m[1]!.matchAll(/iii|ii|i|[123]/gi)].map((n) => {
    const v = n[0].toLowerCase();
    return v === 'i' || v === '1' ? 1 : v === 'ii' || v === '2' ? 2 : 3;
  });
  return SEVERITY_BY_LEVEL[Math.min(...levels) - 1] ?? 'unknown';
}

/** `Last updated` as `YYYY-MM-DD` (a time after it ignored); null unless a date. */
export function hcDate(value: string | null | undefined): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ].*)?$/.exec((value ?? '').trim());
  return m !== null && isCalendarDate(m[1]!) ? m[1]! : null;
}

/** The dump's relative `URL` (`/en/alert-recall/<slug>`) made absolute. */
export function hcUrl(value: string | null | undefined): string | null {
  const v = hcText(value);
  if (v === null || !URL.canParse(v, HC_SITE)) return null;
  const url = new URL(v, HC_SITE);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
}

/** Folded for a table lookup: accents and case dropped, whitespace collapsed. */
function folded(value: string | null | undefined): string {
  return (hcText(value) ?? '').normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ');
}

/** `Category` values that are a product category of the service (the dump's coarse list). */
export const CATEGORY_BY_HC_CATEGORY: Readonly<Record<string, string>> = {
  food: 'food',
  'multiple food items': 'food',
  drugs: 'drugs',
  'natural health products': 'natural_health_products',
  'medical devices': 'medical_devices',
  'consumer products': 'consumer_products',
  vehicles: 'vehicles',
};

/** `Organization` → product category, for the fine `Category` values (`Fresh`, `Orthopaedics`) the dump now holds. */
export const CATEGORY_BY_ORGANIZATION: Readonly<Record<string, string>> = {
  cfia: 'food',
  'canadian food inspection agency': 'food',
  'consumer product safety': 'consumer_products',
  'medical devices': 'medical_devices',
  'drugs and health products': 'drugs',
  'marketed health products': 'drugs',
  'transport canada': 'vehicles',
  tc: 'vehicles',
};

/**
 * The product category: a coarse `Category` (`Food`, `Natural health products`) as it says, else the
 * `Organization` that published the notice (CFIA → food …); null when neither is known.
 */
export function hcProductCategory(
  category: string | null | undefined,
  organization: string | null | undefined,
): string | null {
  return CATEGORY_BY_HC_CATEGORY[folded(category)] ?? CATEGORY_BY_ORGANIZATION[folded(organization)] ?? null;
}

function hcSummary(row: HcRow): string | null {
  const lines = (
    [
      ['Product', row.Product],
      ['Issue', row.Issue],
      ['What you should do', row['What you should do']],
    ] as const
  ).flatMap(([name, value]) => {
    const text = hcText(value);
    return text === null ? [] : [`${name}: ${text}`];
  });
  // "What you should do" can give a firm's e-mail address: masked, as in all kept prose.
  return lines.length === 0 ? null : maskEmails(lines.join('\n'));
}

/** Issue labels naming a failing, not a harm: a device's "Performance", "Non harmful (quality …)". */
const HC_QUALITY_ISSUES = /^(?:performance|non[- ]harmful\b.*)$/i;

/** One value of `Issue`: an allergen's bare name (`Wheat`) is an undeclared allergen, as CFIA lists them. */
function issueHazard(value: string): HazardCategory | null {
  if (isAllergenName(value)) return 'undeclared_allergen';
  if (HC_QUALITY_ISSUES.test(value)) return 'quality_defect';
  return classifyHazard(value);
}

/**
 * From `Issue`, whose values are joined by ` - ` (`Wheat - Egg - Gluten`): the most specific harm any
 * names. A terse label ("Labelling", "Brakes") is read with the title, which usually says why.
 */
export function hcHazardCategory(issue: string | null, title: string | null): HazardCategory | null {
  const values = (issue ?? '')
    .split(/\s+-\s+/)
    .map((v) => v.trim())
    .filter((v) => v !== '');
  const own = mostSpecificHazard(values.map(issueHazard));
  if (own !== null && own !== 'other') return own;
  return classifyHazard([issue, title].filter((t) => t !== null).join('\n') || null);
}

/** Maps one row of the English dump to a recall draft. */
export function normaliseHcRow(row: HcRow): RecallDraft {
  const issue = hcText(row.Issue);
  const title = hcText(row.Title);
  return {
    recordId: hcRecordId(row),
    title,
    summary: hcSummary(row),
    hazard: { category: hcHazardCategory(issue, title), text: issue },
    product: { category: hcProductCategory(row.Category, row.Organization), brands: [], models: [] },
    severity: hcSeverity(row['Recall class']),
    source_classification: hcClassLabel(row['Recall class']),
    remedy: classifyRemedy(hcText(row['What you should do'])),
    // Only `Last updated` is in the dump; the recall date is on the notice's page.
    recall_date: null,
    published_date: hcDate(row['Last updated']),
    countries: ['CA'],
    url: hcUrl(row.URL),
    identifiers: [],
  };
}

/** One row per NID, in dump order: the later `Last updated` wins, then the first listed. */
export function selectHcRows(rows: readonly HcRow[]): HcRow[] {
  return newestPerId(
    rows,
    hcRecordId,
    (row, seen) => (hcDate(row['Last updated']) ?? '') > (hcDate(seen['Last updated']) ?? ''),
  );
}

/** The newest `Last updated` (the file carries no stamp of its own). */
export function hcDataAsOf(rows: readonly HcRow[]): string | null {
  return latestIso(rows.map((row) => hcDate(row['Last updated'])));
}
