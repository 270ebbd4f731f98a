/**
 * What a value printed in agency prose or a code field is, by its shape alone: a date, a
 * quantity, a phone number, a year, or something that can be a model, lot or batch code. One
 * answer for every extractor (labelled prose, flattened tables, dedicated code fields), so a
 * value is never a date in one place and a lot in another.
 */

/** A month written as a word or its abbreviation, for use inside a pattern (case-insensitive). */
export const MONTH = String.raw`(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?`;
/** ASCII hyphen and Unicode dashes, for use inside a character class (the hyphen escaped). */
export const DASH = '\\-\u2010\u2011\u2012\u2013';
/**
 * A date inside a phrase (`Exp. 07/18`, `Best By: 1/18/2027`), for use inside a pattern: the
 * printed forms of dates found in running text, where {@link isDateLike} judges a whole value.
 */
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

/**
 * Whether a value is a date as agencies print them: `08/27/19`, `27.08.2019`, `2019-08-27`,
 * `2019-08`, `05/2018`, `11/18`, `18SEP20`, `18 Sep 2020`, `Sep 2020`. Numeric forms must hold
 * a real month (and day), so `34/56` or `13/2020` is not a date.
 */
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

/** Whether a date names its day: `07/31/2025`, `2019-08-27`, `18SEP20`, `Sep 18, 2020` (not `07/2025`, `JUL24`). */
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

/** Units written after a number; multi-letter ones in any case (`OZ`, `Lbs`, `mAh`, `Ft`). */
const UNIT = String.raw`(?:oz|ozs|lbs?|kg|mg|mcg|ml|cl|ct|pk|pks|pcs?|pack|packs|count|qt|qts|quarts?|gal|gals|gallons?|in|inch|inches|ft|feet|foot|mm|cm|yd|yds|mah|wh|ah|kw|kwh|hz|khz|mhz|ghz|db|btu|btus|psi|cc|cu|ton|tons|lumens?|watts?|volts?|amps?|ounces?|pounds?|grams?|liters?|litres?|meters?|metres?|%)`;

/** A quantity: a number then a unit, glued or hyphenated (`56oz`, `12-inch`, `15-Ft`, `36V`, `5L`, `100%`). */
const QUANTITY = new RegExp(String.raw`^\d+(?:[.,]\d+)?(?:-|\s)?${UNIT}\.?$`, 'i');
const UNIT_WORD = new RegExp(String.raw`^${UNIT}\.?$`, 'i');
/** Single-letter electrical units, in any case: `36V`, `120V`, `15A`, `1500W` (`2312A`, `2307050A` are codes). */
const ELECTRICAL = /^(?:\d{1,3}(?:\.\d+)?[va]|\d{1,4}(?:\.\d+)?w)$/i;
/** Single-letter metric units after one or two digits: `5L`, `2g`, `3m` (`130L`, `4162G` are codes). */
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

/**
 * Words that, after "or" / "and", make the code before them an open bound standing for many
 * codes: "3114 or older", "22C15 and later".
 */
export const OPEN_BOUND_WORDS =
  'older|earlier|lower|later|newer|higher|greater|above|below|before|after|prior|up|onwards?';

/** Whether a word written after a number makes that number a quantity: "18 oz", "90 Quart", "5 cases". */
export function isUnitWord(word: string): boolean {
  return UNIT_WORD.test(word) || COUNT_NOUNS.test(word);
}

/** Nouns that make the number before them a count: "5 cases", "12 units", "60 Capsules". */
const COUNT_NOUNS =
  /^(?:units?|cases?|bottles?|boxes?|bags?|packages?|pkgs?|cartons?|pieces?|kits?|vials?|tubes?|jars?|cans?|trays?|pallets?|sets?|pairs?|capsules?|tablets?|caplets?|softgels?|gummies|servings?|sheets?|rolls?|wipes?|doses?|sticks?|bars?|cups?|slices?|links?|patties|years?|months?|weeks?|days?|hours?|minutes?|seconds?|digits?|characters?|letters?|ply|percent|degrees?|stores?|people|children|reports?|incidents?|injuries|deaths?)$/i;

/**
 * Numbers that are measures, never codes: `1,540`, `39.5`, `1/2`, `23/24`, `3rd`, `$30`, `08:59`,
 * `12x16`, `2-in-1`.
 */
function isMeasure(value: string): boolean {
  return (
    // A number glued to a word: "2-foot-wide", "12-inch", "10-Quart", "2-panel" (not "150-NG").
    /^\d+(?:\.\d+)?-[A-Za-z]*[a-z][A-Za-z]*(?:-[A-Za-z]+)*$/.test(value) ||
    // Ranges of measures: "30.12-61.61".
    /^\d+\.\d+-\d+(?:\.\d+)?$/.test(value) ||
    // A code glued to a whole date: "5398705/31/2027" (a lot and its expiry printed together).
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

/** Unicode dashes, read as `-`. */
const DASHES = /[\u2010-\u2015\u2212]/g;

/**
 * A format described rather than a code printed: `20XX`, `YY-58`, `YYYYMMDD-GJ`, `MM/YY`
 * (a part that is a run of X, or of the date letters Y, M, D, W).
 */
function isFormatPattern(value: string): boolean {
  return value
    .split(/[-/.]/)
    .some(
      (part) =>
        /^\d*X{2,}\d*$/.test(part) ||
        /^(?:Y{2,4}|M{2}|D{2}|W{2}|YYYYMMDD|YYMMDD|MMDDYY|YYMM|MMYY|YYWW|WWYY)$/.test(part),
    );
}

/** Battery types (`CR2032`, `LR44/357`), battery platforms (`V20`) and clothing sizes (`2XL`): never models. */
function isTrapCode(value: string): boolean {
  return (
    /^(?:CR|BR|LR|SR|AG|LIR|ML)\d{2,4}(?:\/\d{2,4})?$/i.test(value) ||
    /^\d?X{1,4}[SL]$/i.test(value) ||
    /^w\//i.test(value) ||
    // A battery platform named by its voltage: "V20", "V18".
    /^V(?:12|18|20|36|40|60|80)$/i.test(value)
  );
}

/** The characters of a code: letters and digits, with inner `-`, `/`, `.`, `_`, `+` (`PA17-412`, `KBF/05`, `MPISU+1`). */
const CODE_CHARS = /^[A-Za-z0-9](?:[A-Za-z0-9]|[-/._+](?=[A-Za-z0-9]))*$/;

/**
 * Whether a printed value can be a model, lot or batch code by its shape: letters and digits
 * with inner `-`, `/`, `.`, `_`, at least one digit, and not a date, quantity, phone number,
 * measure or (for models) a span of years. Wildcards (`T**0815`, `911XXXXXX`) are families of
 * codes, not codes.
 */
export function isCodeShaped(printed: string, family: 'model' | 'lot'): boolean {
  const value = printed.replace(DASHES, '-');
  if (!/\d/.test(value) || !CODE_CHARS.test(value)) return false;
  if (/(?:X{3,}|x{3,})$/.test(value) || isFormatPattern(value)) return false;
  if (isDateLike(value) || isQuantity(value) || isPhoneNumber(value) || isMeasure(value)) return false;
  if (isTrapCode(value)) return false;
  // Ratings joined together ("50mm/55mm/65mm", "36V-8AH-288WH") are ratings, not a code.
  if (value.split(/[-/]/).every((part) => isQuantity(part))) return false;
  if (family === 'model' && isYearRange(value)) return false;
  return true;
}
