/** What a printed value is by shape (date, quantity, phone, year, code): one answer for all extractors. */

/** A month word or abbreviation, for use inside a case-insensitive pattern. */
export const MONTH = String.raw`(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?`;
/** ASCII hyphen and Unicode dashes, for use inside a character class. */
export const DASH = '\\-\u2010\u2011\u2012\u2013';
/** A date inside a phrase (`Exp. 07/18`), for patterns; {@link isDateLike} judges a whole value. */
export const DATE_IN_TEXT = String.raw`(?:\d{1,2}[/.${DASH}]\d{1,2}[/.${DASH}]\d{2,4}|\d{4}[/.${DASH}]\d{1,2}(?:[/.${DASH}]\d{1,2})?|\d{1,2}[/.${DASH}]\d{2,4}|\d{8}|\d{1,2} ?${MONTH} ?\d{2,4}|${MONTH} ?\d{1,2},? \d{4}|${MONTH} ?\d{2,4})(?![A-Za-z0-9/])`;

const MONTHS_IN_YEAR = 12;
const DAY_MONTH_YEAR = new RegExp(String.raw`^\d{1,2}\s?${MONTH}\s?\d{2,4}$`, 'i');
const MONTH_DAY_YEAR = new RegExp(String.raw`^${MONTH}\s?\d{1,2}(?:,?\s?\d{4})?$`, 'i');
const MONTH_DAY_FULL_YEAR = new RegExp(String.raw`^${MONTH}\s?\d{1,2},?\s?\d{4}$`, 'i');
const MONTH_YEAR = new RegExp(String.raw`^${MONTH}[/.\s-]?\d{2,4}$`, 'i');
const DAYS_IN_MONTH = 31;

function isMonth(n: number): boolean {
  return n >= 1 && n <= MONTHS_IN_YEAR;
}

function isDay(n: number): boolean {
  return n >= 1 && n <= DAYS_IN_MONTH;
}

/** Whether a value is a printed date (`08/27/19`, `2019-08`, `18SEP20`); numbers need a real month/day. */
export function isDateLike(value: string): boolean {
  const v = value.trim();
  let m = /^(\d{1,2})[./-](\d{1,2})[./-](\d{2}|\d{4})$/.exec(v);
  if (m) {
    const [a, b] = [Number(m[1]), Number(m[2])];
    return (isMonth(a) && isDay(b)) || (isMonth(b) && isDay(a));
  }
  m = /^(\d{1,2})[./-]((?:19|20)\d{2})$/.exec(v);
  if (m) return isMonth(Number(m[1]));
  m = /^((?:19|20)\d{2})[./-](\d{1,2})(?:[./-](\d{1,2}))?$/.exec(v);
  if (m) return isMonth(Number(m[2])) && (m[3] === undefined || isDay(Number(m[3])));
  m = /^(\d{1,2})\/(\d{2})$/.exec(v);
  if (m) return isMonth(Number(m[1]));
  return DAY_MONTH_YEAR.test(v) || MONTH_DAY_YEAR.test(v) || MONTH_YEAR.test(v);
}

/** Whether a date names its day: `07/31/2025`, `18SEP20`, `Sep 18, 2020` (not `07/2025`, `JUL24`). */
export function isDayDate(value: string): boolean {
  const v = value.trim();
  if (!isDateLike(v)) return false;
  return (
    /^\d{1,2}[./-]\d{1,2}[./-]\d{2,4}$/.test(v) ||
    /^(?:19|20)\d{2}[./-]\d{1,2}[./-]\d{1,2}$/.test(v) ||
    DAY_MONTH_YEAR.test(v) ||
    MONTH_DAY_FULL_YEAR.test(v)
  );
}

/**
 * Whether a code carries a whole date as eight digits, year first (`A20240815`, `BG20240330`):
 * a cohort or production code, which a model number does not carry.
 */
export function embedsFullDate(value: string): boolean {
  for (const m of value.matchAll(/(?<!\d)((?:19|20)\d{2})(\d{2})(\d{2})(?!\d)/g)) {
    if (isMonth(Number(m[2])) && isDay(Number(m[3]))) return true;
  }
  return false;
}

/** A year of the last or this century: `2019`. */
export function isYear(value: string): boolean {
  return /^(?:19|20)\d{2}$/.test(value);
}

/** A span of years: `2017-2019`, `2017/19`. */
export function isYearRange(value: string): boolean {
  return /^(?:19|20)\d{2}[-/](?:19|20)?\d{2}$/.test(value);
}

/** A North American phone number: `800-555-1234`, `1-800-555-1234`, `800.555.1234`. */
export function isPhoneNumber(value: string): boolean {
  return /^(?:1[-.])?\d{3}[-.]\d{3}[-.]\d{4}$/.test(value);
}

const UNIT = String.raw`(?:oz|ozs|lbs?|kg|mg|mcg|ml|cl|ct|pk|pks|pcs?|pack|packs|count|qt|qts|quarts?|gal|gals|gallons?|in|inch|inches|ft|feet|foot|mm|cm|yd|yds|mah|wh|ah|kw|kwh|hz|khz|mhz|ghz|db|btu|btus|psi|cc|cu|ton|tons|lumens?|watts?|volts?|amps?|ounces?|pounds?|grams?|liters?|litres?|meters?|metres?|%)`;

/** A number then a unit, glued or hyphenated: `56oz`, `12-inch`, `100%`. */
const QUANTITY = new RegExp(String.raw`^\d+(?:[.,]\d+)?(?:-|\s)?${UNIT}\.?$`, 'i');
const UNIT_WORD = new RegExp(String.raw`^${UNIT}\.?$`, 'i');
/** Single-letter electrical units (`36V`, `1500W`); longer runs (`2312A`) are codes. */
const ELECTRICAL = /^(?:\d{1,3}(?:\.\d+)?[va]|\d{1,4}(?:\.\d+)?w)$/i;
/** Single-letter metric units after one or two digits (`5L`); longer runs (`130L`) are codes. */
const SHORT_METRIC = /^\d{1,2}(?:\.\d+)?[glm]$/i;

/** Whether a value is a quantity, weight, size or rating rather than a code. */
export function isQuantity(value: string): boolean {
  return QUANTITY.test(value) || ELECTRICAL.test(value) || SHORT_METRIC.test(value);
}

/** Whether a value opens with a quantity (`50 ml jar`, `2 kg`, `10W`): a size, not a code. */
export function leadsWithQuantity(value: string): boolean {
  const [first = '', second] = value.trim().split(/\s+/);
  return isQuantity(first) || (second !== undefined && isQuantity(`${first} ${second}`));
}

/** Words that, after "or"/"and", make the code before them an open bound: "3114 or older". */
export const OPEN_BOUND_WORDS =
  'older|earlier|lower|later|newer|higher|greater|above|below|before|after|prior|up|onwards?';

/** Whether a word written after a number makes that number a quantity: "18 oz", "90 Quart", "5 cases". */
export function isUnitWord(word: string): boolean {
  return UNIT_WORD.test(word) || COUNT_NOUNS.test(word);
}

/** Nouns that make the number before them a count: "5 cases", "12 units", "60 Capsules". */
const COUNT_NOUNS =
  /^(?:units?|cases?|bottles?|boxes?|bags?|packages?|pkgs?|cartons?|pieces?|kits?|vials?|tubes?|jars?|cans?|trays?|pallets?|sets?|pairs?|capsules?|tablets?|caplets?|softgels?|gummies|servings?|sheets?|rolls?|wipes?|doses?|sticks?|bars?|cups?|slices?|links?|patties|years?|months?|weeks?|days?|hours?|minutes?|seconds?|digits?|characters?|letters?|ply|percent|degrees?|stores?|people|children|reports?|incidents?|injuries|deaths?)$/i;

/** Measures, never codes: `1,540`, `39.5`, `1/2`, `3rd`, `$30`, `08:59`, `12x16`, `2-in-1`. */
function isMeasure(value: string): boolean {
  return (
    // "2-foot-wide", "12-inch" (not "150-NG").
    /^\d+(?:\.\d+)?-[A-Za-z]*[a-z][A-Za-z]*(?:-[A-Za-z]+)*$/.test(value) ||
    /^\d+\.\d+-\d+(?:\.\d+)?$/.test(value) ||
    // A lot and its expiry printed together: "5398705/31/2027".
    (/\d{1,2}\/\d{1,2}\/(?:\d{2}|\d{4})$/.test(value) && value.length > 10) ||
    /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(value) ||
    /^\d+\.\d+$/.test(value) ||
    /^\d{1,2}\/\d{1,2}$/.test(value) ||
    /^\d+(?:st|nd|rd|th)$/i.test(value) ||
    /^[$€£¥]/.test(value) ||
    /^\d{1,2}:\d{2}(?::\d{2})?$/.test(value) ||
    /^\d+(?:\.\d+)?[x×]\d+(?:\.\d+)?(?:[x×]\d+(?:\.\d+)?)?$/.test(value) ||
    /^\d+-in-\d+$/i.test(value)
  );
}

const DASHES = /[\u2010-\u2015\u2212]/g;

/** A format described rather than a code printed: `20XX`, `YY-58`, `MM/YY`. */
function isFormatPattern(value: string): boolean {
  return value
    .split(/[-/.]/)
    .some(
      (part) =>
        /^\d*X{2,}\d*$/.test(part) ||
        /^(?:Y{2,4}|M{2}|D{2}|W{2}|YYYYMMDD|YYMMDD|MMDDYY|YYMM|MMYY|YYWW|WWYY)$/.test(part),
    );
}

/** Battery types (`CR2032`), battery platforms (`V20`) and clothing sizes (`2XL`): never models. */
function isTrapCode(value: string): boolean {
  return (
    /^(?:CR|BR|LR|SR|AG|LIR|ML)\d{2,4}(?:\/\d{2,4})?$/i.test(value) ||
    /^\d?X{1,4}[SL]$/i.test(value) ||
    /^w\//i.test(value) ||
    /^V(?:12|18|20|36|40|60|80)$/i.test(value)
  );
}

/** Two ends of a range glued by a dash: `21/3-23/10`, `07/2020-09/2021`, `40012000-40098999`. */
function isGluedRange(value: string): boolean {
  const parts = value.split('-');
  if (parts.length !== 2) return false;
  const [a, b] = parts as [string, string];
  const shape = (v: string) => v.replace(/[A-Za-z]+/g, 'A').replace(/\d+/g, '9');
  if (shape(a) !== shape(b)) return false;
  return a.includes('/') || (a.length === b.length && a.length >= 7 && a < b);
}

/** Marketplace listing codes, never a lot: an Amazon ASIN (`B0…`) or FNSKU (`X00…`). */
const MARKETPLACE_CODE = /^(?:B0(?=[0-9A-Z]*[A-Z])[0-9A-Z]{8}$|X00[0-9A-Z]{7})/;

/** Letters and digits with inner `-`, `/`, `.`, `_`, `+`: `PA17-412`, `KBF/05`, `MPISU+1`. */
const CODE_CHARS = /^[A-Za-z0-9](?:[A-Za-z0-9]|[-/._+](?=[A-Za-z0-9]))*$/;

/** Whether a value can be a model/lot code: code characters with a digit, no date, quantity or wildcard. */
export function isCodeShaped(printed: string, family: 'model' | 'lot'): boolean {
  const value = printed.replace(DASHES, '-');
  if (!/\d/.test(value) || !CODE_CHARS.test(value)) return false;
  if (/(?:X{3,}|x{3,})$/.test(value) || isFormatPattern(value)) return false;
  if (isDateLike(value) || isQuantity(value) || isPhoneNumber(value) || isMeasure(value)) return false;
  if (isTrapCode(value)) return false;
  // Joined ratings ("36V-8AH-288WH") are not a code.
  if (value.split(/[-/]/).every((part) => isQuantity(part))) return false;
  if (family === 'model' && isYearRange(value)) return false;
  if (isGluedRange(value)) return false;
  if (family === 'lot' && MARKETPLACE_CODE.test(value)) return false;
  return true;
}
