/**
 * VINs (../shared/spec/identifiers.md, "Rules per kind"): the check digit is reported, not
 * required, because European VINs legitimately fail it.
 */
import type { Rejection } from './kinds.ts';

/** The outcome of the VIN rule. */
export type VinResult = { ok: true; normalized: string; checkDigitValid: boolean } | Rejection;

/** 49 CFR 565.15 letter values (I, O, Q never occur). */
// prettier-ignore
const TRANSLITERATION: Readonly<Record<string, number>> = {
  A: 1, B: 2, C: 3, D: 4, E: 5, F: 6, G: 7, H: 8,
  J: 1, K: 2, L: 3, M: 4, N: 5, P: 7, R: 9,
  S: 2, T: 3, U: 4, V: 5, W: 6, X: 7, Y: 8, Z: 9,
};
/** 49 CFR 565.15 position weights; position 9, the check digit, weighs 0. */
const WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2] as const;

/** The check digit (`0`-`9` or `X`) position 9 should hold; expects upper-case valid characters. */
export function vinCheckDigit(vin: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) {
    const c = vin.charAt(i);
    const value = c >= '0' && c <= '9' ? Number(c) : (TRANSLITERATION[c] ?? 0);
    sum += value * (WEIGHTS[i] ?? 0);
  }
  const remainder = sum % 11;
  return remainder === 10 ? 'X' : String(remainder);
}

/** 17 of `0-9A-Z` less `I`, `O`, `Q`, spaces and hyphens dropped; nothing auto-corrected (no `O` → `0`). */
export function normaliseVin(value: string): VinResult {
  const vin = value.replace(/[\s-]+/g, '').toUpperCase();
  const bad = /[^0-9A-Z]/.exec(vin);
  if (bad) {
    return {
      ok: false,
      reason: 'invalid_characters',
      detail: `contains "${bad[0]}"; a VIN has only letters and digits`,
    };
  }
  if (vin.length !== 17) {
    return {
      ok: false,
      reason: 'invalid_length',
      detail: `a VIN has 17 characters, this value has ${vin.length}`,
    };
  }
  const ioq = /[IOQ]/.exec(vin);
  if (ioq) {
    return {
      ok: false,
      reason: 'invalid_characters',
      detail: `contains the letter ${ioq[0]}, which is never used in a VIN`,
    };
  }
  return { ok: true, normalized: vin, checkDigitValid: vin.charAt(8) === vinCheckDigit(vin) };
}
