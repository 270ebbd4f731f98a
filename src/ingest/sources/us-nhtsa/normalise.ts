/**
 * FLAT_RCL rows (one per campaign × make × model × year × component) → one RecallDraft per campaign.
 * Every choice is order-independent, so reordered rows never amend a record. Pure.
 */
import { compactToIsoDate } from '../../../domain/dates.ts';
import { classifyHazard } from '../../hazard-texts.ts';
import { cleanText, normaliseIdentifier, stripLabel } from '../../../domain/identifiers/index.ts';
import type { Identifier, RecallDraft } from '../../../domain/recall.ts';
import { classifyRemedy } from '../../../domain/remedy-rules.ts';
import type { HazardCategory, Severity } from '../../../domain/taxonomy.ts';
import { decodeEntitiesOnce } from '../../extract/html-text.ts';
import { extractLabelledIdentifiers, mergeIdentifiers } from '../../extract/labelled-identifiers.ts';
import { clipAtWord } from '../../extract/titles.ts';
import type { FlatRclRow } from './schema.ts';

const TITLE_MAX = 160;
/** Vehicles named in a title before "and N more". */
const TITLE_VEHICLES = 2;
/** `YEARTXT` for an unknown or not applicable model year. */
const UNKNOWN_YEAR = '9999';

/** `RCLTYPECD` → product category. */
const CATEGORY_BY_RECALL_TYPE: Readonly<Record<string, string>> = {
  V: 'vehicles',
  E: 'vehicle_equipment',
  T: 'tires',
  C: 'child_restraints',
};

/** The campaign's public page on nhtsa.gov. */
export function nhtsaRecallUrl(campno: string): string {
  return `https://www.nhtsa.gov/recalls?nhtsaId=${encodeURIComponent(campno)}`;
}

/** A narrative as text: HTML tags (`<A HREF=…>`) dropped, entities decoded, wording as served. */
export function narrativeText(value: string): string {
  return decodeEntitiesOnce(value.replace(/<\/?[A-Za-z][^<>]*>/g, '').replace(/&nbsp;/gi, ' ')).trim();
}

/** YYYYMMDD → YYYY-MM-DD for plausible recall dates; sentinels (19010101, 11111111) and typos are null. */
export function nhtsaDate(value: string): string | null {
  const iso = compactToIsoDate(value);
  if (iso === null) return null;
  const year = Number(iso.slice(0, 4));
  return year >= 1960 && year <= 2100 ? iso : null;
}

function modelYear(value: string): number | null {
  if (value === UNKNOWN_YEAR || !/^\d{4}$/.test(value)) return null;
  const year = Number(value);
  return year >= 1900 && year <= 2100 ? year : null;
}

/** A detached copy: a V8 substring would keep the whole file slice it was cut from in memory. */
function detach(value: string): string {
  return value.length < 16 ? value : (' ' + value).slice(1);
}

/** Of two versions of a campaign-level text, the longer; the smaller in code-unit order on a tie. */
function pickText(kept: string, candidate: string): string {
  if (kept.length === candidate.length ? kept <= candidate : kept.length > candidate.length) return kept;
  return detach(candidate);
}

function minDate(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a < b ? a : b;
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** What the rows of one campaign add up to. */
interface Campaign {
  campno: string;
  makes: Set<string>;
  /** `MAKE MODEL` */
  vehicles: Set<string>;
  /** `MAKE MODEL YEAR` (or `MAKE MODEL` when the year is unknown) */
  models: Set<string>;
  minYear: number | null;
  maxYear: number | null;
  /** COMPNAME → number of rows naming it. */
  components: Map<string, number>;
  recallTypes: Set<string>;
  reportReceived: string | null;
  recordCreated: string | null;
  defect: string;
  consequence: string;
  correctiveAction: string;
  partNumbers: Set<string>;
  doNotDrive: boolean;
  parkOutside: boolean;
}

/** Merges rows into campaigns; `drafts()` then gives one draft per campaign. */
export class CampaignMerger {
  private readonly campaigns = new Map<string, Campaign>();
  private newestRecord: string | null = null;
  /** nhtsaDate per raw value: a few thousand distinct dates over some 240,000 rows. */
  private readonly dates = new Map<string, string | null>();

  private date(value: string): string | null {
    let iso = this.dates.get(value);
    if (iso === undefined) {
      iso = nhtsaDate(value);
      this.dates.set(value, iso);
    }
    return iso;
  }

  add(row: FlatRclRow): void {
    let c = this.campaigns.get(row.campno);
    if (c === undefined) {
      c = {
        campno: detach(row.campno),
        makes: new Set(),
        vehicles: new Set(),
        models: new Set(),
        minYear: null,
        maxYear: null,
        components: new Map(),
        recallTypes: new Set(),
        reportReceived: null,
        recordCreated: null,
        defect: '',
        consequence: '',
        correctiveAction: '',
        partNumbers: new Set(),
        doNotDrive: false,
        parkOutside: false,
      };
      this.campaigns.set(c.campno, c);
    }
    const vehicle = [row.make, row.model].filter((s) => s !== '').join(' ');
    if (row.make !== '' && !c.makes.has(row.make)) c.makes.add(detach(row.make));
    if (vehicle !== '') {
      c.vehicles.add(vehicle);
      const year = modelYear(row.year);
      c.models.add(year === null ? vehicle : `${vehicle} ${year}`);
      if (year !== null) {
        c.minYear = c.minYear === null ? year : Math.min(c.minYear, year);
        c.maxYear = c.maxYear === null ? year : Math.max(c.maxYear, year);
      }
    }
    if (row.component !== '') {
      const seen = c.components.get(row.component);
      if (seen === undefined) c.components.set(detach(row.component), 1);
      else c.components.set(row.component, seen + 1);
    }
    if (row.recallType !== '') c.recallTypes.add(row.recallType);
    const received = this.date(row.reportReceived);
    const created = this.date(row.recordCreated);
    c.reportReceived = minDate(c.reportReceived, received);
    c.recordCreated = minDate(c.recordCreated, created);
    if (created !== null && (this.newestRecord === null || created > this.newestRecord)) {
      this.newestRecord = created;
    }
    c.defect = pickText(c.defect, row.defect);
    c.consequence = pickText(c.consequence, row.consequence);
    c.correctiveAction = pickText(c.correctiveAction, row.correctiveAction);
    if (row.partNumber !== '' && !c.partNumbers.has(row.partNumber))
      c.partNumbers.add(detach(row.partNumber));
    c.doNotDrive ||= row.doNotDrive;
    c.parkOutside ||= row.parkOutside;
  }

  /** The newest record creation date (DATEA) seen: the file's own freshness stamp. */
  dataAsOf(): string | null {
    return this.newestRecord;
  }

  /** One draft per campaign, in campaign-number order. */
  drafts(): RecallDraft[] {
    return [...this.campaigns.values()]
      .sort((a, b) => byCodeUnit(a.campno, b.campno))
      .map((c) => campaignDraft(c));
  }
}

/** The component most rows name (the first in code-unit order on a tie). */
function mainComponent(components: ReadonlyMap<string, number>): string | null {
  let best: string | null = null;
  let bestCount = 0;
  for (const [name, count] of components) {
    if (count > bestCount || (count === bestCount && best !== null && name < best)) {
      best = name;
      bestCount = count;
    }
  }
  return best;
}

/** `MAKE MODEL, MAKE MODEL and 3 more (2019-2021): COMPONENT (+1 more)`, at most 160 characters. */
function campaignTitle(c: Campaign): string | null {
  const vehicles = [...c.vehicles].sort(byCodeUnit);
  let head = vehicles.slice(0, TITLE_VEHICLES).join(', ');
  if (vehicles.length > TITLE_VEHICLES) head += ` and ${vehicles.length - TITLE_VEHICLES} more`;
  if (c.minYear !== null && c.maxYear !== null) {
    head += c.minYear === c.maxYear ? ` (${c.minYear})` : ` (${c.minYear}-${c.maxYear})`;
  }
  const component = mainComponent(c.components);
  let tail = component ?? '';
  if (component !== null && c.components.size > 1) tail += ` (+${c.components.size - 1} more)`;
  let title = head !== '' && tail !== '' ? `${head}: ${tail}` : head || tail;
  if (title.length > TITLE_MAX) title = clipAtWord(title, TITLE_MAX).replace(/[\s,;:(-]+$/, '');
  return title === '' ? null : title;
}

/** The hazard named by the consequence summary, else (none or empty, as on older records) the defect's. */
function campaignHazard(consequence: string, defect: string): HazardCategory | null {
  const fromConsequence = classifyHazard(consequence || null);
  if (fromConsequence !== null && fromConsequence !== 'other') return fromConsequence;
  return classifyHazard(defect || null) ?? fromConsequence;
}

/** NHTSA's own consumer advisories, as its site words them. */
function advisories(c: Campaign): string[] {
  const out: string[] = [];
  if (c.doNotDrive) out.push('Do Not Drive');
  if (c.parkOutside) out.push('Park Outside');
  return out;
}

/** Years and year ranges are never part or model numbers. */
const YEARLIKE = /^(?:19|20)\d{2}(?:[-/](?:19|20)?\d{2})?$/;
/** One part number as a token: letters and digits with inner `-`, `.`, `/`, `_`; no spaces. */
const PART_TOKEN = /^[A-Za-z0-9](?:[A-Za-z0-9._/-]*[A-Za-z0-9])?$/;
/** Separators of a list of part numbers in MFR_COMP_PTNO. */
const PART_SEPARATOR = /\s*[,;|\n]\s*|\s+\/\s+|\s+(?:and|or|&)\s+/i;

/**
 * Part numbers from MFR_COMP_PTNO: a dedicated field, so `exact`, kind `model` (the contract has no
 * part kind). Clean tokens only: no spaces, a digit, not a year, placeholder or short number.
 */
export function partNumberIdentifiers(values: Iterable<string>): Identifier[] {
  const out: Identifier[] = [];
  for (const value of values) {
    for (const item of value.split(PART_SEPARATOR)) {
      const printed = item.trim();
      const token = stripLabel(cleanText(printed)).value;
      if (!PART_TOKEN.test(token) || !/\d/.test(token) || YEARLIKE.test(token)) continue;
      const n = normaliseIdentifier('model', token);
      if (!n.ok || n.normalized.length < 4 || (/^\d+$/.test(n.normalized) && n.normalized.length < 5))
        continue;
      out.push({ kind: 'model', value: printed, normalized: n.normalized, confidence: 'exact' });
    }
  }
  return out;
}

/** Campaign types whose product is an item sold on its own: equipment, tires, child restraints. */
const ITEM_RECALL_TYPES = new Set(['E', 'T', 'C']);

/**
 * Labelled identifiers in the defect summary of item campaigns (`inferred`). Vehicle campaigns are
 * skipped ("MODEL" is a trim there); so are corrective actions (safe replacement parts) and notes (contacts).
 */
function proseIdentifiers(c: Campaign, defect: string): Identifier[] {
  if (defect === '' || ![...c.recallTypes].some((t) => ITEM_RECALL_TYPES.has(t))) return [];
  const kinds = ['model', 'lot', 'batch', 'upc', 'ean', 'gtin'] as const;
  return extractLabelledIdentifiers(defect, { kinds }).filter(
    (id) => !(id.kind === 'model' && YEARLIKE.test(id.normalized)),
  );
}

function campaignDraft(c: Campaign): RecallDraft {
  const defect = narrativeText(c.defect);
  const consequence = narrativeText(c.consequence);
  const correctiveAction = narrativeText(c.correctiveAction);
  const advice = advisories(c);
  const severity: Severity = advice.length > 0 ? 'serious' : 'unknown';
  const recallType = [...c.recallTypes].sort(byCodeUnit)[0];
  return {
    recordId: c.campno,
    title: campaignTitle(c),
    summary: defect || null,
    hazard: { category: campaignHazard(consequence, defect), text: consequence || null },
    product: {
      category: recallType === undefined ? null : (CATEGORY_BY_RECALL_TYPE[recallType] ?? null),
      brands: [...c.makes].sort(byCodeUnit),
      models: [...c.models].sort(byCodeUnit),
    },
    severity,
    source_classification: advice.length > 0 ? advice.join('; ') : null,
    // A remedy the manufacturer offers (repair, replace, refund) wins over the advice to stop driving.
    remedy: classifyRemedy([correctiveAction, ...advice]),
    recall_date: c.reportReceived,
    published_date: c.recordCreated,
    countries: ['US'],
    url: nhtsaRecallUrl(c.campno),
    identifiers: mergeIdentifiers(partNumberIdentifiers(c.partNumbers), proseIdentifiers(c, defect)),
  };
}
