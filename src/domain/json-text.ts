/**
 * JSON text as a tree of pieces: strings, UTF-8 bytes, and lists of pieces. A stored rendering is read as
 * bytes where the engine can hand them over (SQLite), so that an answer's text is never decoded from UTF-8
 * and encoded again, and the pieces are joined once, into the buffer that is sent. A 50-recall page with
 * one non-ASCII character was a two-byte string of ~70 K characters whose encoding alone took ~130 µs.
 */

/** A piece of JSON text: a string, its UTF-8 bytes, or pieces in order. */
export type JsonText = string | Uint8Array | readonly JsonText[];

function byteSize(text: JsonText): number {
  if (typeof text === 'string') return Buffer.byteLength(text);
  if (text instanceof Uint8Array) return text.length;
  let size = 0;
  for (let i = 0; i < text.length; i++) size += byteSize(text[i]!);
  return size;
}

function writeInto(text: JsonText, out: Buffer, at: number): number {
  if (typeof text === 'string') return at + out.write(text, at);
  if (text instanceof Uint8Array) {
    out.set(text, at);
    return at + text.length;
  }
  for (let i = 0; i < text.length; i++) at = writeInto(text[i]!, out, at);
  return at;
}

/** The text's UTF-8 bytes, in one buffer of exactly their size. */
export function jsonBytes(text: JsonText): Buffer {
  if (text instanceof Buffer) return text;
  const out = Buffer.allocUnsafe(byteSize(text));
  writeInto(text, out, 0);
  return out;
}

/** The text as one string. */
export function jsonString(text: JsonText): string {
  return typeof text === 'string' ? text : jsonBytes(text).toString('utf8');
}
