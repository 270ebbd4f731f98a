/**
 * Agency HTML and entity-laden text → plain text. FSIS serves its press release (`field_summary`)
 * and product list as HTML, sometimes entity-encoded as a whole (`&lt;p&gt;…`), and escapes
 * free text with entities, sometimes twice (`&amp;amp;`, `Pilgrim&#039;s`); Health Canada's dump
 * carries `&amp;`, `&nbsp;` and zero-width spaces. Written by hand: a handful of regular
 * expressions and an entity table cover what these feeds serve, without an HTML parser.
 */

/** Named entities seen in agency text (English, Spanish and French prose, typography, symbols). */
const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ensp: ' ',
  emsp: ' ',
  thinsp: ' ',
  shy: '\u00ad',
  zwsp: '\u200b',
  zwnj: '\u200c',
  zwj: '\u200d',
  lrm: '\u200e',
  rlm: '\u200f',
  ndash: '–',
  mdash: '—',
  lsquo: '‘',
  rsquo: '’',
  sbquo: '‚',
  ldquo: '“',
  rdquo: '”',
  bdquo: '„',
  laquo: '«',
  raquo: '»',
  hellip: '…',
  bull: '•',
  middot: '·',
  copy: '©',
  reg: '®',
  trade: '™',
  deg: '°',
  frac12: '½',
  frac14: '¼',
  frac34: '¾',
  times: '×',
  divide: '÷',
  plusmn: '±',
  sup2: '²',
  sup3: '³',
  micro: 'µ',
  para: '¶',
  sect: '§',
  cent: '¢',
  pound: '£',
  euro: '€',
  yen: '¥',
  iexcl: '¡',
  iquest: '¿',
  ordf: 'ª',
  ordm: 'º',
  aacute: 'á',
  Aacute: 'Á',
  eacute: 'é',
  Eacute: 'É',
  iacute: 'í',
  Iacute: 'Í',
  oacute: 'ó',
  Oacute: 'Ó',
  uacute: 'ú',
  Uacute: 'Ú',
  ntilde: 'ñ',
  Ntilde: 'Ñ',
  uuml: 'ü',
  Uuml: 'Ü',
  agrave: 'à',
  Agrave: 'À',
  egrave: 'è',
  Egrave: 'È',
  ugrave: 'ù',
  acirc: 'â',
  ecirc: 'ê',
  Ecirc: 'Ê',
  icirc: 'î',
  ocirc: 'ô',
  ucirc: 'û',
  euml: 'ë',
  iuml: 'ï',
  ccedil: 'ç',
  Ccedil: 'Ç',
  oelig: 'œ',
};

const ENTITY = /&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,8});/g;
/** A tag: `<` then a letter or `/letter` (so `<2 kg` stays text), up to the next `>`. */
const TAG = /<\/?[A-Za-z][^<>]*>/g;
/** Tags whose boundaries end a line of text. */
const BLOCK_TAG =
  /<\/?(?:p|div|br|li|ul|ol|h[1-6]|tr|td|th|table|tbody|thead|blockquote|section|article|header|footer|hr|dd|dt|dl)\b[^<>]*>/gi;
/** An entity-encoded tag (`&lt;p&gt;`, `&lt;/li&gt;`): the whole HTML was escaped once more. */
const ENCODED_TAG = /&lt;\/?[A-Za-z][^<>]*?&gt;/;
/** Invisible format characters: zero-width space/joiners, word joiner, BOM, soft hyphen, marks. */
const INVISIBLE = /[\u200b-\u200f\u2060\ufeff\u00ad]/g;

function decodeOnce(text: string): string {
  return text.replace(ENTITY, (whole, body: string) => {
    if (body.startsWith('#')) {
      const hex = body[1] === 'x' || body[1] === 'X';
      const code = Number.parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10);
      const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
      return valid ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body] ?? whole;
  });
}

/**
 * Decodes HTML entities, repeatedly (at most three times) because agency text is sometimes
 * escaped more than once (`&amp;amp;` → `&`). Unknown entities are left as they are.
 */
export function decodeEntities(text: string): string {
  let out = text;
  for (let i = 0; i < 3; i++) {
    const next = decodeOnce(out);
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
  for (let i = 0; i < 3 && ENCODED_TAG.test(text); i++) text = decodeOnce(text);
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
