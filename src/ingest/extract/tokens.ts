/** Prose as tokens (brackets, quotes, `#` and trailing punctuation split off), each keeping its offsets. */

export interface Token {
  text: string;
  start: number;
  end: number;
}

const BRACKETS = /[()[\]{}]/;
/** Split off a token's start: opening quotes (not a word's apostrophe) and a glued `#` (`#PM 4910-10`). */
const OPENERS = new Set(['"', '“', '‘', '«', "'", '#']);
/** Split off a token's end, plus one full stop. */
const CLOSERS = new Set(['"', '”', '’', '»', "'", ',', ';', ':', '!', '?']);

/** Splits text into tokens (see the module comment). */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  // A colon splits a token ("Model:20A-13") unless it sits between digits ("08:59").
  for (const m of text.matchAll(/[()[\]{}]|(?<!\d):|:(?!\d)|(?:[^\s()[\]{}:]|(?<=\d):(?=\d))+/g)) {
    let start = m.index;
    let end = start + m[0].length;
    if (BRACKETS.test(m[0])) {
      out.push({ text: m[0], start, end });
      continue;
    }
    const head: Token[] = [];
    const tail: Token[] = [];
    while (start < end && OPENERS.has(text.charAt(start))) {
      head.push({ text: text.charAt(start), start, end: start + 1 });
      start += 1;
    }
    for (let dot = true; end > start;) {
      const c = text.charAt(end - 1);
      if (CLOSERS.has(c) || (c === '.' && dot)) {
        if (c === '.') dot = false;
        tail.unshift({ text: c, start: end - 1, end });
        end -= 1;
      } else break;
    }
    out.push(...head);
    if (end > start) out.push({ text: text.slice(start, end), start, end });
    out.push(...tail);
  }
  return out;
}

/** Abbreviations whose full stop does not end a sentence ("Model No. 12", "90 Qt. Cooler"). */
const ABBREVIATIONS = new Set([
  'no',
  'nos',
  'nr',
  'qt',
  'co',
  'inc',
  'ltd',
  'corp',
  'st',
  'mr',
  'mrs',
  'ms',
  'dr',
  'jr',
  'sr',
  'approx',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'u.s',
  'oz',
  'lb',
  'lbs',
  'ft',
  'in',
  'rd',
  'ave',
  'fig',
  'vol',
  'art',
  'ref',
  'cat',
  'dept',
  'est',
  'mfg',
  'exp',
  'pt',
  'gal',
  'wt',
  'net',
  'tel',
  'ca',
]);

/** A `.`/`!`/`?` before a space and no lower-case word; a full stop not after an abbreviation or initial. */
export function endsSentence(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i];
  if (t === undefined || (t.text !== '.' && t.text !== '!' && t.text !== '?')) return false;
  if (t.text === '.') {
    const prev = tokens[i - 1];
    if (prev !== undefined && prev.end === t.start) {
      if (ABBREVIATIONS.has(prev.text.toLowerCase()) || /^[A-Z]$/.test(prev.text)) return false;
    }
  }
  const next = tokens[i + 1];
  if (next === undefined) return true;
  return next.start > t.end && !/^\p{Ll}/u.test(next.text);
}
