/**
 * Agency HTML and entity-laden text → plain text. FSIS serves its press release (`field_summary`)
 * and product list as HTML, sometimes entity-encoded as a whole (`&lt;p&gt;…`), and escapes
 * free text with entities, sometimes twice (`&amp;amp;`, `Pilgrim&#039;s`); Health Canada's dump
 * carries `&amp;`, `&nbsp;` and zero-width spaces. A handful of regular expressions cover the
 * markup these feeds serve, without an HTML parser; entities are decoded by the `entities` package.
 */
import { decodeHTMLStrict } from 'entities';

/**
 * An entity reference. Names are matched in any case because agencies write upper-case prose
 * (`&NBSP;`, `&Amp;`): a name unknown as written is tried in lower case.
 */
const ENTITY = /&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/g;
/** A tag: `<` then a letter or `/letter` (so `<2 kg` stays text), up to the next `>`. */
const TAG = /<\/?[A-Za-z][^<>]*>/g;
/** Tags whose boundaries end a line of text. */
const BLOCK_TAG =
  /<\/?(?:p|div|br|li|ul|ol|h[1-6]|tr|td|th|table|tbody|thead|blockquote|section|article|header|footer|hr|dd|dt|dl)\b[^<>]*>/gi;
/** An entity-encoded tag (`&lt;p&gt;`, `&lt;/li&gt;`): the whole HTML was escaped once more. */
const ENCODED_TAG = /&lt;\/?[A-Za-z][^<>]*?&gt;/;
/** Invisible format characters: zero-width space/joiners, word joiner, BOM, soft hyphen, marks. */
const INVISIBLE = /[\u200b-\u200f\u2060\ufeff\u00ad]/g;

function decodeReference(ref: string): string {
  if (ref[1] === '#') {
    const hex = ref[2] === 'x' || ref[2] === 'X';
    const code = Number.parseInt(ref.slice(hex ? 3 : 2, -1), hex ? 16 : 10);
    // No code point (`&#0;`, a surrogate, past U+10FFFF): kept as written, not replaced by U+FFFD.
    const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
    return valid ? decodeHTMLStrict(ref) : ref;
  }
  const decoded = decodeHTMLStrict(ref);
  return decoded !== ref ? decoded : decodeHTMLStrict(ref.toLowerCase());
}

/**
 * Decodes the HTML entities of `text` once (`&amp;amp;` → `&amp;`); a reference that names no
 * character is left as it is. Every adapter decodes entities through this function.
 */
export function decodeEntitiesOnce(text: string): string {
  return text.includes('&') ? text.replace(ENTITY, decodeReference) : text;
}

/**
 * Decodes HTML entities, repeatedly (at most three times) because agency text is sometimes
 * escaped more than once (`&amp;amp;` → `&`). Unknown entities are left as they are.
 */
export function decodeEntities(text: string): string {
  let out = text;
  for (let i = 0; i < 3; i++) {
    const next = decodeEntitiesOnce(out);
    if (next === out) break;
    out = next;
  }
  return out;
}

/** One line of display text: invisible characters gone, no-break spaces as spaces, whitespace collapsed. */
function tidyLine(line: string): string {
  return line.replace(INVISIBLE, '').replace(/\s+/g, ' ').trim();
}

/**
 * HTML (or plain text with entities) → its lines of text: one per paragraph, list item or
 * `<br>`-separated line, tags removed, entities decoded, invisible characters removed and
 * whitespace collapsed. Empty lines are dropped. Plain text with newlines keeps its lines.
 */
export function htmlToLines(html: string | null | undefined): string[] {
  if (html === null || html === undefined || html === '') return [];
  let text = html;
  // The whole document escaped once more: unescape until real tags appear.
  for (let i = 0; i < 3 && ENCODED_TAG.test(text); i++) text = decodeEntitiesOnce(text);
  text = text
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style)\b[^<>]*>[\s\S]*?<\/\1\s*>/gi, '')
    .replace(BLOCK_TAG, '\n')
    .replace(TAG, '');
  return decodeEntities(text)
    .normalize('NFC')
    .split(/\r\n|\r|\n/)
    .map(tidyLine)
    .filter((line) => line !== '');
}

/** HTML or entity-laden text → one line of plain text; null when nothing is left. */
export function plainText(value: string | null | undefined): string | null {
  const text = htmlToLines(value).join(' ');
  return text === '' ? null : text;
}
