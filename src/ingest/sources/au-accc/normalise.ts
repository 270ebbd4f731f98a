/** One ACCC feed item → one RecallDraft. Pure. The notice's field names are assumptions (readme.md). */
import { calendarDate } from '../../../domain/dates.ts';
import { classifyHazard } from '../../../domain/hazard-rules.ts';
import { isPlaceholder } from '../../../domain/identifiers/text-codes.ts';
import type { RecallDraft } from '../../../domain/recall.ts';
import { classifyRemedy } from '../../../domain/remedy-rules.ts';
import { extractLabelledIdentifiers, mergeIdentifiers } from '../../extract/labelled-identifiers.ts';
import { barcodeFieldIdentifiers, codeFieldIdentifiers } from '../../extract/field-codes.ts';
import { htmlText, noticeFields } from './notice-html.ts';
import type { FeedItem } from './schema.ts';

/** The notice fields read, by their CMS names (`field--name-field-psa-recall-<name>`). */
export const FIELD = {
  pra: 'pra-number',
  published: 'published-date',
  description: 'product-desc',
  defects: 'product-defects',
  hazards: 'hazards',
  action: 'consumer-action',
  brand: 'brand',
  model: 'model',
  gtin: 'gtin',
  ean: 'ean',
  identifying: 'ident-features',
} as const;

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

const PRA_NUMBER = /\b(\d{4})\s*\/\s*(\d{3,6})\b/;
const PRA_IN_TEXT = /\bPRA\s*(?:number|no\.?)?\s*[:#]?\s*(\d{4})\s*\/\s*(\d{3,6})\b/i;

/**
 * `YYYY-MM-DD` from an ISO date(-time), an RSS date (`Tue, 10 Mar 2026 09:00:00 +1100`, the day as
 * written, i.e. Australian) or a long date (`12 March 2026`); null when none.
 */
export function acccDate(value: string | null | undefined): string | null {
  const v = (value ?? '').trim();
  let m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]|$)/.exec(v);
  if (m) return calendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /(?:^|\s|,)(\d{1,2})\s+([A-Za-z]{3,9})\.?\s+(\d{4})\b/.exec(v);
  if (m) {
    const month = MONTHS[m[2]!.slice(0, 3).toLowerCase()];
    return month === undefined ? null : calendarDate(Number(m[3]), month, Number(m[1]));
  }
  return null;
}

/** The PRA number (`PRA 2026/20123`) from its field or labelled text, else the `guid`, else the link. */
export function acccRecordId(item: FeedItem, fields: Map<string, string[]>, noticeText: string): string {
  const praField = (fields.get(FIELD.pra) ?? []).map(htmlText).join(' ');
  const m = PRA_NUMBER.exec(praField) ?? PRA_IN_TEXT.exec(noticeText) ?? PRA_IN_TEXT.exec(item.title);
  if (m) return `PRA ${m[1]}/${m[2]}`;
  return item.guid?.trim() || item.link.trim();
}

function fieldText(fields: Map<string, string[]>, name: string): string | null {
  const text = (fields.get(name) ?? [])
    .map(htmlText)
    .filter((t) => t !== '')
    .join('\n');
  return text === '' ? null : text;
}

/** The published-date field (`<time datetime>` first), else `pubDate`. */
function publishedDate(item: FeedItem, fields: Map<string, string[]>): string | null {
  const raw = (fields.get(FIELD.published) ?? []).join(' ');
  const attr = /\bdatetime="([^"]+)"/i.exec(raw)?.[1];
  return acccDate(attr) ?? acccDate(htmlText(raw)) ?? acccDate(item.pubDate);
}

/** Maps one feed item to a recall draft. */
export function normaliseFeedItem(item: FeedItem): RecallDraft {
  const html = item.description ?? '';
  const fields = noticeFields(html);
  const noticeText = htmlText(html);
  const hazards = fieldText(fields, FIELD.hazards);
  const defects = fieldText(fields, FIELD.defects);
  const action = fieldText(fields, FIELD.action);
  const brand = fieldText(fields, FIELD.brand);
  const models = codeFieldIdentifiers(fieldText(fields, FIELD.model), 'model');
  const barcodes = [
    ...barcodeFieldIdentifiers(fieldText(fields, FIELD.gtin), 'gtin'),
    ...barcodeFieldIdentifiers(fieldText(fields, FIELD.ean), 'ean'),
  ];
  const prose = [fieldText(fields, FIELD.identifying), fieldText(fields, FIELD.description)]
    .filter((t): t is string => t !== null)
    .map((t) => extractLabelledIdentifiers(t));
  const date = publishedDate(item, fields);
  const category = item.category?.map((c) => c.trim()).find((c) => c !== '') ?? null;

  return {
    recordId: acccRecordId(item, fields, noticeText),
    title: item.title.replace(/\s+/g, ' ').trim(),
    summary: defects ?? hazards,
    hazard: {
      category: classifyHazard([hazards, defects].filter((t) => t !== null).join('\n') || null),
      text: hazards ?? defects,
    },
    product: {
      category,
      brands: brand === null || isPlaceholder(brand) ? [] : [brand],
      models: models.values,
    },
    // The ACCC publishes no risk grade.
    severity: 'unknown',
    source_classification: null,
    remedy: classifyRemedy(action),
    recall_date: date,
    published_date: date,
    countries: ['AU'],
    url: /^https?:\/\//i.test(item.link.trim()) ? item.link.trim() : null,
    identifiers: mergeIdentifiers(barcodes, models.identifiers, ...prose),
  };
}
