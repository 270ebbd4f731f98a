/** Reads FLAT_RCL (zip or its text file) in slices cut at line ends: 300 MB never becomes one string. */
import { UpstreamError, formatError } from '../../errors.ts';
import type { SetAside } from '../../source.ts';
import { parseFlatRclRow, type FlatRclRow } from './schema.ts';
import { listZipEntries, readZipEntry } from './zip.ts';

/** Largest text file in the zip: 512 MiB, ~twice today's whole file (~300 MB); bounds the run's memory. */
export const MAX_UNZIPPED_BYTES = 512 * 1024 * 1024;
/** Bytes of text decoded at a time (cut at the next line end). */
const SLICE_BYTES = 8 * 1024 * 1024;

const CRLF = Buffer.from('\r\n');
const LF = Buffer.from('\n');

/** Whether a body is a zip archive (a local file header or an empty archive's end record). */
export function isZip(body: Uint8Array): boolean {
  return body.length >= 4 && body[0] === 0x50 && body[1] === 0x4b && (body[2] === 3 || body[2] === 5);
}

/** The zip's one `.txt` (counted before inflating, inflated under `maxBytes`), or the body itself. */
export function flatRclText(body: Buffer, url?: string, maxBytes = MAX_UNZIPPED_BYTES): Buffer {
  if (!isZip(body)) return body;
  const files = listZipEntries(body, url).filter((entry) => !entry.name.endsWith('/'));
  const texts = files.filter((entry) => /\.txt$/i.test(entry.name));
  if (texts.length !== 1) {
    const names = files.map((entry) => entry.name).join(', ');
    throw formatError(
      `FLAT_RCL zip should hold one .txt file, holds ${texts.length} (${names || 'nothing'})`,
      url,
    );
  }
  return readZipEntry(body, texts[0]!, maxBytes, url);
}

/** CRLF if it ends most lines of the first megabyte (a stray LF in a narrative stays text), else LF. */
function lineEnd(text: Buffer): Buffer {
  const head = text.subarray(0, 1024 * 1024);
  let lf = 0;
  let crlf = 0;
  for (let i = head.indexOf(0x0a); i !== -1; i = head.indexOf(0x0a, i + 1)) {
    lf += 1;
    if (i > 0 && head[i - 1] === 0x0d) crlf += 1;
  }
  return crlf > 0 && crlf * 2 >= lf ? CRLF : LF;
}

/**
 * Calls `onRow` per row in file order; tabs split fields, no quoting; a malformed row goes to
 * `onSetAside`, or throws UpstreamError('format'). Split by hand: csv-parse (~15 MB/s) would block
 * `serve`'s event loop ~20 s on the 300 MB file; this takes about one.
 */
export function forEachFlatRclRow(
  text: Buffer,
  onRow: (row: FlatRclRow) => void,
  url?: string,
  onSetAside?: (row: SetAside) => void,
): void {
  const eol = lineEnd(text);
  const eolText = eol.toString('latin1');
  let line = 0;
  for (let start = 0; start < text.length;) {
    let end = start + SLICE_BYTES;
    if (end >= text.length) end = text.length;
    else {
      const next = text.indexOf(eol, end);
      end = next === -1 ? text.length : next + eol.length;
    }
    const lines = text.toString('utf8', start, end).split(eolText);
    // A slice ends with a line end (but perhaps the last), leaving one empty piece after it.
    if (lines.at(-1) === '') lines.pop();
    for (let raw of lines) {
      line += 1;
      if (line === 1 && raw.charCodeAt(0) === 0xfeff) raw = raw.slice(1);
      if (raw.trim() === '') continue;
      let row: FlatRclRow;
      try {
        row = parseFlatRclRow(raw.split('\t'), line, url);
      } catch (error) {
        if (onSetAside === undefined || !(error instanceof UpstreamError)) throw error;
        onSetAside({ record: `line ${line}`, reason: error.message.replace(/^FLAT_RCL line \d+:? /, '') });
        continue;
      }
      onRow(row);
    }
    start = end;
  }
}
