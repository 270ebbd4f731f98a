/** `model`, `lot`, `batch` codes and placeholder texts (../shared/spec/identifiers.md, "Rules per kind"). */
import type { Rejection } from './kinds.ts';
import { isPrintableAscii } from './labels.ts';

/** The outcome of a text-code rule: the canonical code, or why there is none. */
export type TextCodeResult = { ok: true; normalized: string } | Rejection;

/** Whole values (upper-cased, punctuation runs as single spaces) that are placeholders. */
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
/** A first word (whitespace-delimited) that makes the whole value a placeholder: `All models`. */
const PLACEHOLDER_FIRST_WORDS = new Set(['ALL', 'NONE', 'UNKNOWN']);
const ONE_WORD_WITH_DIGIT = /^\s*\S*\d\S*\s*$/;

/** `No code`, `No lot codes`, `No UDI Codes provided`. */
const NO_CODES = /^NO(?: [A-Z]+){0,2} CODES?(?: [A-Z]+)*$/;

/** Whether a value is placeholder text (`All lots`, `N/A`, `No codes` …): it normalises to `empty`. */
export function isPlaceholder(value: string): boolean {
  if (ONE_WORD_WITH_DIGIT.test(value)) return false;
  const words = value
    .toUpperCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  if (words === '') return false;
  // Whitespace-delimited, so `ALL-IN-ONE 5` is a model, not `ALL`.
  const firstToken = value.trim().split(/\s+/, 1)[0] ?? '';
  const first = firstToken.toUpperCase().replace(/[^\p{L}\p{N}]+/gu, '');
  return PLACEHOLDERS.has(words) || PLACEHOLDER_FIRST_WORDS.has(first) || NO_CODES.test(words);
}

/**
 * Upper-case, keep only `A-Z0-9` (`KBF/05` → `KBF05`), leading zeros stay; accents drop their
 * marks but other letters (`Ж`, `中`) are `invalid_characters`, so codes never collide silently.
 */
export function normaliseTextCode(value: string): TextCodeResult {
  if (isPlaceholder(value)) {
    return { ok: false, reason: 'empty', detail: 'placeholder text, not an identifier' };
  }
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
