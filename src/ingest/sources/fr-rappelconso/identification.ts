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
  /** 8 digits: a GTIN-8, a customs code (`95049090`), a placeholder (`00000000`) or a lot. */
  | { shape: 'eight-digits'; value: string }
  /** A barcode-length digit run that is no trade item's GTIN (in-store code, bad check digit). */
  | { shape: 'other-barcode'; value: string }
  | { shape: 'none' };

/** The shape of one part of `identification_produits`. */
export function partShape(part: string): PartShape {
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
  if (
    lot.length <= MAX_LOT_LENGTH &&
    /\d/.test(lot) &&
    LOT_CHARS.test(lot) &&
    !holdsDate(lot) &&
    !/^0+$/.test(lot) &&
    normaliseIdentifier('lot', lot).ok
  ) {
    return { shape: 'lot', value: lot };
  }
  return { shape: 'none' };
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
      if (shape.shape === 'gtin') add('gtin', shape.value);
      else if (shape.shape === 'lot') add('lot', shape.value);
      else if (shape.shape === 'eight-digits' && afterGtin) add('lot', shape.value);
      afterGtin = shape.shape === 'gtin';
    }
  }
  return mergeIdentifiers(found);
}
