/**
 * Health Canada open-data rows → recall drafts. Pure: no I/O, no clock.
 *
 * The dump's text is cleaned of what it is known to carry: padding, HTML entities (`&amp;`,
 * `&nbsp;`), zero-width spaces. The dump holds no product identifiers (no UPC or lot columns;
 * those are only in each notice's web page), so drafts carry none.
 */
import { isCalendarDate } from '../../../domain/dates.ts';
import { classifyHazard } from '../../../domain/hazard-rules.ts';
import type { RecallDraft } from '../../../domain/recall.ts';
import { classifyRemedy } from '../../../domain/remedy-rules.ts';
import type { HazardCategory, Severity } from '../../../domain/taxonomy.ts';
import { plainText } from '../../extract/html-text.ts';
import { hcRecordId, type HcRow } from './schema.ts';

/** The public site the dump's relative `URL`s are addresses on. */
export const HC_SITE = 'https://recalls-rappels.canada.ca';

const NUMERAL = String.raw`(?:iii|ii|i|[123])`;
/**
 * A class label and its numerals: `Class 1`, `Type II`, and ranges or lists such as `Class 2-3`,
 * `Type I - II`, `Class 1/Class 2`, `Type II to III`.
 */
const CLASS_LABEL = new RegExp(
  String.raw`\b(?:class|type)\s*(${NUMERAL}(?:\s*(?:-|–|—|\/|,|&|\bto\b|\bor\b|\band\b)\s*(?:(?:class|type)\s*)?${NUMERAL})*)(?![a-z0-9])`,
  'i',
);
const SEVERITY_BY_LEVEL: readonly Severity[] = ['serious', 'medium', 'low'];
/** Values that stand for "no class": `--`, `-`, `N/A`, `None`. */
const NO_CLASS = /^(?:[-–—.\s]*|n\/?a|none|not applicable)$/i;

/** A cleaned text column; null when empty. */
export function hcText(value: string | null | undefined): string | null {
  return plainText(value);
}

/** The class label as published, cleaned; null when empty or a placeholder such as `--`. */
export function hcClassLabel(value: string | null | undefined): string | null {
  const text = hcText(value);
  return text === null || NO_CLASS.test(text) ? null : text;
}

/**
 * Severity from `Recall class`: Class 1 / Type I → serious, Class 2 / Type II → medium,
 * Class 3 / Type III → low. A range or list takes its most severe level (`Class 2-3` → medium).
 * Empty, `--` or anything else → unknown.
 */
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

/** `Last updated` as a date: `YYYY-MM-DD` (a time after it is ignored); null when absent or not a date. */
export function hcDate(value: string | null | undefined): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ].*)?$/.exec((value ?? '').trim());
  return m !== null && isCalendarDate(m[1]!) ? m[1]! : null;
}

/** The notice's address: the dump's `URL` (relative, `/en/alert-recall/<slug>`) made absolute. */
export function hcUrl(value: string | null | undefined): string | null {
  const v = hcText(value);
  if (v === null || !URL.canParse(v, HC_SITE)) return null;
  const url = new URL(v, HC_SITE);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
}

/** `Category` as an id: lower case, accents removed, words joined by `_` ("Medical devices" → `medical_devices`). */
export function hcCategory(value: string | null | undefined): string | null {
  const text = hcText(value);
  if (text === null) return null;
  const id = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return id === '' ? null : id;
}

/** The summary: the row's prose columns, each on its own line under its column name. */
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
  return lines.length === 0 ? null : lines.join('\n');
}

/**
 * Issue labels of Health Canada's own vocabulary that name a failing, not a harm, and would read
 * otherwise in the shared rules: a medical device's "Performance", and "Non harmful (quality or
 * spoilage)", where the agency says in so many words that the spoilage is not a hazard.
 */
const HC_QUALITY_ISSUES = /^(?:performance|non[- ]harmful\b.*)$/i;

/**
 * The hazard category of `Issue`. Issues are often one terse label ("Labelling", "Brakes") that
 * names no category; then the title, which usually says why ("… recalled due to undeclared
 * milk"), is read with it.
 */
export function hcHazardCategory(issue: string | null, title: string | null): HazardCategory | null {
  if (issue !== null && HC_QUALITY_ISSUES.test(issue.trim())) return 'quality_defect';
  const own = classifyHazard(issue);
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
    product: { category: hcCategory(row.Category), brands: [], models: [] },
    severity: hcSeverity(row['Recall class']),
    source_classification: hcClassLabel(row['Recall class']),
    remedy: classifyRemedy(hcText(row['What you should do'])),
    // The dump carries only `Last updated`; the original recall date is on the notice's page.
    recall_date: null,
    published_date: hcDate(row['Last updated']),
    countries: ['CA'],
    url: hcUrl(row.URL),
    identifiers: [],
  };
}

/**
 * One row per NID: when the dump lists a NID twice, the later `Last updated` wins, then the
 * first listed. Rows keep the order in which the dump first lists them.
 */
export function selectHcRows(rows: readonly HcRow[]): HcRow[] {
  const chosen = new Map<string, HcRow>();
  for (const row of rows) {
    const id = hcRecordId(row);
    const seen = chosen.get(id);
    if (seen === undefined || (hcDate(row['Last updated']) ?? '') > (hcDate(seen['Last updated']) ?? '')) {
      chosen.set(id, row);
    }
  }
  return [...chosen.values()];
}

/** The dump's freshness: its newest `Last updated` (the file carries no stamp of its own). */
export function hcDataAsOf(rows: readonly HcRow[]): string | null {
  let newest: string | null = null;
  for (const row of rows) {
    const d = hcDate(row['Last updated']);
    if (d !== null && (newest === null || d > newest)) newest = d;
  }
  return newest;
}
