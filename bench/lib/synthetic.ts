/**
 * Deterministic synthetic recalls for the benchmarks: fictional records with the shapes of the
 * real feeds (the source mix, about five identifiers per recall in each source's mix of kinds,
 * publication dates skewed towards recent years, long prose where agencies write long prose).
 * Every identifier goes through the service's own normaliser, so what is stored is what
 * ingestion would store; the odd record also names a set of models or lots (a match rule: a
 * prefix `STEM*` or a range `FROM..TO`), as `prefixRule` and `rangeRule` store it.
 */
import { gs1CheckDigit } from '../../src/domain/identifiers/gs1-check-digits.ts';
import type { Confidence, IdentifierKind } from '../../src/domain/identifiers/kinds.ts';
import { prefixRule, rangeRule } from '../../src/domain/identifiers/match-rules.ts';
import { normaliseIdentifier } from '../../src/domain/identifiers/normalise.ts';
import { vinCheckDigit } from '../../src/domain/identifiers/vin.ts';
import type { Identifier, RecallDraft } from '../../src/domain/recall.ts';
import type { HazardCategory, Remedy, Severity } from '../../src/domain/taxonomy.ts';

/** A small, fast, seeded PRNG (mulberry32). */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  digits(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += String(this.int(10));
    return s;
  }
  alnum(n: number, alphabet = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789'): string {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[this.int(alphabet.length)];
    return s;
  }
}

type KindSpec = { kind: IdentifierKind; weight: number; confidence: Confidence };

export interface SourceShape {
  id: string;
  agency: string;
  jurisdiction: string;
  /** Share of today's ~200 000 records. */
  today: number;
  /** Mean identifiers per recall. */
  identifiers: number;
  kinds: KindSpec[];
  /** Characters of summary and hazard text (min, max): long where the agency writes long. */
  summary: [number, number];
  hazardText: [number, number];
  classes: { label: string | null; severity: Severity }[];
  categories: string[];
  countries: string[];
  remedies: Remedy[];
  /** The agency's record id from a running number over the source (`n`) or within the year (`seq`). */
  recordId: (n: number, seq: number, year: number) => string;
  url: (recordId: string) => string;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** The ten sources of the design, with their size today and the identifiers they publish. */
export const SOURCE_SHAPES: SourceShape[] = [
  {
    id: 'au-accc',
    agency: 'Australian Competition and Consumer Commission (Product Safety Australia)',
    jurisdiction: 'AU',
    today: 18_000,
    identifiers: 4,
    kinds: [
      { kind: 'model', weight: 5, confidence: 'exact' },
      { kind: 'gtin', weight: 3, confidence: 'extracted' },
      { kind: 'batch', weight: 2, confidence: 'inferred' },
    ],
    summary: [300, 900],
    hazardText: [80, 300],
    classes: [{ label: null, severity: 'unknown' }],
    categories: ['toys', 'electrical', 'furniture', 'vehicles', 'clothing'],
    countries: ['AU'],
    remedies: ['refund', 'replace', 'repair', 'stop_use'],
    recordId: (n) => `PRA-${pad(n, 7)}`,
    url: (id) => `https://www.productsafety.gov.au/recalls/${id}`,
  },
  {
    id: 'ca-hc',
    agency: 'Health Canada',
    jurisdiction: 'CA',
    today: 20_000,
    identifiers: 3,
    kinds: [
      { kind: 'upc', weight: 4, confidence: 'extracted' },
      { kind: 'model', weight: 3, confidence: 'exact' },
      { kind: 'lot', weight: 3, confidence: 'inferred' },
    ],
    summary: [200, 700],
    hazardText: [60, 240],
    classes: [
      { label: 'Type I', severity: 'serious' },
      { label: 'Type II', severity: 'medium' },
      { label: 'Type III', severity: 'low' },
    ],
    categories: ['consumer_products', 'food', 'health_products', 'vehicles'],
    countries: ['CA'],
    remedies: ['refund', 'replace', 'dispose', 'stop_use', 'unknown'],
    recordId: (n) => `RA-${pad(n, 8)}`,
    url: (id) => `https://recalls-rappels.canada.ca/en/alert-recall/${id.toLowerCase()}`,
  },
  {
    id: 'eu-safety-gate',
    agency: 'European Commission – Safety Gate',
    jurisdiction: 'EU',
    today: 35_000,
    identifiers: 4,
    kinds: [
      { kind: 'model', weight: 4, confidence: 'exact' },
      { kind: 'ean', weight: 4, confidence: 'exact' },
      { kind: 'batch', weight: 2, confidence: 'exact' },
    ],
    summary: [400, 1400],
    hazardText: [150, 600],
    classes: [
      { label: 'Serious risk', severity: 'serious' },
      { label: 'High risk', severity: 'high' },
      { label: 'Medium risk', severity: 'medium' },
      { label: 'Low risk', severity: 'low' },
    ],
    categories: ['toys', 'cosmetics', 'electrical_appliances', 'childcare', 'motor_vehicles', 'clothing'],
    countries: ['DE', 'FR', 'IT', 'ES', 'PL', 'NL', 'BE', 'SE', 'AT', 'CZ'],
    remedies: ['other', 'stop_use', 'refund', 'replace', 'dispose'],
    recordId: (_n, seq, year) => `A12/${pad(seq, 5)}/${String(year).slice(2)}`,
    url: (id) =>
      `https://ec.europa.eu/safety-gate-alerts/screen/webReport/alertDetail/${encodeURIComponent(id)}`,
  },
  {
    id: 'uk-fsa',
    agency: 'Food Standards Agency',
    jurisdiction: 'GB',
    today: 3_000,
    identifiers: 3,
    kinds: [
      { kind: 'batch', weight: 6, confidence: 'exact' },
      { kind: 'ean', weight: 2, confidence: 'extracted' },
    ],
    summary: [150, 500],
    hazardText: [60, 200],
    classes: [
      { label: 'Product Recall Information Notice', severity: 'medium' },
      { label: 'Allergy Alert', severity: 'serious' },
    ],
    categories: ['food'],
    countries: ['GB'],
    remedies: ['refund', 'dispose'],
    recordId: (_n, seq, year) => `FSA-PRIN-${pad(seq, 3)}-${year}`,
    url: (id) => `https://www.food.gov.uk/news-alerts/alert/${id.toLowerCase()}`,
  },
  {
    id: 'us-cpsc',
    agency: 'U.S. Consumer Product Safety Commission',
    jurisdiction: 'US',
    today: 9_000,
    identifiers: 5,
    kinds: [
      { kind: 'model', weight: 6, confidence: 'exact' },
      { kind: 'upc', weight: 4, confidence: 'exact' },
    ],
    summary: [300, 1100],
    hazardText: [80, 350],
    classes: [{ label: null, severity: 'unknown' }],
    categories: ['toys', 'furniture', 'appliances', 'sports', 'children'],
    countries: ['US'],
    remedies: ['refund', 'replace', 'repair'],
    recordId: (n) => String(10_000 + n),
    url: (id) => `https://www.cpsc.gov/Recalls/${id}`,
  },
  {
    id: 'us-fda-device',
    agency: 'U.S. Food and Drug Administration',
    jurisdiction: 'US',
    today: 40_000,
    identifiers: 8,
    kinds: [
      { kind: 'lot', weight: 6, confidence: 'extracted' },
      { kind: 'udi', weight: 2, confidence: 'extracted' },
      { kind: 'model', weight: 2, confidence: 'extracted' },
    ],
    summary: [120, 400],
    hazardText: [120, 400],
    classes: [
      { label: 'Class I', severity: 'serious' },
      { label: 'Class II', severity: 'medium' },
      { label: 'Class III', severity: 'low' },
    ],
    categories: ['medical_devices'],
    countries: ['US'],
    remedies: ['unknown'],
    recordId: (_n, seq, year) => `Z-${pad(seq, 4)}-${year}`,
    url: (id) => `https://api.fda.gov/device/enforcement.json?search=recall_number:%22${id}%22`,
  },
  {
    id: 'us-fda-drug',
    agency: 'U.S. Food and Drug Administration',
    jurisdiction: 'US',
    today: 17_000,
    identifiers: 6,
    kinds: [
      { kind: 'ndc', weight: 5, confidence: 'exact' },
      { kind: 'lot', weight: 5, confidence: 'extracted' },
    ],
    summary: [100, 350],
    hazardText: [100, 350],
    classes: [
      { label: 'Class I', severity: 'serious' },
      { label: 'Class II', severity: 'medium' },
      { label: 'Class III', severity: 'low' },
    ],
    categories: ['drugs'],
    countries: ['US'],
    remedies: ['unknown'],
    recordId: (_n, seq, year) => `D-${pad(seq, 4)}-${year}`,
    url: (id) => `https://api.fda.gov/drug/enforcement.json?search=recall_number:%22${id}%22`,
  },
  {
    id: 'us-fda-food',
    agency: 'U.S. Food and Drug Administration',
    jurisdiction: 'US',
    today: 28_000,
    identifiers: 4,
    kinds: [
      { kind: 'upc', weight: 5, confidence: 'extracted' },
      { kind: 'lot', weight: 5, confidence: 'inferred' },
    ],
    summary: [80, 300],
    hazardText: [80, 300],
    classes: [
      { label: 'Class I', severity: 'serious' },
      { label: 'Class II', severity: 'medium' },
      { label: 'Class III', severity: 'low' },
    ],
    categories: ['food'],
    countries: ['US'],
    remedies: ['unknown'],
    recordId: (_n, seq, year) => `F-${pad(seq, 4)}-${year}`,
    url: (id) => `https://api.fda.gov/food/enforcement.json?search=recall_number:%22${id}%22`,
  },
  {
    id: 'us-fsis',
    agency: 'USDA Food Safety and Inspection Service',
    jurisdiction: 'US',
    today: 2_000,
    identifiers: 2,
    kinds: [
      { kind: 'lot', weight: 5, confidence: 'extracted' },
      { kind: 'upc', weight: 1, confidence: 'extracted' },
    ],
    summary: [300, 1000],
    hazardText: [80, 250],
    classes: [
      { label: 'Class I', severity: 'serious' },
      { label: 'Class II', severity: 'medium' },
      { label: 'Public Health Alert', severity: 'unknown' },
    ],
    categories: ['meat', 'poultry', 'egg_products'],
    countries: ['US'],
    remedies: ['dispose', 'refund'],
    recordId: (_n, seq, year) => `${pad(seq, 3)}-${year}`,
    url: (id) => `https://www.fsis.usda.gov/recalls-alerts/${id}`,
  },
  {
    id: 'us-nhtsa',
    agency: 'National Highway Traffic Safety Administration',
    jurisdiction: 'US',
    today: 28_000,
    identifiers: 4,
    kinds: [
      { kind: 'model', weight: 9, confidence: 'exact' },
      { kind: 'vin', weight: 1, confidence: 'extracted' },
    ],
    summary: [600, 1800],
    hazardText: [200, 700],
    classes: [{ label: null, severity: 'serious' }],
    categories: ['vehicles', 'equipment', 'tires', 'child_seats'],
    countries: ['US'],
    remedies: ['repair', 'replace', 'refund'],
    recordId: (_n, seq, year) => `${String(year).slice(2)}V${pad(seq, 6)}`,
    url: (id) => `https://www.nhtsa.gov/recalls?nhtsaId=${id}`,
  },
];

export const TODAY_TOTAL = SOURCE_SHAPES.reduce((n, s) => n + s.today, 0);

const WORDS = (
  'the a product may contain undeclared milk peanut soy wheat egg fish tree nut sesame mustard ' +
  'listeria monocytogenes salmonella escherichia coli contamination foreign matter glass metal plastic ' +
  'fragments consumers should not use return to the place of purchase for a full refund dealer will ' +
  'inspect and replace the affected part free of charge owners notified vehicle steering brake airbag ' +
  'inflator fuel pump may fail increasing the risk of a crash injury fire burn shock hazard children ' +
  'small parts choking lead paint exceeds limit battery overheat charger cable insulation sold at stores ' +
  'nationwide online between january and december units manufactured distributed lot batch best before ' +
  'date printed on the label packaging carton case bottle jar bag box tray pouch firm initiated voluntary ' +
  'recall notification letter press release sterility assurance device malfunction software error'
).split(' ');

const HAZARDS: HazardCategory[] = [
  'undeclared_allergen',
  'microbial_contamination',
  'foreign_matter',
  'fire',
  'burn',
  'choking',
  'injury',
  'vehicle_crash',
  'chemical',
  'electrical_shock',
  'quality_defect',
  'mislabelling',
  'other',
];

const BRANDS = Array.from({ length: 400 }, (_, i) => `Brand ${i.toString(36).toUpperCase()}`);

function prose(rng: Rng, [lo, hi]: [number, number]): string {
  const target = rng.range(lo, hi);
  let out = '';
  while (out.length < target) {
    out += (out === '' ? '' : ' ') + rng.pick(WORDS);
    if (rng.chance(0.08)) out += '.';
  }
  return out.charAt(0).toUpperCase() + out.slice(1) + '.';
}

/** A printed value of a kind, and whether the value comes from a pool shared across recalls. */
function printed(rng: Rng, kind: IdentifierKind): string {
  switch (kind) {
    case 'gtin':
    case 'ean': {
      const body = `${rng.range(3, 9)}${rng.digits(11)}`;
      return `${body}${gs1CheckDigit(body)}`;
    }
    case 'upc': {
      const body = `0${rng.digits(10)}`;
      const code = `${body}${gs1CheckDigit(body)}`;
      return rng.chance(0.3) ? `${code[0]} ${code.slice(1, 6)} ${code.slice(6, 11)} ${code[11]}` : code;
    }
    case 'udi': {
      const body = `00${rng.digits(11)}`;
      return `(01)${body}${gs1CheckDigit(body)}`;
    }
    case 'ndc': {
      const labeler = rng.digits(5);
      const product = rng.digits(4);
      return rng.chance(0.25) ? `${labeler}-${product}` : `${labeler}-${product}-${rng.digits(2)}`;
    }
    case 'vin': {
      const alphabet = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';
      const raw = `${rng.alnum(8, alphabet)}0${rng.alnum(8, alphabet)}`;
      return raw.slice(0, 8) + vinCheckDigit(raw) + raw.slice(9);
    }
    case 'model':
      return `${rng.alnum(rng.range(2, 3), 'ABCDEFGHKLMNPRSTVWXZ')}-${rng.digits(rng.range(3, 5))}${rng.chance(0.3) ? rng.alnum(1) : ''}`;
    case 'lot':
    case 'batch':
      return rng.chance(0.5)
        ? `${rng.digits(2)}${rng.alnum(1, 'ABCDEFGHJK')}${rng.digits(4)}`
        : `L${rng.digits(6)}`;
  }
}

/**
 * Values shared by several recalls (the same product recalled again, the same model in many
 * campaigns, a common lot code): a small pool per kind, drawn for about one identifier in ten.
 */
const SHARED_POOL_SIZE = 5_000;

function identifierFor(rng: Rng, pool: Map<string, string[]>, spec: KindSpec): Identifier {
  let value: string;
  const shared = pool.get(spec.kind)!;
  if (rng.chance(0.1) && shared.length >= SHARED_POOL_SIZE) value = rng.pick(shared);
  else {
    value = printed(rng, spec.kind);
    if (shared.length < SHARED_POOL_SIZE) shared.push(value);
  }
  const n = normaliseIdentifier(spec.kind, value);
  if (!n.ok) throw new Error(`generator produced an invalid ${spec.kind} "${value}": ${n.detail}`);
  return { kind: spec.kind, value, normalized: n.normalized, confidence: spec.confidence };
}

/** Shares of the records of a source publishing models (lots) that also name a prefix or a range of them. */
const MODEL_PREFIX_SHARE = 0.01;
const LOT_PREFIX_SHARE = 0.005;
const LOT_RANGE_SHARE = 0.005;

/** A rule identifier of `kind` from its stored form (`prefixRule` or `rangeRule`), printed as `value`. */
function ruleIdentifier(kind: IdentifierKind, value: string, normalized: string | undefined): Identifier {
  if (normalized === undefined) throw new Error(`generator produced an invalid rule "${value}"`);
  return { kind, value, normalized, confidence: 'inferred' };
}

/**
 * The match rules a record names besides its identifiers, drawn from their own stream (`rng`) so that
 * every other field of the corpus is what a generator without rules makes: a model stem (`KXM-204*`),
 * a lot stem (`12A345*`), a narrow range of lots of the lots' own shape (`12A3000-12A3250`) or a range of
 * 8-digit serial numbers (`40012000-40014999`). Like the agencies' rules, they hold the odd value of another
 * recall (0.4 % of the lots at 200 k), not a share of every value.
 */
function ruleIdentifiers(rng: Rng, shape: SourceShape): Identifier[] {
  const out: Identifier[] = [];
  const model = shape.kinds.find((k) => k.kind === 'model');
  const lot = shape.kinds.find((k) => k.kind === 'lot' || k.kind === 'batch');
  if (model !== undefined && rng.chance(MODEL_PREFIX_SHARE)) {
    const stem = `${rng.alnum(rng.range(2, 3), 'ABCDEFGHKLMNPRSTVWXZ')}-${rng.digits(3)}`;
    out.push(ruleIdentifier('model', `${stem}*`, prefixRule(stem)));
  }
  if (lot !== undefined && rng.chance(LOT_PREFIX_SHARE)) {
    const stem = `${rng.digits(2)}${rng.alnum(1, 'ABCDEFGHJK')}${rng.digits(3)}`;
    out.push(ruleIdentifier(lot.kind, `${stem}*`, prefixRule(stem)));
  }
  if (lot !== undefined && rng.chance(LOT_RANGE_SHARE)) {
    const [head, width, span] = rng.chance(0.5)
      ? [`${rng.digits(2)}${rng.alnum(1, 'ABCDEFGHJK')}`, 4, 300]
      : ['', 8, 5000];
    const from = rng.int(10 ** width - span);
    const [a, b] = [from, from + rng.range(10, span)].map((n) => `${head}${pad(n, width)}`);
    out.push(ruleIdentifier(lot.kind, `${a}-${b}`, rangeRule(a!, b!)));
  }
  return out;
}

/** Publication years 2000–2026, each year ~12 % busier than the last; 2 % of records undated. */
const YEARS = Array.from({ length: 27 }, (_, i) => 2000 + i);
const YEAR_WEIGHTS = YEARS.map((y) => Math.pow(1.12, y - 2000) * (y === 2026 ? 0.45 : 1));
const YEAR_TOTAL = YEAR_WEIGHTS.reduce((a, b) => a + b, 0);

function pickYear(rng: Rng): number {
  let x = rng.next() * YEAR_TOTAL;
  for (let i = 0; i < YEARS.length; i++) {
    x -= YEAR_WEIGHTS[i]!;
    if (x <= 0) return YEARS[i]!;
  }
  return 2025;
}

function isoDay(year: number, dayOfYear: number): string {
  return new Date(Date.UTC(year, 0, 1 + dayOfYear)).toISOString().slice(0, 10);
}

export interface SyntheticRecall {
  sourceId: string;
  jurisdiction: string;
  draft: RecallDraft;
  /** Drafts of earlier revisions, oldest first (most records have none). */
  earlier: RecallDraft[];
}

/** How many records each source gets in a corpus of `total` records. */
export function sourceCounts(total: number): Map<string, number> {
  const out = new Map<string, number>();
  let left = total;
  SOURCE_SHAPES.forEach((s, i) => {
    const n = i === SOURCE_SHAPES.length - 1 ? left : Math.round((total * s.today) / TODAY_TOTAL);
    out.set(s.id, n);
    left -= n;
  });
  return out;
}

/**
 * Yields `count` recalls of one source, deterministic for a seed. Record ids are unique within
 * the source (a running number is part of every id).
 */
export function* syntheticRecalls(
  shape: SourceShape,
  count: number,
  seed: number,
): Generator<SyntheticRecall> {
  const rng = new Rng(seed);
  const rules = new Rng(seed ^ 0x5bd1e995);
  const pool = new Map<string, string[]>(shape.kinds.map((k) => [k.kind, []]));
  const totalWeight = shape.kinds.reduce((n, k) => n + k.weight, 0);
  const perYear = new Map<number, number>();
  for (let n = 0; n < count; n++) {
    const year = pickYear(rng);
    const seq = (perYear.get(year) ?? 0) + 1;
    perYear.set(year, seq);
    const undated = rng.chance(0.02);
    const day = rng.int(year === 2026 ? 160 : 365);
    const published = undated ? null : isoDay(year, day);
    const recallDate = undated && rng.chance(0.5) ? null : isoDay(year, Math.max(0, day - rng.int(60)));
    const recordId = shape.recordId(n + 1, seq, year);
    const klass = rng.pick(shape.classes);
    const idCount = Math.max(0, Math.round(shape.identifiers * (0.4 + rng.next() * 1.2)));
    const identifiers: Identifier[] = [];
    for (let i = 0; i < idCount; i++) {
      let x = rng.next() * totalWeight;
      let spec = shape.kinds[0]!;
      for (const k of shape.kinds) {
        x -= k.weight;
        if (x <= 0) {
          spec = k;
          break;
        }
      }
      identifiers.push(identifierFor(rng, pool, spec));
    }
    const brands = rng.chance(0.7) ? [rng.pick(BRANDS)] : [];
    const models = identifiers.filter((i) => i.kind === 'model').map((i) => i.value);
    identifiers.push(...ruleIdentifiers(rules, shape));
    const summary = prose(rng, shape.summary);
    const hazardText = prose(rng, shape.hazardText);
    const draft: RecallDraft = {
      recordId,
      title: `${brands[0] ?? 'Unbranded'} ${rng.pick(WORDS)} ${rng.pick(WORDS)} ${rng.pick(['recall', 'alert', 'notice'])} (synthetic)`,
      summary,
      hazard: { category: rng.pick(HAZARDS), text: hazardText },
      product: { category: rng.pick(shape.categories), brands, models },
      severity: klass.severity,
      source_classification: klass.label,
      remedy: rng.pick(shape.remedies),
      recall_date: recallDate,
      published_date: published,
      countries: shape.countries.length > 1 ? [rng.pick(shape.countries)] : [...shape.countries],
      url: shape.url(recordId),
      identifiers,
    };
    // about 3 % of records were amended once: their earlier draft had another hazard text
    const earlier = rng.chance(0.03)
      ? [{ ...draft, hazard: { ...draft.hazard, text: prose(rng, [40, 120]) } }]
      : [];
    yield { sourceId: shape.id, jurisdiction: shape.jurisdiction, draft, earlier };
  }
}
