/**
 * Opaque paging cursors: endpoint, filter fingerprint and keyset position, HMAC-SHA256-signed under
 * the per-database secret, so edited cursors are refused. They grant nothing: queries stay scoped.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { sha256 } from './sha256.ts';

export type CursorPosition = (string | number | null)[];

export class InvalidCursorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidCursorError';
  }
}

const DOMAIN = 'recalls-cursor-v2';

function mac(secret: Uint8Array, payload: string): Buffer {
  return createHmac('sha256', secret).update(`${DOMAIN}\n${payload}`).digest();
}

/** A short stable fingerprint of the filters a walk was started with. */
export function filterFingerprint(filters: Record<string, unknown>): string {
  const entries = Object.entries(filters)
    .filter(([, v]) => v !== undefined && v !== null)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return sha256(JSON.stringify(entries), 'base64url').slice(0, 12);
}

/** A cursor for `position`, signed with `secret`. */
export function encodeCursor(
  secret: Uint8Array,
  endpoint: string,
  fingerprint: string,
  position: CursorPosition,
): string {
  const payload = Buffer.from(JSON.stringify([endpoint, fingerprint, position]), 'utf8').toString(
    'base64url',
  );
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

function signedBy(secret: Uint8Array, payload: string, sum: string): boolean {
  const given = Buffer.from(sum, 'utf8');
  const expected = Buffer.from(mac(secret, payload).toString('base64url'), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Decodes a cursor `secret` signed for this endpoint and filter set, or throws InvalidCursorError. */
export function decodeCursor(
  secret: Uint8Array,
  cursor: string,
  endpoint: string,
  fingerprint: string,
): CursorPosition {
  const [payload, sum, ...rest] = cursor.split('.');
  if (payload === undefined || sum === undefined || rest.length > 0 || !signedBy(secret, payload, sum)) {
    throw new InvalidCursorError('the cursor is not one this service issued, or it was altered');
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError('the cursor does not decode');
  }
  if (!Array.isArray(decoded) || decoded.length !== 3 || !Array.isArray(decoded[2])) {
    throw new InvalidCursorError('the cursor does not decode');
  }
  const [e, f, position] = decoded as [unknown, unknown, unknown[]];
  if (e !== endpoint) throw new InvalidCursorError('the cursor was issued for another endpoint');
  if (f !== fingerprint) throw new InvalidCursorError('the cursor was issued for other filters');
  if (!position.every((p) => p === null || typeof p === 'string' || typeof p === 'number')) {
    throw new InvalidCursorError('the cursor does not decode');
  }
  return position as CursorPosition;
}
