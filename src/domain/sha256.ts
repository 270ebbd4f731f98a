/** SHA-256, the one hash function of the project (content hashes, digests, cursors, API keys, page bodies). */
import * as crypto from 'node:crypto';

/** The SHA-256 of `data` (text as UTF-8) in `encoding`: the one-shot `crypto.hash` where Node has it (20.12+). */
export const sha256: (data: string | Uint8Array, encoding?: 'hex' | 'base64url') => string =
  typeof crypto.hash === 'function'
    ? (data, encoding = 'hex') => crypto.hash('sha256', data, encoding)
    : (data, encoding = 'hex') => crypto.createHash('sha256').update(data).digest(encoding);
