/** One ACCC feed item, with its notice page when it was read → one RecallDraft. Pure (readme.md, "Mapping"). */
import { classifyHazard } from '../../hazard-texts.ts';
import { isPlaceholder } from '../../../domain/identifiers/text-codes.ts';
import type { RecallDraft } from '../../../domain/recall.ts';
import { classifyRemedy } from '../../../domain/remedy-rules.ts';
import { codeFieldIdentifiers } from '../../extract/field-codes.ts';
import { extractLabelledIdentifiers, mergeIdentifiers } from '../../extract/labelled-identifiers.ts';
import { acccDate } from './dates.ts';
import { fieldText, fieldTimes, parseHtml } from './notice-html.ts';
import type { NoticePage } from './notice-page.ts';
import type { FeedItem } from './schema.ts';

/** The blocks a feed item's `description` carries (the real feed: these and an image link only). */
const FEED = {
  published: 'psa-recall-published-date',
  description: 'psa-recall-product-desc',
  defects: 'psa-recall-product-defects',
  hazards: 'psa-recall-hazards',
  action: 'psa-recall-consumer-action',
} as const;

/** The item's own id: its `guid` (a UUID in the real feed), else its link. */
export function itemId(item: FeedItem): string {
  return item.guid?.trim() || item.link.trim();
}

/** A model field's values: parenthesised colours and notes left out ("C10930 (Light Grey), C10931"). */
function modelValues(model: string | null): string | null {
  if (model === null) return null;
  const bare = model
    .replace(/\([^()]*\)/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .replace(/\s+,/g, ',')
    .trim();
  return bare === '' ? null : bare;
}

/**
 * Maps a feed item to a draft; `notice`, its notice page, adds the PRA number (then the record id, the
 * item's own id kept as its former id), brand, model and the labelled codes of "Other identifying numbers".
 */
export function normaliseItem(item: FeedItem, notice?: NoticePage): RecallDraft {
  const feed = parseHtml(item.description ?? '');
  const hazards = notice?.hazards ?? fieldText(feed, FEED.hazards);
  const defects = notice?.defects ?? fieldText(feed, FEED.defects);
  const action = notice?.action ?? fieldText(feed, FEED.action);
  const description = notice?.description ?? fieldText(feed, FEED.description);
  const brand = notice?.brand ?? null;
  const models = codeFieldIdentifiers(modelValues(notice?.model ?? null), 'model');
  const prose = [notice?.otherIdentifying ?? null, description]
    .filter((t): t is string => t !== null)
    .map((t) => extractLabelledIdentifiers(t));
  const date =
    acccDate(fieldTimes(feed, FEED.published)[0]) ??
    acccDate(fieldText(feed, FEED.published)) ??
    notice?.published ??
    acccDate(item.pubDate);
  const category = item.category?.map((c) => c.trim()).find((c) => c !== '') ?? notice?.categories[0] ?? null;
  const own = itemId(item);
  const link = item.link.trim();

  return {
    recordId: notice?.praNumber ?? own,
    ...(notice?.praNumber ? { formerRecordIds: [own] } : {}),
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
    url: /^https?:\/\//i.test(link) ? link : null,
    identifiers: mergeIdentifiers(models.identifiers, ...prose),
  };
}
