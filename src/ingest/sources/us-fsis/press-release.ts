/**
 * The FSIS press release (`field_summary`) as a summary without personal data. Its closing
 * paragraphs name the firm's and the agency's media contacts with phone numbers and e-mail
 * addresses (the same people as `field_company_media_contact` / `field_media_contact`, which are
 * dropped outright). Three layers keep them out, each enough on its own for the usual wording:
 *
 * 1. paragraphs that are contact or hotline paragraphs ("Consumers with questions about the
 *    recall can contact …", "Members of the media …", the Meat and Poultry Hotline) are dropped;
 * 2. any remaining sentence holding a phone number or an e-mail address is dropped;
 * 3. any remaining sentence repeating a part of the contact fields (a name, a job title) that is
 *    not public elsewhere in the record (title, firm, products) is dropped.
 *
 * Dropping too much loses a sentence of boilerplate; dropping too little publishes a person's
 * phone number, so every layer errs towards dropping.
 */
import { htmlToLines } from '../../extract/html-text.ts';

/** Paragraphs that give contacts: the consumer/media contact and the USDA hotline (English, Spanish). */
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

/** A North American phone number: `(402) 555-0142`, `402-555-0142`, `1-800-555-0199`, `888.674.6854`. */
const PHONE = /(?<![\w])(?:\+?1[\s.\-–]?)?(?:\(\d{3}\)|\d{3})[\s.\-–]?\d{3}[\s.\-–]?\d{4}(?!\d)/;
/** A vanity number: `888-MPHotline`, `1-800-FOOD-NOW`. */
const VANITY_PHONE = /\b(?:1[\s.-]?)?8(?:00|33|44|55|66|77|88)[\s.-][A-Za-z][A-Za-z0-9-]{3,}/;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;

/** Sentence boundaries: after `.`, `!` or `?` when the next word does not start in lower case. */
const SENTENCE_BREAK = /(?<=[.!?]["”’)]?)\s+(?=[^\s\p{Ll}])/u;

function fold(text: string): string {
  return text.normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Whether a piece of text holds a phone number or an e-mail address. */
export function hasPhoneOrEmail(text: string): boolean {
  return PHONE.test(text) || VANITY_PHONE.test(text) || EMAIL.test(text);
}

/**
 * The parts of the contact fields that identify a person and must not appear in a draft:
 * each line or comma/semicolon/slash-separated part with at least two words or eight
 * characters, unless it is public elsewhere in the record (`publicText`: the firm name, for
 * instance, appears in the title and the contact block alike). Phone numbers and e-mail
 * addresses are caught by their shape instead.
 */
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

/**
 * The press release as lines of plain text (one per paragraph or list item) with every contact
 * paragraph, and every sentence holding a phone number, an e-mail address or one of
 * `sensitive` (from {@link contactParts}), removed.
 */
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

/** What FSIS tells consumers to do: "urged not to consume", "thrown away or returned …" (English, Spanish). */
const ADVICE =
  /\b(?:urged|advised|encouraged|not to (?:eat|consume)|should (?:not )?be (?:thrown|discarded|returned|destroyed)|thrown (?:away|out)|discard|se insta|no consumir|desech\w*|devolver\w*)\b/i;

/** The paragraphs of the press release that tell consumers what to do with the product. */
export function adviceLines(lines: readonly string[]): string[] {
  return lines.filter((line) => ADVICE.test(line));
}
