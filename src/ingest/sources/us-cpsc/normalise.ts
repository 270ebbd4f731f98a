/** One CPSC record → one RecallDraft. Pure. Contacts, injuries and firm lists are never read. */
import { maskEmails } from '../../../domain/personal-data.ts';
import { classifyHazard } from '../../hazard-texts.ts';
import { isCalendarDate } from '../../../domain/dates.ts';
import type { IdentifierKind } from '../../../domain/identifiers/kinds.ts';
import type { Identifier, RecallDraft } from '../../../domain/recall.ts';
import { classifyRemedy, firstConcreteRemedy } from '../../../domain/remedy-rules.ts';
import type { Remedy } from '../../../domain/taxonomy.ts';
import { exactIdentifiers } from '../../extract/field-codes.ts';
import {
  extractLabelledIdentifiers,
  mergeIdentifiers,
  withoutLotsThatAreModels,
} from '../../extract/labelled-identifiers.ts';
import type { CpscRecord } from './schema.ts';

/** CPSC's `RemedyOptions[].Option` labels, lower-cased, mapped to the contract. */
const REMEDY_BY_OPTION: Readonly<Record<string, Remedy>> = {
  refund: 'refund',
  replace: 'replace',
  repair: 'repair',
  dispose: 'dispose',
  // A corrected label the consumer applies fixes the product in place, like a repair kit.
  label: 'repair',
  // Neither fixes, swaps nor refunds the product.
  'new instructions': 'other',
  inspect: 'other',
};

function text(value: string | null | undefined): string | null {
  const t = (value ?? '').trim();
  return t === '' ? null : t;
}

function members<T>(
  list: readonly T[] | null | undefined,
  pick: (item: T) => string | null | undefined,
): string[] {
  return (list ?? []).map((item) => text(pick(item))).filter((t): t is string => t !== null);
}

/** `YYYY-MM-DDT00:00:00` (zoneless, as CPSC writes) → `YYYY-MM-DD`; null when no real day. */
export function cpscDate(value: string | null | undefined): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$/.exec((value ?? '').trim());
  return m?.[1] !== undefined && isCalendarDate(m[1]) ? m[1] : null;
}

/** The recall page's address percent-encoded (CPSC leaves spaces in some); null unless http(s). */
export function cpscUrl(value: string | null | undefined): string | null {
  const raw = text(value);
  if (raw === null) return null;
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/** CPSC's own labels first (best by precedence); if none is known (`R`, a sentence), the shared rules. */
export function cpscRemedy(options: readonly string[], remedyProse: readonly string[]): Remedy {
  const mapped: Remedy[] = [];
  const unknown: string[] = [];
  for (const option of options) {
    const remedy = REMEDY_BY_OPTION[option.trim().toLowerCase()];
    if (remedy === undefined) unknown.push(option);
    else mapped.push(remedy);
  }
  if (mapped.length > 0) return firstConcreteRemedy(mapped);
  return classifyRemedy([...unknown, ...remedyProse]);
}

function dedicated(kind: IdentifierKind, values: readonly string[]): Identifier[] {
  return exactIdentifiers(
    kind,
    values.flatMap((v) => v.split(/[,;]/)).map((v) => v.trim()),
  );
}

/** Whether a prose model is a misreading: a measure ("52.5 LB"), "12-Gun", or a model-year table's year. */
export function isProseModelNoise(value: string, description: string): boolean {
  if (/^\d+\.\d+$/.test(value)) return true;
  if (/^\d+-[A-Z]?[a-z]{2,}$/.test(value)) return true;
  return /^(?:19|20)\d{2}$/.test(value) && /\bmodel years?\b/i.test(description);
}

/** The prose a person reads on the recall page, one text per field (no contacts, firms or injuries). */
function cpscProse(record: CpscRecord): string[] {
  return [
    record.Title,
    record.Description,
    ...(record.Products ?? []).flatMap((p) => [p.Name, p.Description]),
    ...(record.Images ?? []).map((i) => i.Caption),
    ...(record.Remedies ?? []).map((r) => r.Name),
  ].filter((t): t is string => typeof t === 'string' && t.trim() !== '');
}

/** Identifiers from the dedicated fields (`exact`) and labelled values in the prose a person reads. */
export function cpscIdentifiers(record: CpscRecord): Identifier[] {
  const prose = cpscProse(record).flatMap((text) =>
    extractLabelledIdentifiers(text).filter(
      (id) => id.kind !== 'model' || !isProseModelNoise(id.value, text),
    ),
  );
  return withoutLotsThatAreModels(
    mergeIdentifiers(
      dedicated(
        'model',
        members(record.Products, (p) => p.Model),
      ),
      dedicated(
        'upc',
        members(record.ProductUPCs, (u) => u.UPC),
      ),
      prose,
    ),
  );
}

/** Maps one CPSC recall record to a recall draft. */
export function normaliseCpscRecord(record: CpscRecord): RecallDraft {
  const hazards = members(record.Hazards, (h) => h.Name);
  const hazardText = hazards.length === 0 ? null : hazards.join(' ');
  const identifiers = cpscIdentifiers(record);

  return {
    // The API's own integer key, on every record (readme.md, "Record id").
    recordId: String(record.RecallID),
    title: text(record.Title),
    // Descriptions occasionally list sellers' e-mail addresses: personal data, masked.
    summary: maskEmails(text(record.Description)),
    hazard: { category: classifyHazard(hazardText), text: hazardText },
    product: {
      category: 'consumer_products',
      // CPSC has no brand field: product names and firm names are not brands.
      brands: [],
      models: identifiers.filter((i) => i.kind === 'model').map((i) => i.value),
    },
    // CPSC does not grade recalls (readme.md, "Severity").
    severity: 'unknown',
    source_classification: null,
    remedy: cpscRemedy(
      members(record.RemedyOptions, (o) => o.Option),
      members(record.Remedies, (r) => r.Name),
    ),
    recall_date: cpscDate(record.RecallDate),
    published_date: cpscDate(record.LastPublishDate),
    countries: ['US'],
    url: cpscUrl(record.URL),
    identifiers,
  };
}
