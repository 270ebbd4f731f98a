/**
 * Vehicle identification numbers (../shared/spec/identifiers.md, "vin"): 17 characters from
 * `0-9A-Z` without `I`, `O`, `Q`. The position-9 check digit of 49 CFR 565 is computed and
 * reported, not required: European VINs legitimately fail it.
 */
import type { Rejection } from './kinds.ts';

/** The outcome of the VIN rule. */
export type VinResult = { ok: true; normalized: string; checkDigitValid: boolean } | Rejection;

/** 49 CFR 565.15 transliteration of letters (I, O and Q have no value: they never occur). */
// prettier-ignore
const TRANSLITERATION: Readonly<Record<string, number>> = {
  A: 1, B: 2, C: 3, D: 4, E: 5, F: 6, G: 7, H: 8,
  J: 1, K: 2, L: 3, M: 4, N: 5, P: 7, R: 9,
  S: 2, T: 3, U: 4, V: 5, W: 6, X: 7, Y: 8, Z: 9,
};
/** 49 CFR 565.15 position weights; position 9 (the check digit itself) weighs 0. */
const WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2] as const;

/**
 * The check digit (`0`-`9` or `X`) that position 9 of a 17-character VIN should hold under
 * 49 CFR 565.15. Expects an upper-case VIN of valid characters.
 */
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

/**
 * Normalises a VIN: spaces and hyphens go, upper-cased, then exactly 17 characters of
 * `0-9A-Z` without `I`, `O`, `Q`. Nothing is auto-corrected (no `O` → `0`).
 * `checkDigitValid` tells whether position 9 verifies; it does not affect validity.
 */
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
