/**
 * Free-form codes: `model`, `lot` and `batch` (../shared/spec/identifiers.md,
 * "model, lot, batch"), and the placeholder texts agencies publish instead of a value (`N/A`,
 * `All lots`, `no code` …).
 */
import type { Rejection } from './kinds.ts';
import { isPrintableAscii } from './labels.ts';

/** The outcome of a text-code rule: the canonical code, or why there is none. */
export type TextCodeResult = { ok: true; normalized: string } | Rejection;

/** Whole values (upper-cased, punctuation runs turned into single spaces) that are placeholders. */
const PLACEHOLDERS = new Set([
  'N A',
  'NA',
  'N AV',
  'NIL',
  'NULL',
  'NONE',
  'UNKNOWN',
  'NO CODE',
  'NO CODES',
  'NOT APPLICABLE',
  'NOT AVAILABLE',
  'NOT PROVIDED',
  'NOT SPECIFIED',
  'UNSPECIFIED',
]);
/**
 * A first word (whitespace-delimited, punctuation ignored) that makes the whole value a
 * placeholder: `All models`, `All best before dates`.
 */
const PLACEHOLDER_FIRST_WORDS = new Set(['ALL', 'NONE', 'UNKNOWN']);
const ONE_WORD_WITH_DIGIT = /^\s*\S*\d\S*\s*$/;

/** `No code`, `No lot codes`, `No UDI Codes provided`: "no", at most two words, "code(s)". */
const NO_CODES = /^NO(?: [A-Z]+){0,2} CODES?(?: [A-Z]+)*$/;

/**
 * Whether a value is placeholder text rather than an identifier: its first word is `ALL`
 * (`All`, `All lot codes.`), or it is `N/A`, `NA`, `NONE`, `UNKNOWN`, `NO CODE(S)` and kin,
 * compared case-insensitively and ignoring punctuation. Such values normalise to `empty`.
 */
export function isPlaceholder(value: string): boolean {
  // One word holding a digit: no placeholder has a digit, and its first word is itself.
  if (ONE_WORD_WITH_DIGIT.test(value)) return false;
  const words = value
    .toUpperCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  if (words === '') return false;
  // The first word is delimited by whitespace only, so `ALL-IN-ONE 5` is a model, not `ALL`.
  const firstToken = value.trim().split(/\s+/, 1)[0] ?? '';
  const first = firstToken.toUpperCase().replace(/[^\p{L}\p{N}]+/gu, '');
  return PLACEHOLDERS.has(words) || PLACEHOLDER_FIRST_WORDS.has(first) || NO_CODES.test(words);
}

/**
 * Normalises a model, lot or batch code: upper-case, then punctuation, symbols, spaces and
 * control characters go (`KBF/05` → `KBF05`, `PA17-412` → `PA17412`); leading zeros stay
 * (`0007`). Accents go with their marks (`É` → `E`); any other letter or digit outside
 * `A-Z0-9` (`Ж`, `中`) is `invalid_characters`, not dropped, so codes never collide silently.
 * Placeholders and values with nothing left are `empty`; a single character is `invalid_length`.
 */
export function normaliseTextCode(value: string): TextCodeResult {
  if (isPlaceholder(value)) {
    return { ok: false, reason: 'empty', detail: 'placeholder text, not an identifier' };
  }
  // Printable ASCII (nearly every code) needs no decomposition: the same result, faster.
  const code = isPrintableAscii(value)
    ? value.toUpperCase().replace(/[^A-Z0-9]+/g, '')
    : value
        .normalize('NFD')
        .replace(/\p{M}+/gu, '')
        .toUpperCase()
        .replace(/[^\p{L}\p{N}]+/gu, '');
  if (code === '') {
    return { ok: false, reason: 'empty', detail: 'no letters or digits in the value' };
  }
  const foreign = /[^A-Z0-9]/.exec(code);
  if (foreign) {
    return {
      ok: false,
      reason: 'invalid_characters',
      detail: `contains "${foreign[0]}"; only letters A-Z and digits are allowed`,
    };
  }
  if (code.length < 2) {
    return { ok: false, reason: 'invalid_length', detail: 'a code needs at least 2 letters or digits' };
  }
  return { ok: true, normalized: code };
}
