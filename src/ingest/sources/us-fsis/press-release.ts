/**
 * The press release (`field_summary`) as a summary without its media contacts. Three layers, each
 * erring towards dropping: contact and hotline paragraphs, sentences with a phone number or e-mail,
 * and sentences repeating a non-public part of the contact fields (a name, a job title).
 */
import { htmlToLines } from '../../extract/html-text.ts';

/** Contact paragraphs: consumer/media contact, the USDA hotline (English, Spanish). */
const CONTACT_PARAGRAPH: readonly RegExp[] = [
  /\bquestions?\b[^.]*?\b(?:contact|call|e-?mail|reach|write)\b/i,
  /\b(?:members of the|news) media\b/i,
  /\bmedia (?:contacts?|inquiries|relations)\b/i,
  /\bMeat and Poultry Hotline\b/i,
  /\bMPHotline\b/i,
  /\bAsk ?USDA\b/i,
  /\bElectronic Consumer Complaint Portal\b/i,
  /\bpreguntas?\b[^.]*?\b(?:comunicarse|comun[ií]quese|contactar|llamar|escribir)\b/i,
  /\bL[ií]nea (?:Directa|de Ayuda)\b/i,
  /\bmedios de comunicaci[oó]n\b/i,
];

/** A North American phone number: `(402) 555-0142`, `1-800-555-0199`, `888.674.6854`. */
const PHONE = /(?<![\w])(?:\+?1[\s.\-–]?)?(?:\(\d{3}\)|\d{3})[\s.\-–]?\d{3}[\s.\-–]?\d{4}(?!\d)/;
/** A vanity number: `888-MPHotline`, `1-800-FOOD-NOW`. */
const VANITY_PHONE = /\b(?:1[\s.-]?)?8(?:00|33|44|55|66|77|88)[\s.-][A-Za-z][A-Za-z0-9-]{3,}/;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;

/** After `.`, `!` or `?` when the next word does not start in lower case. */
const SENTENCE_BREAK = /(?<=[.!?]["”’)]?)\s+(?=[^\s\p{Ll}])/u;

function fold(text: string): string {
  return text.normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase();
}

export function hasPhoneOrEmail(text: string): boolean {
  return PHONE.test(text) || VANITY_PHONE.test(text) || EMAIL.test(text);
}

/** Person-identifying parts (≥ 2 words or 8 characters) of the contact fields not in `publicText`. */
export function contactParts(contactFields: readonly string[], publicText: string): string[] {
  const known = fold(publicText);
  const parts = new Set<string>();
  for (const field of contactFields) {
    for (const line of htmlToLines(field)) {
      for (const raw of line.split(/[,;|/•]|\s+(?:at|or|and)\s+|\s+[-–—]\s+/)) {
        const part = fold(raw).replace(/^[\s.:()]+|[\s.:()]+$/g, '');
        if (part === '' || hasPhoneOrEmail(part) || !/\p{L}/u.test(part)) continue;
        if (part.split(' ').length < 2 && part.length < 8) continue;
        if (known.includes(part)) continue;
        parts.add(part);
      }
    }
  }
  return [...parts];
}

function isContactParagraph(paragraph: string): boolean {
  return CONTACT_PARAGRAPH.some((re) => re.test(paragraph));
}

/** The release as lines, without contact paragraphs or sentences holding a phone, e-mail or `sensitive`. */
export function pressReleaseLines(html: string | null | undefined, sensitive: readonly string[]): string[] {
  const out: string[] = [];
  for (const line of htmlToLines(html)) {
    if (isContactParagraph(line)) continue;
    const kept = line.split(SENTENCE_BREAK).filter((sentence) => {
      if (hasPhoneOrEmail(sentence)) return false;
      const folded = fold(sentence);
      return !sensitive.some((part) => folded.includes(part));
    });
    if (kept.length > 0) out.push(kept.join(' '));
  }
  return out;
}

/** What FSIS tells consumers to do (English, Spanish). */
const ADVICE =
  /\b(?:urged|advised|encouraged|not to (?:eat|consume)|should (?:not )?be (?:thrown|discarded|returned|destroyed)|thrown (?:away|out)|discard|se insta|no consumir|desech\w*|devolver\w*)\b/i;

/** The paragraphs that tell consumers what to do with the product. */
export function adviceLines(lines: readonly string[]): string[] {
  return lines.filter((line) => ADVICE.test(line));
}
