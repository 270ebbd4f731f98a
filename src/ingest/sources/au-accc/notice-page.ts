/**
 * One recall notice page of productsafety.gov.au (an item's `link`), read as served: the field blocks
 * the feed leaves out. Field names as the two real pages show them (readme.md, "Notice pages").
 */
import { DomUtils } from 'htmlparser2';
import { countryCode } from '../../../domain/countries.ts';
import { formatError } from '../../errors.ts';
import { acccDate } from './dates.ts';
import { fieldNames, fieldText, fieldTexts, fieldTimes, parseHtml } from './notice-html.ts';

/** What a notice page says beyond the feed. Text fields are visible text; null or empty when absent. */
export interface NoticePage {
  /** The bare PRA number as printed (`2026/21039`). */
  praNumber: string | null;
  /** `<link rel="canonical">`. */
  canonical: string | null;
  published: string | null;
  /** The "Topics" badges, in page order. */
  categories: string[];
  description: string | null;
  defects: string | null;
  hazards: string | null;
  /** "What consumers should do", its contact block included: read to classify the remedy only. */
  action: string | null;
  brand: string | null;
  /** The model field as printed ("C10930 (Light Grey), C10931 (Dark Grey)"). */
  model: string | null;
  /** "Other identifying numbers" as printed. */
  otherIdentifying: string | null;
  /** "Who is running the recall": a firm. */
  supplier: string | null;
  /** "Who sold the product": firms. */
  traders: string[];
  /** "Dates available for sale", each end `YYYY-MM-DD` or null. */
  saleDates: { from: string | null; to: string | null } | null;
  /** "Where the product was sold" ("Nationally", "Online"). */
  whereSold: string[];
  /** "Manufacturer country ID", as ISO codes where the name is known, else as printed. */
  originCountries: string[];
}

/** Largest notice page read: the two real pages are 78 and 80 KB. */
export const NOTICE_MAX_BYTES = 2 * 2 ** 20;

const PRA = /\b(\d{4})\s*\/\s*(\d{3,6})\b/;

/** The field blocks (`psa-recall-<name>` unless named whole). */
const F = {
  pra: 'psa-recall-pra-number',
  published: 'psa-recall-published-date',
  category: 'psa-product-category',
  description: 'psa-recall-product-desc',
  defects: 'psa-recall-product-defects',
  hazards: 'psa-recall-hazards',
  action: 'psa-recall-consumer-action',
  brand: 'psa-recall-brand',
  model: 'psa-recall-model',
  other: 'psa-recall-other-identify',
  supplier: 'psa-recall-supplier-name',
  traders: 'psa-recall-traders',
  saleDates: 'psa-recall-sale-dates',
  sold: 'psa-recall-location-sold',
  country: 'psa-recall-country-id',
} as const;

/**
 * Reads a notice page. A page with no PRA number and no title, description or hazards block is not a
 * notice page (a login page, an error page served as 200): a format error.
 */
export function readNoticePage(body: Buffer | string, url?: string): NoticePage {
  const doc = parseHtml(body);
  const names = fieldNames(doc);
  const known = [F.pra, F.description, F.hazards, F.defects];
  if (!known.some((n) => names.includes(n))) {
    throw formatError('ACCC notice page has none of the PRA number, product or hazard blocks', url);
  }
  const pra = PRA.exec(fieldText(doc, F.pra) ?? '');
  const canonical = DomUtils.findOne(
    (el) => el.name === 'link' && el.attribs.rel === 'canonical',
    doc.children,
    true,
  );
  const [from, to] = fieldTimes(doc, F.saleDates).map((t) => acccDate(t));
  return {
    praNumber: pra ? `${pra[1]}/${pra[2]}` : null,
    canonical: canonical?.attribs.href ?? null,
    published: acccDate(fieldTimes(doc, F.published)[0]) ?? acccDate(fieldText(doc, F.published)),
    categories: fieldTexts(doc, F.category),
    description: fieldText(doc, F.description),
    defects: fieldText(doc, F.defects),
    hazards: fieldText(doc, F.hazards),
    action: fieldText(doc, F.action),
    brand: fieldText(doc, F.brand),
    model: fieldText(doc, F.model),
    otherIdentifying: fieldText(doc, F.other),
    supplier: fieldTexts(doc, F.supplier)[0] ?? null,
    traders: fieldTexts(doc, F.traders),
    saleDates: from === undefined ? null : { from: from ?? null, to: to ?? null },
    whereSold: fieldTexts(doc, F.sold),
    originCountries: fieldTexts(doc, F.country).map((c) => countryCode(c) ?? c),
  };
}
