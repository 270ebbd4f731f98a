/** Agency HTML and entity-laden text → plain text, by a few regular expressions (no HTML parser). */
import { decodeHTMLStrict } from 'entities';

/** An entity reference; names in any case (upper-case prose writes `&NBSP;`), retried in lower case. */
const ENTITY = /&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/g;
/** A tag: `<` then a letter or `/letter` (so `<2 kg` stays text), up to the next `>`. */
const TAG = /<\/?[A-Za-z][^<>]*>/g;
const BLOCK_TAG =
  /<\/?(?:p|div|br|li|ul|ol|h[1-6]|tr|td|th|table|tbody|thead|blockquote|section|article|header|footer|hr|dd|dt|dl)\b[^<>]*>/gi;
/** An entity-encoded tag (`&lt;p&gt;`): the whole HTML was escaped once more. */
const ENCODED_TAG = /&lt;\/?[A-Za-z][^<>]*?&gt;/;
const INVISIBLE = /[\u200b-\u200f\u2060\ufeff\u00ad]/g;

function decodeReference(ref: string): string {
  if (ref[1] === '#') {
    const hex = ref[2] === 'x' || ref[2] === 'X';
    const code = Number.parseInt(ref.slice(hex ? 3 : 2, -1), hex ? 16 : 10);
    // No code point (`&#0;`, surrogate, > U+10FFFF): kept as written, not U+FFFD.
    const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
    return valid ? decodeHTMLStrict(ref) : ref;
  }
  const decoded = decodeHTMLStrict(ref);
  return decoded !== ref ? decoded : decodeHTMLStrict(ref.toLowerCase());
}

/** Decodes entities once (`&amp;amp;` → `&amp;`), unknown ones kept; every adapter decodes through here. */
export function decodeEntitiesOnce(text: string): string {
  return text.includes('&') ? text.replace(ENTITY, decodeReference) : text;
}

/** Decodes entities up to three times, as agency text is sometimes escaped more than once. */
export function decodeEntities(text: string): string {
  let out = text;
  for (let i = 0; i < 3; i++) {
    const next = decodeEntitiesOnce(out);
    if (next === out) break;
    out = next;
  }
  return out;
}

function tidyLine(line: string): string {
  return line.replace(INVISIBLE, '').replace(/\s+/g, ' ').trim();
}

/** HTML or text → its non-empty lines (per paragraph, item, `<br>`), tags gone, entities decoded, tidied. */
export function htmlToLines(html: string | null | undefined): string[] {
  if (html === null || html === undefined || html === '') return [];
  let text = html;
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
