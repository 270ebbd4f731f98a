/**
 * Reading the FLAT_RCL file: the zip NHTSA serves (one tab-separated text file inside), or that
 * text file itself. Rows are read in slices of a few megabytes cut at line ends, so the
 * 300 MB text of the full file never becomes one JavaScript string.
 */
import { unzipSync } from 'fflate';
import { UpstreamError, formatError } from '../../errors.ts';
import type { SetAside } from '../../source.ts';
import { parseFlatRclRow, type FlatRclRow } from './schema.ts';

/** Largest text file accepted inside the zip (today's is about 300 MB). */
export const MAX_UNZIPPED_BYTES = 1024 * 1024 * 1024;
/** Bytes of text decoded at a time (cut at the next line end). */
const SLICE_BYTES = 8 * 1024 * 1024;

const CRLF = Buffer.from('\r\n');
const LF = Buffer.from('\n');

/** Whether a body is a zip archive (a local file header or an empty archive's end record). */
export function isZip(body: Uint8Array): boolean {
  return body.length >= 4 && body[0] === 0x50 && body[1] === 0x4b && (body[2] === 3 || body[2] === 5);
}

/** The tab-separated text of a page: the one `.txt` file inside a zip, or the body itself. */
export function flatRclText(body: Buffer, url?: string): Buffer {
  if (!isZip(body)) return body;
  const names: string[] = [];
  let tooLarge: string | undefined;
  let files;
  try {
    files = unzipSync(new Uint8Array(body.buffer, body.byteOffset, body.byteLength), {
      filter(file) {
        if (file.name.endsWith('/')) return false;
        names.push(file.name);
        if (!/\.txt$/i.test(file.name)) return false;
        if (file.originalSize > MAX_UNZIPPED_BYTES) {
          tooLarge = file.name;
          return false;
        }
        return true;
      },
    });
  } catch (cause) {
    throw formatError(`FLAT_RCL zip cannot be read: ${(cause as Error).message}`, url);
  }
  if (tooLarge !== undefined) {
    throw new UpstreamError(
      'too_large',
      `FLAT_RCL zip entry ${tooLarge} expands to more than ${MAX_UNZIPPED_BYTES} bytes`,
      url === undefined ? {} : { url },
    );
  }
  const texts = Object.entries(files);
  if (texts.length !== 1) {
    throw formatError(
      `FLAT_RCL zip should hold one .txt file, holds ${texts.length} (${names.join(', ') || 'nothing'})`,
      url,
    );
  }
  const [, data] = texts[0]!;
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * The file's line end: CRLF when it ends most lines of the first megabyte (so a stray LF inside a
 * narrative stays text), else LF.
 */
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
 * Calls `onRow` for every row of the tab-separated text, in file order. Rows end in CRLF (or
 * in LF when the file uses LF); empty lines are skipped; fields are split on tabs with no
 * quoting (a `"` is an ordinary character in the narratives). A row that does not have the
 * documented shape is handed to `onSetAside` with its line and the reason, or, without it,
 * throws UpstreamError('format') naming the row.
 *
 * Split by hand rather than with csv-parse: with quoting off, a row is exactly `split('\t')`,
 * and csv-parse reads about 15 MB/s here, which would hold the event loop of `serve` for some
 * 20 seconds on the 300 MB file; this takes about one.
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
