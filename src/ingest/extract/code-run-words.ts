/**
 * The words and shapes the code-run reader ({@link CodeRunReader} in `code-runs.ts`) goes by: the limits of
 * a list or table, the words that separate values, open a range or a bound, and the capitals and colours
 * that are never codes.
 */
import { OPEN_BOUND_WORDS } from './code-shapes.ts';

/** Minimum normalised length of a model or lot read from prose; shorter is too generic. */
export const MIN_CODE_LENGTH = 3;
/** Codes a flattened table needs after its header to be read as one. */
export const MIN_TABLE_CODES = 3;
/** Alphanumeric length from which a code unlike every column is read as a serial number. */
export const SERIAL_LENGTH = 12;
/** Leading characters a vehicle's name shares with its model number ("KX450SR", "KX450PSFNN"). */
export const NAME_STEM = 4;
/** Tokens allowed between a label and its first value (a table header, "are included:"). */
export const MAX_LEAD_IN = 24;
/** Tokens of the longest table read after one label (about 60 KB of prose). */
export const MAX_BODY = 10_000;

/** Words allowed between a label and its first value without making it a table. */
export const FILLER = new Set([
  'is',
  'are',
  'was',
  'were',
  'the',
  'number',
  'numbers',
  'no',
  'nos',
  '#',
  'code',
  'codes',
]);
export const SEPARATORS = new Set([
  ',',
  ';',
  '&',
  '/',
  'and',
  'or',
  '"',
  '“',
  '”',
  "'",
  '‘',
  '’',
  '«',
  '»',
  '+',
  'y',
  'et',
]);
/** Words between the ends of a range: "VF34618193 thru VF34618322", "0815 - 1253" (and "between … and …"). */
export const RANGE_WORDS = new Set([
  'thru',
  'through',
  'to',
  '~',
  '-',
  '–',
  '—',
  'until',
  'till',
  'al',
  'a',
  'au',
]);
/** Words before a value that make it an open bound or fragment: "starting with FC32", "ending in 211". */
export const BOUND_BEFORE =
  /^(?:containing|contains|starting|start|starts|beginning|begin|begins|ending|ends|end|prefix|prefixes|prefixed|from|after|before|above|below|over|under|than)$/i;
/** Capitals only, four or more, inner `-`, `/`, `+`: `MPISUS`, `HWL-MTK-RT-IN`. */
export const LETTER_CODE = /^(?=[A-Z+/-]{4,}$)[A-Z]{2,}(?:[-/+]?[A-Z]+)*$/;
/** Words in capitals that follow a model label but are not models. */
export const COMMON_CAPITALS = new Set([
  'AND',
  'OR',
  'THE',
  'ALL',
  'NEW',
  'NONE',
  'WITH',
  'ONLY',
  'SEE',
  'FROM',
  'THAT',
  'THIS',
  'ARE',
  'WERE',
  'HAS',
  'HAVE',
  'INCLUDE',
  'INCLUDES',
  'INCLUDED',
  'LISTED',
  'BELOW',
  'ABOVE',
  'MODEL',
  'MODELS',
  'NUMBER',
  'NUMBERS',
  'SERIES',
  'YEAR',
  'YEARS',
  'NAME',
  'NAMES',
  'BRAND',
  'LABEL',
  'PRINTED',
  'LOCATED',
  'FOUND',
  'BOTTOM',
  'BACK',
  'FRONT',
  'SIDE',
  'TOP',
  'UNIT',
  'UNITS',
  'PRODUCT',
  'PRODUCTS',
  'RECALL',
  'RECALLED',
  'SOLD',
  'WHITE',
  'BLACK',
  'BLUE',
  'RED',
  'GREEN',
  'GRAY',
  'GREY',
  'PINK',
  'SILVER',
  'GOLD',
  'ORANGE',
  'YELLOW',
  'PURPLE',
  'BROWN',
  'SIZE',
  'SMALL',
  'MEDIUM',
  'LARGE',
  'KING',
  'QUEEN',
  'TWIN',
  'FULL',
  'PLUS',
  'PRO',
  'MAX',
  'MINI',
  'LITE',
  'NOTE',
  'ASIN',
  'FNSKU',
]);

/** Colour words, which name a listing's variant beside its code, never a code. */
export const COLOURS = new Set([
  'black',
  'white',
  'gray',
  'grey',
  'blue',
  'navy',
  'red',
  'green',
  'pink',
  'purple',
  'beige',
  'brown',
  'orange',
  'yellow',
  'silver',
  'gold',
  'tan',
  'cream',
  'ivory',
  'teal',
  'khaki',
  'charcoal',
  'clear',
]);

/** A brand's name in a list of models: a capitalised word. */
export const BRAND_WORD = /^\p{Lu}\p{Ll}+$/u;
/** A model number beside a brand: letters and digits together, four characters at least (not a name's "3000"). */
export const MIXED_CODE = /^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9][A-Za-z0-9/-]{3,}$/;

/** A verb after a list's last code: its short capital group belongs to the code ("40513 ABX are"). */
export const VERB_AFTER = /^(?:is|are|was|were|has|have|had)$/;

/** Header words of a table whose two columns hold the two ends of a range. */
export const PAIRED_COLUMNS = /\b(?:range|from|start(?:ing)?|first|begin(?:ning)?)\b/i;
/** A header saying its range column holds single codes too: "Serial Number(s) or Range". */
export const SINGLES_OR_RANGES = /\bor\s+(?:a\s+)?ranges?\b|\branges?\s+or\b/i;

export const BOUND_AFTER = new RegExp(`^(?:${OPEN_BOUND_WORDS})$`, 'i');
