/**
 * `identification_produits` read by shape. The agency's `GTIN$lot$date-type$date$date|GTIN$…` is
 * served split on `$` with empty parts dropped, so `|` sticks to its neighbours
 * (`"2026-06-27|0200590000000"`, a lone `"|"`) and a missing GTIN leaves the lot first: no value
 * is known by its place. A group is what one `|` item held.
 */
import { gs1CheckDigit } from '../../../domain/identifiers/gs1-check-digits.ts';
import { normaliseIdentifier } from '../../../domain/identifiers/normalise.ts';
import type { Identifier } from '../../../domain/recall.ts';
import { isDateLike } from '../../extract/code-shapes.ts';
import { mergeIdentifiers } from '../../extract/labelled-identifiers.ts';

/** Longest value read as a lot; longer ones are prose. */
export const MAX_LOT_LENGTH = 40;

/**
 * GS1 prefixes of a GTIN-13 that name no trade item to match on: restricted circulation
 * (020–029 in-store and variable-weight, 040–049 company-internal, 200–299 in-store), the UPC
 * coupon range (050–059), refund receipts (980) and coupons (981–984, 99). 030–039 (a UPC of
 * number system 3: medicines) and 977–979 (ISSN, ISBN) are trade items.
 */
const NOT_A_TRADE_ITEM = /^(?:0[245]|2|98[0-4]|99)/;

/** A lot label at the start of a value: `lot`, `lot :`, `lot n°`, `n° lot`. */
const LOT_LABEL = /^(?:n[°o]\s*)?lots?(?:\s*n[°o])?\s*[:#]?\s+/i;
/** Letters and digits in up to three space-separated groups, inner `/ : . - _` allowed. */
const LOT_CHARS = /^[a-z0-9]+(?:[/:._-]+[a-z0-9]+)*(?: [a-z0-9]+(?:[/:._-]+[a-z0-9]+)*){0,2}$/i;

/** The parts of the field, grouped by the `|` that ends each product's parts. */
export function identificationGroups(value: readonly string[] | string | null | undefined): string[][] {
  const parts = typeof value === 'string' ? value.split('$') : (value ?? []);
  const groups: string[][] = [[]];
  for (const part of parts) {
    part.split('|').forEach((piece, i) => {
      if (i > 0) groups.push([]);
      const text = piece.replace(/\s+/g, ' ').trim();
      if (text !== '') groups[groups.length - 1]!.push(text);
    });
  }
  return groups.filter((g) => g.length > 0);
}

/** A day and month (`30/06`, `17.06`), which `isDateLike` reads as month/year only. */
function isDayMonth(value: string): boolean {
  const m = /^(\d{1,2})[/.](\d{1,2})$/.exec(value);
  return m !== null && Number(m[1]) >= 1 && Number(m[1]) <= 31 && Number(m[2]) >= 1 && Number(m[2]) <= 12;
}

/** Whether a value is, or holds, a printed date (`2026-06-25`, `24/06/2026`, `19.6.2024`, `30/06`). */
export function holdsDate(value: string): boolean {
  return value.split(' ').some((t) => isDateLike(t) || isDayMonth(t));
}

/** A day-month-year (`12.3.2016`, `01/02/2024`, `4-9-19`) or year-month-day (`2016-03-12`) date. */
const DATE = String.raw`(?:\d{1,2}[./-]\d{1,2}[./-](?:\d{4}|\d{2})|\d{4}[./-]\d{1,2}[./-]\d{1,2})`;
/** One date, or two joined by a dash (any, spaced or not), `à`, `au` or `to`. */
const DATE_OR_RANGE = new RegExp(
  String.raw`^(${DATE})(?:\s*(?:[-\u2010-\u2015]|\s(?:à|au|to)\s)\s*(${DATE}))?$`,
  'i',
);

/**
 * Whether a value is shaped like a date or a range of two dates (`12.3.2016 - 4.9.2019`,
 * `01/02/2024`, `12-3-2016-4-9-2019`), each date with a real day and month. Such a value is never
 * a barcode, whatever its digits' check digit (one date range in ten passes it), and never a lot.
 */
export function isDateOrDateRange(value: string): boolean {
  const m = DATE_OR_RANGE.exec(value.replace(/\s+/g, ' ').trim());
  return m !== null && isDateLike(m[1]!) && (m[2] === undefined || isDateLike(m[2]));
}

/** The 14-digit GTIN of a barcode-length digit run (11–14 digits), or null if the check digit fails. */
function checkedGtin14(digits: string): string | null {
  const padded = digits.padStart(14, '0');
  return gs1CheckDigit(padded.slice(0, -1)) === Number(padded.slice(-1)) ? padded : null;
}

/** Whether a GTIN-14 names a trade item: not all zeros, not restricted circulation, not a coupon. */
export function isTradeItemGtin(gtin14: string): boolean {
  return !/^0+$/.test(gtin14) && !NOT_A_TRADE_ITEM.test(gtin14.slice(1));
}

/** What one part of the field is, by its shape alone. */
export type PartShape =
  | { shape: 'gtin'; value: string }
  | { shape: 'lot'; value: string }
  /** Several lots printed in one part (`118220041 118220077`, `a1, a2`). */
  | { shape: 'lots'; values: string[] }
  /** Several barcode-length digit runs printed in one part, each read on its own. */
  | { shape: 'barcodes'; parts: PartShape[] }
  /** 8 digits: a GTIN-8, a customs code (`95049090`), a placeholder (`00000000`) or a lot. */
  | { shape: 'eight-digits'; value: string }
  /** A barcode-length digit run that is no trade item's GTIN (in-store code, bad check digit). */
  | { shape: 'other-barcode'; value: string }
  | { shape: 'none' };

/** Whether a value, its label removed, may be one lot: a short code with a digit, no date. */
function isLotValue(lot: string): boolean {
  return (
    lot.length <= MAX_LOT_LENGTH &&
    /\d/.test(lot) &&
    LOT_CHARS.test(lot) &&
    !holdsDate(lot) &&
    !/^0+$/.test(lot) &&
    normaliseIdentifier('lot', lot).ok
  );
}

/** A lot's letters as `A` and digits as `9`, runs collapsed (`ensk958` → `A9`, `118220041` → `9`). */
function lotPattern(lot: string): string {
  return lot
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '')
    .replace(/[A-Z]+/g, 'A')
    .replace(/[0-9]+/g, '9');
}

/** Shortest group that counts as a lot of its own in a space-separated list. */
export const MIN_SPLIT_LOT_LENGTH = 6;

/**
 * The lots a part lists, when it lists several: items separated by `,`, `;` or ` et ` are lots of
 * their own (each must be one); space-separated groups are several lots only when every group is a
 * lot of at least {@link MIN_SPLIT_LOT_LENGTH} letters and digits with the same pattern of letters
 * and digits (`118220041 118220077`, `ensk958 ensk959`). A lot printed with inner spaces keeps its
 * groups together (`1096 l:k2c 090`: short groups of other patterns). Undefined when not a list.
 */
export function listedLots(lot: string): string[] | undefined {
  const items = lot
    .split(/\s*[,;]\s*|\s+et\s+/i)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const lots: string[] = [];
  for (const item of items) {
    const groups = item.split(' ');
    const code = (g: string) => g.replace(/[^a-z0-9]/gi, '');
    const apart =
      groups.length > 1 &&
      groups.every(
        (g) =>
          code(g).length >= MIN_SPLIT_LOT_LENGTH && lotPattern(g) === lotPattern(groups[0]!) && isLotValue(g),
      );
    if (apart) lots.push(...groups);
    else if (isLotValue(item)) lots.push(item);
    else return undefined;
  }
  return lots.length > 1 ? lots : undefined;
}

/** The shape of one part of `identification_produits`. */
export function partShape(part: string): PartShape {
  // A date or a date range (a vehicle's production period) is neither a barcode nor a lot.
  if (isDateOrDateRange(part)) return { shape: 'none' };
  // Barcodes listed in one part are read one by one, never glued into one value or taken as lots.
  const tokens = part.split(/\s*[,;]\s*|\s+/).filter((t) => t !== '');
  if (tokens.length > 1 && tokens.every((t) => /^\d{11,14}$/.test(t)))
    return { shape: 'barcodes', parts: tokens.map(partShape) };
  const compact = part.replace(/[\s.-]/g, '');
  if (/^\d+$/.test(compact) && compact.length >= 11 && compact.length <= 14) {
    const gtin = checkedGtin14(compact);
    return gtin !== null && isTradeItemGtin(gtin)
      ? { shape: 'gtin', value: part }
      : { shape: 'other-barcode', value: part };
  }
  if (/^\d{8}$/.test(part))
    return /^0+$/.test(part) ? { shape: 'none' } : { shape: 'eight-digits', value: part };
  const unlabelled = part.replace(LOT_LABEL, '');
  const lot = unlabelled === '' ? part : unlabelled;
  const lots = listedLots(lot);
  if (lots !== undefined) return { shape: 'lots', values: lots };
  return isLotValue(lot) ? { shape: 'lot', value: lot } : { shape: 'none' };
}

/**
 * GTINs (check digit held, a trade item's) and lots, both `exact`; dates, date types, in-store
 * codes and prose never. Eight digits are a lot only right after a GTIN of the same group: first
 * in a group they may be the agency's GTIN slot holding a customs code or a placeholder.
 */
export function identificationIdentifiers(
  value: readonly string[] | string | null | undefined,
): Identifier[] {
  const found: Identifier[] = [];
  const add = (kind: 'gtin' | 'lot', printed: string): void => {
    const n = normaliseIdentifier(kind, printed);
    if (n.ok) found.push({ kind, value: printed, normalized: n.normalized, confidence: 'exact' });
  };
  for (const group of identificationGroups(value)) {
    let afterGtin = false;
    for (const part of group) {
      const shape = partShape(part);
      const shapes = shape.shape === 'barcodes' ? shape.parts : [shape];
      for (const one of shapes) {
        if (one.shape === 'gtin') add('gtin', one.value);
        else if (one.shape === 'lot') add('lot', one.value);
        else if (one.shape === 'lots') for (const v of one.values) add('lot', v);
        else if (one.shape === 'eight-digits' && afterGtin) add('lot', one.value);
      }
      afterGtin = shapes.some((one) => one.shape === 'gtin');
    }
  }
  return mergeIdentifiers(found);
}
