/** FSIS records → recall drafts. Pure. One per notice; no contact reaches a draft (press-release.ts). */
import { isCalendarDate, latestIso } from '../../../domain/dates.ts';
import { classifyHazard } from '../../hazard-texts.ts';
import type { IdentifierKind } from '../../../domain/identifiers/kinds.ts';
import type { RecallDraft } from '../../../domain/recall.ts';
import { classifyRemedy } from '../../../domain/remedy-rules.ts';
import type { HazardCategory, Remedy, Severity } from '../../../domain/taxonomy.ts';
import { extractLabelledIdentifiers, mergeIdentifiers } from '../../extract/labelled-identifiers.ts';
import { htmlToLines, plainText } from '../../extract/html-text.ts';
import { newestPerId } from '../newest-per-id.ts';
import { adviceLines, contactParts, pressReleaseLines } from './press-release.ts';
import { fsisRecallNumber, type FsisRecord } from './schema.ts';

export const FSIS_SITE = 'https://www.fsis.usda.gov';

/** Barcodes and lots, next to a label only; never establishment numbers (readme.md). */
const KINDS: readonly IdentifierKind[] = ['upc', 'ean', 'gtin', 'lot', 'batch'];

/** FSIS classes; a Public Health Alert is not one (readme.md explains why it maps to `high`). */
const SEVERITY_BY_CLASS: Readonly<Record<string, Severity>> = {
  i: 'serious',
  ii: 'medium',
  iii: 'low',
};

/** Categories naming a failing, not a harm: the narrative may say which harm. */
const GENERIC_HAZARDS: ReadonlySet<HazardCategory> = new Set(['other', 'quality_defect', 'mislabelling']);

/** FSIS's disposal wording, which the shared remedy rules do not know. */
const FSIS_DISPOSE: readonly RegExp[] = [
  /\bthrown (?:away|out)\b/i,
  /\breturned to the (?:place|point|store) of purchase\b/i,
  /\bnot to (?:eat|consume)\b/i,
  /\bdesech\w*/i,
  /\bdevolver\w* al lugar de (?:la )?compra\b/i,
  /\bno consumir\w*/i,
];

/** A multi-value field (string before June 2026, array since) as non-empty strings. */
export function fsisList(value: string | readonly string[] | null | undefined): string[] {
  if (value === null || value === undefined) return [];
  return (typeof value === 'string' ? [value] : value).filter((v) => v.trim() !== '');
}

function fsisText(value: string | readonly string[] | null | undefined): string | null {
  const parts = fsisList(value)
    .map((v) => plainText(v))
    .filter((v): v is string => v !== null);
  return parts.length === 0 ? null : parts.join(', ');
}

/** Whether a record is the English version. */
export function isEnglish(record: FsisRecord): boolean {
  return /^\s*(?:english|en)\s*$/i.test(record.langcode);
}

/** The numbers a notice covers: `019-020-2026` → `019-2026`, `020-2026`; other forms cover themselves. */
export function fsisRecallNumbers(recallNumber: string): string[] {
  const m = /^(\d{3}(?:-\d{3})+)-(\d{4})$/.exec(recallNumber);
  if (m === null) return [recallNumber];
  return m[1]!.split('-').map((n) => `${n}-${m[2]}`);
}

/**
 * One record per notice, in feed order: English preferred, then the later modification, then the
 * first served; a non-English record whose numbers English records cover is dropped.
 */
export function selectFsisRecords(records: readonly FsisRecord[]): FsisRecord[] {
  const rank = (r: FsisRecord): number => (isEnglish(r) ? 1 : 0);
  const chosen = newestPerId(
    records,
    fsisRecallNumber,
    (record, seen) =>
      rank(record) > rank(seen) ||
      (rank(record) === rank(seen) &&
        (record.field_last_modified_date ?? '').trim() > (seen.field_last_modified_date ?? '').trim()),
  );
  const english = new Set(
    chosen.filter(isEnglish).flatMap((record) => fsisRecallNumbers(fsisRecallNumber(record))),
  );
  return chosen.filter(
    (record) =>
      isEnglish(record) || !fsisRecallNumbers(fsisRecallNumber(record)).every((n) => english.has(n)),
  );
}

/** `YYYY-MM-DD` as FSIS writes it; null unless a real calendar date. */
export function fsisDate(value: string | null | undefined): string | null {
  const v = (value ?? '').trim();
  return isCalendarDate(v) ? v : null;
}

/** The class in `field_recall_classification`, else `field_risk_level`, else `field_recall_type`. */
export function fsisSeverity(
  record: Pick<FsisRecord, 'field_recall_classification' | 'field_risk_level' | 'field_recall_type'>,
): Severity {
  for (const label of [record.field_recall_classification, record.field_risk_level]) {
    const text = (label ?? '').trim();
    if (text === '') continue;
    const cls = /\bclass\s+(iii|ii|i)\b/i.exec(text);
    if (cls !== null) return SEVERITY_BY_CLASS[cls[1]!.toLowerCase()] ?? 'unknown';
    return /\bpublic health alert\b/i.test(text) ? 'high' : 'unknown';
  }
  return /\bpublic health alert\b/i.test(record.field_recall_type ?? '') ? 'high' : 'unknown';
}

/** `field_recall_url`, made absolute and https on the FSIS site. */
export function fsisUrl(value: string | null | undefined): string | null {
  const v = (value ?? '').trim();
  if (v === '') return null;
  if (!URL.canParse(v, FSIS_SITE)) return null;
  const url = new URL(v, FSIS_SITE);
  if (url.protocol === 'http:' && /^(?:www\.)?fsis\.usda\.gov$/i.test(url.hostname)) url.protocol = 'https:';
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
}

/** The shared remedy rules over the advice paragraphs, plus FSIS's disposal wording. */
export function fsisRemedy(advice: readonly string[]): Remedy {
  const remedy = classifyRemedy(advice);
  if (remedy === 'other' && FSIS_DISPOSE.some((re) => advice.some((line) => re.test(line)))) return 'dispose';
  return remedy;
}

/**
 * From the reason and title; when they name only a failing ("Product Contamination"), from the
 * narrative without its advice (whose "pathogens of concern to domestic livestock" is about disposal).
 */
export function fsisHazard(
  reason: string | null,
  title: string | null,
  narrative: readonly string[],
): HazardCategory | null {
  const named = classifyHazard([reason, title].filter((t) => t !== null).join('\n') || null);
  if (named !== null && !GENERIC_HAZARDS.has(named)) return named;
  const advice = new Set(adviceLines(narrative));
  const story = narrative.filter((line) => !advice.has(line)).join('\n');
  const told = story === '' ? null : classifyHazard(story);
  return told !== null && !GENERIC_HAZARDS.has(told) ? told : named;
}

/** Maps one FSIS record (chosen by {@link selectFsisRecords}) to a recall draft. */
export function normaliseFsisRecord(record: FsisRecord): RecallDraft {
  const recordId = fsisRecallNumber(record);
  const title = plainText(record.field_title);
  const reason = fsisText(record.field_recall_reason);
  const productLines = fsisList(record.field_product_items).flatMap((v) => htmlToLines(v));

  // Public anyway: a contact part also found here (the firm's name) is not personal.
  const publicText = [
    title,
    fsisText(record.field_establishment),
    reason,
    fsisText(record.field_processing),
    fsisText(record.field_states),
    ...productLines,
  ]
    .filter((t): t is string => t !== null)
    .join('\n');
  const sensitive = contactParts(
    [...fsisList(record.field_company_media_contact), ...fsisList(record.field_media_contact)],
    publicText,
  );
  const summaryLines = pressReleaseLines(record.field_summary, sensitive);
  // Product names ("Fire-Roasted …") would mislead the hazard reading.
  const products = new Set(productLines);
  const narrative = summaryLines.filter((line) => !products.has(line));
  const language = isEnglish(record) ? null : record.langcode.trim() || 'Unknown language';

  return {
    recordId,
    title: title === null || language === null ? title : `[${language}] ${title}`,
    summary: summaryLines.length === 0 ? null : summaryLines.join('\n'),
    hazard: { category: fsisHazard(reason, title, narrative), text: reason },
    product: { category: 'food', brands: [], models: [] },
    severity: fsisSeverity(record),
    source_classification:
      plainText(record.field_recall_classification) ?? plainText(record.field_risk_level),
    remedy: fsisRemedy(adviceLines(summaryLines)),
    recall_date: fsisDate(record.field_recall_date),
    published_date: fsisDate(record.field_recall_date),
    countries: ['US'],
    url: fsisUrl(record.field_recall_url),
    identifiers: mergeIdentifiers(
      ...[title ?? '', ...productLines, ...summaryLines].map((line) =>
        extractLabelledIdentifiers(line, { kinds: KINDS }),
      ),
    ),
  };
}

/** The newest `field_last_modified_date` or `field_recall_date` (the array has no stamp); null if none. */
export function fsisDataAsOf(records: readonly FsisRecord[]): string | null {
  return latestIso(
    records.flatMap((r) => [fsisDate(r.field_last_modified_date), fsisDate(r.field_recall_date)]),
  );
}
