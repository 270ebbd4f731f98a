/** NDCs as an 11-digit 5-4-2 package or 9-digit product (../shared/spec/identifiers.md, "Rules per kind"). */
import { reject, type Rejection } from './kinds.ts';

/** The outcome of the NDC rule. */
export type NdcResult = { ok: true; normalized: string } | Rejection;

/** Hyphenated segment layouts and how each pads to 5-4-2 or 5-4. */
const LAYOUTS: Readonly<Record<string, (s: readonly string[]) => string>> = {
  '4-4-2': ([a, b, c]) => `0${a}${b}${c}`,
  '5-3-2': ([a, b, c]) => `${a}0${b}${c}`,
  '5-4-1': ([a, b, c]) => `${a}${b}0${c}`,
  '5-4-2': ([a, b, c]) => `${a}${b}${c}`,
  '4-4': ([a, b]) => `0${a}${b}`,
  '5-3': ([a, b]) => `${a}0${b}`,
  '5-4': ([a, b]) => `${a}${b}`,
};

/** Spaces count as hyphens, a final period is ignored; 10 plain digits are `ambiguous` (3 layouts fit). */
export function normaliseNdc(value: string): NdcResult {
  const text = value
    .replace(/\.$/, '')
    .trim()
    .replace(/[\s-]+/g, '-');
  const bad = /[^0-9-]/.exec(text);
  if (bad) return reject('invalid_characters', `contains "${bad[0]}"; an NDC has only digits and hyphens`);
  const segments = text.split('-');
  if (segments.length === 1) {
    if (text.length === 11) return { ok: true, normalized: text };
    if (text.length === 10) {
      return reject(
        'ambiguous',
        'a 10-digit NDC without hyphens is ambiguous (it fits 4-4-2, 5-3-2 and 5-4-1); give it with hyphens',
      );
    }
    return reject(
      'invalid_length',
      `an NDC without hyphens must have 11 digits, this one has ${text.length}`,
    );
  }
  const layout = segments.map((s) => s.length).join('-');
  const convert = LAYOUTS[layout];
  if (!convert) {
    return reject(
      'invalid_length',
      `segment layout ${layout} is not an NDC layout (4-4-2, 5-3-2, 5-4-1, 5-4-2, or 4-4, 5-3, 5-4 for a product)`,
    );
  }
  return { ok: true, normalized: convert(segments) };
}
