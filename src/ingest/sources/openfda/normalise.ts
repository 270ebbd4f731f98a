/** One openFDA enforcement record (food, drug or device: one shape) → one RecallDraft. Pure. */
import { compactToIsoDate } from '../../../domain/dates.ts';
import { classifyHazard } from '../../hazard-texts.ts';
import type { Identifier, RecallDraft } from '../../../domain/recall.ts';
import type { Severity } from '../../../domain/taxonomy.ts';
import { exactIdentifiers } from '../../extract/field-codes.ts';
import { mergeIdentifiers } from '../../extract/labelled-identifiers.ts';
import { clipAtWord } from '../../extract/titles.ts';
import { fieldIdentifiers, saysFollowedBy } from './lot-rules.ts';
import type { OpenFdaRecord } from './schema.ts';

/** The three openFDA enforcement endpoints (`/food/enforcement.json` …). */
export type OpenFdaProductPath = 'food' | 'drug' | 'device';

const TITLE_MAX = 120;

/** FDA recall classes; the class text is also kept verbatim as `source_classification`. */
const SEVERITY_BY_CLASS: Readonly<Record<string, Severity>> = {
  'class i': 'serious',
  'class ii': 'medium',
  'class iii': 'low',
};

const CATEGORY_BY_PRODUCT_TYPE: Readonly<Record<string, string>> = {
  food: 'food',
  drugs: 'drugs',
  devices: 'medical_devices',
};

/** Abbreviations after which a full stop does not end the product name ("Park St. Deli"). */
const ABBREVIATION =
  /(?:^|[\s(,.])(?:co|inc|ltd|corp|llc|no|nos|st|dr|mr|mrs|ms|jr|sr|mt|ft|oz|fl|lb|lbs|wt|net|vol|approx|ea|pk|ct|dept|intl|bros|u\.s|d\.c|e\.g|i\.e|vs|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|[a-z])$/i;

function text(value: string | null | undefined): string | null {
  return value === undefined || value === null || value === '' ? null : value;
}

/** Identifier labels that end a product name: "… containers UPC 4122033749", "… chair Model 880505-01". */
const LABEL_BREAK =
  /\s(?:UPC|NDC|GTIN|EAN|REF|Lot|Model|Catalog|Cat#|Item No|Item Number|Product Code)(?![A-Za-z])/;

/** The characters at which a clause can end (each is examined further below). */
const BREAK_CANDIDATE = /[,;:.\s]/;

/** Short product name: the description's first clause outside brackets, ≤ 120 chars at a word boundary. */
export function productTitle(description: string | null | undefined): string | null {
  const d = (description ?? '').trim();
  if (d === '') return null;
  let depth = 0;
  let cut = d.length;
  const label = LABEL_BREAK.exec(d);
  if (label && label.index > 0 && d.slice(0, label.index).trim().split(/\s+/).length >= 2) cut = label.index;
  for (let i = 0; i < cut; i++) {
    const c = d.charAt(i);
    if (c === '(' || c === '[') depth++;
    else if ((c === ')' || c === ']') && depth > 0) depth--;
    if (depth > 0 || !BREAK_CANDIDATE.test(c)) continue;
    const next = d.charAt(i + 1);
    const before = d.slice(0, i);
    if (c === ',' || c === ';') {
      // "1,000" and "Co.,Ltd.": not a clause break.
      if (/\d$/.test(before) && /\d/.test(next)) continue;
      if (before.endsWith('.') && ABBREVIATION.test(before.slice(0, -1))) continue;
      cut = i;
      break;
    }
    if (c === ':' && /\s/.test(next)) {
      cut = i;
      break;
    }
    if (c === '.' && (/\s/.test(next) || next === '') && !ABBREVIATION.test(before)) {
      cut = i;
      break;
    }
    // Enforcement descriptions separate parts with runs of spaces ("Velvet Dutch Chocolate  3 Gallon Tub").
    if (/\s/.test(c) && /\s/.test(next) && before.trim().split(/\s+/).length >= 3) {
      cut = i;
      break;
    }
  }
  const clipped = clipAtWord(d.slice(0, cut).replace(/\s+/g, ' ').trim(), TITLE_MAX);
  const title = clipped.replace(/[\s,;:.\-\u2013\u2014]+$/, '');
  return title === '' ? null : title;
}

/** Severity from the FDA class (`Class I` → `serious` …); `unknown` when not a class. */
export function openFdaSeverity(classification: string | null | undefined): Severity {
  return SEVERITY_BY_CLASS[(classification ?? '').trim().toLowerCase()] ?? 'unknown';
}

/** The public address of one record: the API query for its recall number. */
export function openFdaRecordUrl(productPath: OpenFdaProductPath, recallNumber: string): string {
  return `https://api.fda.gov/${productPath}/enforcement.json?search=recall_number:%22${encodeURIComponent(recallNumber)}%22`;
}

/** Identifiers from the harmonised `openfda` arrays: dedicated fields, so `exact`. */
function dedicatedIdentifiers(record: OpenFdaRecord): Identifier[] {
  return [
    ...exactIdentifiers('upc', record.openfda?.upc ?? []),
    ...exactIdentifiers('ndc', record.openfda?.package_ndc ?? []),
    ...exactIdentifiers('ndc', record.openfda?.product_ndc ?? []),
  ];
}

/** Maps one openFDA enforcement record to a recall draft. */
export function normaliseOpenFdaRecord(record: OpenFdaRecord, productPath: OpenFdaProductPath): RecallDraft {
  const reason = text(record.reason_for_recall);
  const brands = [
    ...new Set((record.openfda?.brand_name ?? []).map((b) => b.trim()).filter((b) => b !== '')),
  ];
  // Codes from these fields only: those the reason names belong to the recall event's other products.
  // `more_code_info` continues `code_info`: a "may be followed by" there covers the lots before it.
  const footnoteAfter = saysFollowedBy(record.more_code_info) && !saysFollowedBy(record.code_info);
  const prose = [record.product_description, record.code_info, record.more_code_info].map((t, i) =>
    typeof t === 'string' && t !== '' ? fieldIdentifiers(t, { footnoteAfter: i === 1 && footnoteAfter }) : [],
  );

  return {
    recordId: record.recall_number,
    title: productTitle(record.product_description),
    summary: reason,
    hazard: { category: classifyHazard(reason), text: reason },
    product: {
      category: CATEGORY_BY_PRODUCT_TYPE[(record.product_type ?? '').trim().toLowerCase()] ?? null,
      brands,
      models: [],
    },
    severity: openFdaSeverity(record.classification),
    source_classification: text(record.classification),
    // openFDA enforcement reports carry no remedy field; the action is not guessed.
    remedy: 'unknown',
    recall_date: compactToIsoDate(record.recall_initiation_date),
    published_date: compactToIsoDate(record.report_date),
    countries: ['US'],
    url: openFdaRecordUrl(productPath, record.recall_number),
    identifiers: mergeIdentifiers(dedicatedIdentifiers(record), ...prose),
  };
}
