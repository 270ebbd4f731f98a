/**
 * Text preparation shared by every identifier kind (../shared/spec/identifiers.md,
 * "Before any rule"): Unicode NFKC, one ASCII hyphen for every Unicode dash, no invisible format
 * characters, trimmed, and a leading label such as `UPC:`, `Lot #` or `Model/Catalog Number:`
 * removed.
 */

/**
 * Label words that name an identifier outright. Followed by any separator (even a single
 * space) they are a label: `UPC 0 50428 54100 5`, `NDC 0065-0474-01`, `Lot 102492`.
 */
const STRONG_WORD =
  String.raw`(?:UPC(?:[- ]?[AE])?S?|EAN(?:[- ]?(?:13|8))?S?|GTIN(?:[- ]?(?:8|12|13|14))?S?|ISBN(?:[- ]?1[03])?S?` +
  String.raw`|NDCS?|VINS?|UDI(?:[- ]?DI)?S?|LOT(?:S|\(S\))?|BATCH(?:ES|\(ES\))?|MODEL(?:S|\(S\))?` +
  String.raw`|CATALOG(?:UE)?|P\/N|SKUS?|REF)`;

/**
 * Words that are a label only with a suffix (`Item No.`, `Product Code`) or a `:`/`#`
 * separator (`Code: X`), because on their own they also start real values (`CAT 320`).
 */
const WEAK_WORD = String.raw`(?:ITEM|PART|PRODUCT|DATE|CODE|CAT|ARTICLE|ART|STYLE|SERIAL|DEVICE)`;

const ANY_WORD = `(?:${STRONG_WORD}|${WEAK_WORD})`;
/** One word, or several joined by slashes: `Model/Catalog`, `Batch/Lot`. */
const HEAD = `${ANY_WORD}(?:\\s*\\/\\s*${ANY_WORD})*`;
/** A head containing at least one strong word. */
const STRONG_HEAD = `(?:${ANY_WORD}\\s*\\/\\s*)*${STRONG_WORD}(?:\\s*\\/\\s*${ANY_WORD})*`;
/** `No.`, `Number`, `Code`, `ID` … after the head: `Batch No.`, `UPC Code`, `Lot Number`. */
const SUFFIX = String.raw`\s*(?:NOS?\.?|NUMBERS?|NUM\.?|NBR\.?|CODES?|IDS?|DI)`;
/** A separator: `:`/`#` runs (`#:`), a dot, a spaced dash, or whitespace. */
const SEPARATOR = String.raw`(?:\s*[:#]+\s*|\s*\.\s*|\s+-\s+|\s+)`;

const LABEL_PATTERNS: readonly RegExp[] = [
  new RegExp(`^${HEAD}${SUFFIX}${SEPARATOR}`, 'i'),
  new RegExp(`^${HEAD}\\s*[:#]+\\s*`, 'i'),
  new RegExp(`^${STRONG_HEAD}${SEPARATOR}`, 'i'),
];

/** Every Unicode dash punctuation character, plus the minus sign, becomes `-`. */
const DASHES = /[\p{Pd}\u2212]/gu;
/** Invisible format characters (zero-width space, soft hyphen, BOM …). */
const FORMAT_CHARACTERS = /\p{Cf}/gu;

/**
 * Unicode NFKC (full-width digits become ASCII, no-break spaces become spaces), every dash
 * becomes an ASCII hyphen, invisible format characters go, and the result is trimmed.
 * Control characters such as GS (`\x1d`, the GS1 FNC1 separator) are kept.
 */
export function cleanText(value: string): string {
  return cleanTextWithin(value, Infinity)!;
}

/**
 * {@link cleanText}, or undefined, with no work past NFKC, when the NFKC form is longer than
 * `maxLength` UTF-16 code units (NFKC expands a character up to 18-fold: U+FDFA).
 */
export function cleanTextWithin(value: string, maxLength: number): string | undefined {
  // Printable ASCII is already what NFKC and the replacements would make it.
  if (isPrintableAscii(value)) return value.length > maxLength ? undefined : value.trim();
  const nfkc = value.normalize('NFKC');
  if (nfkc.length > maxLength) return undefined;
  return nfkc.replace(DASHES, '-').replace(FORMAT_CHARACTERS, '').trim();
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Whether text is printable ASCII only, which Unicode normalisation leaves as it is. */
export function isPrintableAscii(value: string): boolean {
  return PRINTABLE_ASCII.test(value);
}

/**
 * Removes one leading label followed by a separator (`UPC:`, `UPC `, `EAN-13 `, `GTIN#`,
 * `NDC#:`, `Lot #`, `Lot#`, `Batch No.`, `Model/Catalog Number:`, `P/N:`, `UDI-DI:` …) and
 * trims what follows. A label with no separator is part of the value: `LOTA5` and `LOT42X`
 * are returned unchanged. Expects text already passed through {@link cleanText}.
 */
export function stripLabel(text: string): { value: string; label: string | null } {
  for (const pattern of LABEL_PATTERNS) {
    const m = pattern.exec(text);
    if (m) return { value: text.slice(m[0].length).trim(), label: m[0].trim() };
  }
  return { value: text, label: null };
}

/**
 * The common preparation of a raw value: {@link cleanText} then {@link stripLabel}.
 * Returns the value to which the per-kind rules apply.
 */
export function prepareValue(raw: string): { value: string; label: string | null } {
  return stripLabel(cleanText(raw));
}
