/** API keys: `rk_live_` + 40 random base62 characters; only a SHA-256 hash and a short prefix are stored. */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256 } from './sha256.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PREFIX = 'rk_live_';

/** Uniform random base62 string (rejection sampling, so no character is favoured). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function generateApiKey(): { key: string; id: string; prefix: string } {
  const key = `${KEY_PREFIX}${randomBase62(40)}`;
  return { key, id: `key_${randomBase62(16)}`, prefix: key.slice(0, KEY_PREFIX.length + 4) };
}

export function hashApiKey(key: string): string {
  return sha256(key);
}

/** Constant-time comparison of two hex hashes. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(KEY_PREFIX) && /^[A-Za-z0-9_]+$/.test(value) && value.length <= 128;
}
