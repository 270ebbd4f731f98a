/** Text preparation before any kind's rule (../shared/spec/identifiers.md, "Rules per kind"). */

/** Label words that name an identifier outright, so even one space separates: `UPC 0 50428 54100 5`. */
const STRONG_WORD =
  String.raw`(?:UPC(?:[- ]?[AE])?S?|EAN(?:[- ]?(?:13|8))?S?|GTIN(?:[- ]?(?:8|12|13|14))?S?|ISBN(?:[- ]?1[03])?S?` +
  String.raw`|NDCS?|VINS?|UDI(?:[- ]?DI)?S?|LOT(?:S|\(S\))?|BATCH(?:ES|\(ES\))?|MODEL(?:S|\(S\))?` +
  String.raw`|CATALOG(?:UE)?|P\/N|SKUS?|REF)`;

/** Label words only with a suffix (`Item No.`) or `:`/`#`: alone they also start real values (`CAT 320`). */
const WEAK_WORD = String.raw`(?:ITEM|PART|PRODUCT|DATE|CODE|CAT|ARTICLE|ART|STYLE|SERIAL|DEVICE)`;

const ANY_WORD = `(?:${STRONG_WORD}|${WEAK_WORD})`;
const HEAD = `${ANY_WORD}(?:\\s*\\/\\s*${ANY_WORD})*`;
const STRONG_HEAD = `(?:${ANY_WORD}\\s*\\/\\s*)*${STRONG_WORD}(?:\\s*\\/\\s*${ANY_WORD})*`;
const SUFFIX = String.raw`\s*(?:NOS?\.?|NUMBERS?|NUM\.?|NBR\.?|CODES?|IDS?|DI)`;
const SEPARATOR = String.raw`(?:\s*[:#]+\s*|\s*\.\s*|\s+-\s+|\s+)`;

const LABEL_PATTERNS: readonly RegExp[] = [
  new RegExp(`^${HEAD}${SUFFIX}${SEPARATOR}`, 'i'),
  new RegExp(`^${HEAD}\\s*[:#]+\\s*`, 'i'),
  new RegExp(`^${STRONG_HEAD}${SEPARATOR}`, 'i'),
];

const DASHES = /[\p{Pd}\u2212]/gu;
const FORMAT_CHARACTERS = /\p{Cf}/gu;

/** NFKC, every dash to `-`, invisible format characters removed, trimmed; GS (`\x1d`, FNC1) is kept. */
export function cleanText(value: string): string {
  return cleanTextWithin(value, Infinity)!;
}

/** {@link cleanText}, or undefined (with no work past NFKC) when the NFKC form exceeds `maxLength` (U+FDFA expands 18-fold). */
export function cleanTextWithin(value: string, maxLength: number): string | undefined {
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

/** Removes one leading label and its separator (`Lot #`); with no separator it is the value (`LOTA5`). */
export function stripLabel(text: string): { value: string; label: string | null } {
  for (const pattern of LABEL_PATTERNS) {
    const m = pattern.exec(text);
    if (m) return { value: text.slice(m[0].length).trim(), label: m[0].trim() };
  }
  return { value: text, label: null };
}

/** {@link cleanText} then {@link stripLabel}: the value the per-kind rules apply to. */
export function prepareValue(raw: string): { value: string; label: string | null } {
  return stripLabel(cleanText(raw));
}
