/**
 * Enough zip (APPNOTE.TXT 4.3) for FLAT_RCL: entries listed from the central directory, one inflated
 * under a byte cap (a zip bomb stops at the cap). Zip64, encryption, methods but stored/deflate refused.
 */
import { crc32, inflateRawSync } from 'node:zlib';
import { UpstreamError, formatError } from '../../errors.ts';

/** One file or folder of an archive, as its central directory header describes it. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate. */
  method: number;
  compressedSize: number;
  /** The size the entry declares once inflated. */
  size: number;
  crc: number;
  /** Offset of the entry's local header. */
  localOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const EOCD_BYTES = 22;
const MAX_COMMENT = 0xffff;

/** The entries of a zip, from its central directory; throws UpstreamError('format') when unreadable. */
export function listZipEntries(zip: Buffer, url?: string): ZipEntry[] {
  const fail = (why: string): UpstreamError => formatError(`FLAT_RCL zip cannot be read: ${why}`, url);
  let end = zip.length - EOCD_BYTES;
  const floor = Math.max(0, end - MAX_COMMENT);
  while (end >= floor && zip.readUInt32LE(end) !== EOCD) end -= 1;
  if (end < floor) throw fail('no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  const dirOffset = zip.readUInt32LE(end + 16);
  if (count === 0xffff || dirOffset === 0xffffffff) throw fail('zip64 archives are not supported');
  const entries: ZipEntry[] = [];
  let at = dirOffset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || zip.readUInt32LE(at) !== CENTRAL)
      throw fail(`central directory entry ${i + 1} is damaged`);
    const flags = zip.readUInt16LE(at + 8);
    const nameEnd = at + 46 + zip.readUInt16LE(at + 28);
    if (nameEnd > end) throw fail(`central directory entry ${i + 1} is damaged`);
    if ((flags & 1) !== 0) throw fail('encrypted entries are not supported');
    entries.push({
      name: zip.toString(flags & 0x800 ? 'utf8' : 'latin1', at + 46, nameEnd),
      method: zip.readUInt16LE(at + 10),
      crc: zip.readUInt32LE(at + 16),
      compressedSize: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      localOffset: zip.readUInt32LE(at + 42),
    });
    at = nameEnd + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return entries;
}

/** One entry: 'too_large' if declared over `maxBytes`, inflation stops past it; mismatch is 'format'. */
export function readZipEntry(zip: Buffer, entry: ZipEntry, maxBytes: number, url?: string): Buffer {
  const fail = (why: string): UpstreamError => formatError(`FLAT_RCL zip entry ${entry.name} ${why}`, url);
  if (entry.size > maxBytes) {
    throw new UpstreamError(
      'too_large',
      `FLAT_RCL zip entry ${entry.name} expands to more than ${maxBytes} bytes`,
      url === undefined ? {} : { url },
    );
  }
  const at = entry.localOffset;
  if (at + 30 > zip.length || zip.readUInt32LE(at) !== LOCAL) throw fail('has no local header');
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  if (start + entry.compressedSize > zip.length) throw fail('is cut short');
  const data = zip.subarray(start, start + entry.compressedSize);
  let out: Buffer;
  if (entry.method === 0) out = data;
  else if (entry.method === 8) {
    try {
      out = inflateRawSync(data, { maxOutputLength: Math.max(1, entry.size) });
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw fail(`inflates to more than its declared ${entry.size} bytes`);
      }
      throw fail(`cannot be inflated: ${(cause as Error).message}`);
    }
  } else throw fail(`uses compression method ${entry.method}, not stored or deflate`);
  if (out.length !== entry.size) throw fail(`holds ${out.length} bytes, declares ${entry.size}`);
  if (crc32(out) >>> 0 !== entry.crc) throw fail('fails its CRC-32 check');
  return out;
}
