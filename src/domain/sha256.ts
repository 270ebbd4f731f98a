/** SHA-256 of text, the one hash function of the domain (content hashes, digests, cursors, API keys). */
import * as crypto from 'node:crypto';

/** The SHA-256 of `text`'s UTF-8 in `encoding`: the one-shot `crypto.hash` where Node has it (20.12+). */
export const sha256: (text: string, encoding?: 'hex' | 'base64url') => string =
  typeof crypto.hash === 'function'
    ? (text, encoding = 'hex') => crypto.hash('sha256', text, encoding)
    : (text, encoding = 'hex') => crypto.createHash('sha256').update(text).digest(encoding);
