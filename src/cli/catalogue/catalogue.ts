/**
 * A shop's catalogue as rows of identifiers: CSV with a header row, or JSON lines, read whole
 * within documented bounds. Any problem is a CatalogueError naming the row; nothing is sent then.
 */
import { readFileSync, statSync } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import { IDENTIFIER_KINDS, MAX_VALUE_LENGTH } from '../../client/index.ts';
import { sha256 } from '../../domain/sha256.ts';
import type { ColumnMapping } from './column-mapping.ts';

/** The bounds on a catalogue; each is checked, with a clear message, before anything is sent. */
export const CATALOGUE_LIMITS = {
  /** Largest file read, in bytes (64 MiB; a 200,000-row catalogue of 40 columns is about 40 MB). */
  maxBytes: 64 * 1024 * 1024,
  /** Most data rows (the CSV header not counted): 200,000 rows of 16 identifiers is 3,200 checks. */
  maxRows: 200_000,
  /** Most columns in a row: CSV fields, or keys of a JSON object. */
  maxColumns: 256,
  /** Longest identifier or row-id cell, in UTF-16 units: the service refuses a longer value (512). */
  maxValueLength: MAX_VALUE_LENGTH,
  /** Longest CSV field or JSON line, in characters (1 MiB), so that one broken quote cannot swallow the file. */
  maxFieldChars: 1024 * 1024,
} as const;

/** How the file is read: `csv` with its delimiter (a header row first), or `jsonl` (one object a line). */
export type CatalogueFormat = { type: 'csv'; delimiter: string } | { type: 'jsonl' };

/** One catalogue row that holds at least one identifier, in the order the mapping names them. */
export interface CatalogueRow {
  /** The CSV record's number, the header being row 1 (blank lines are skipped, not counted); the line in JSON lines. */
  row: number;
  /** The row-id cell (`--id-column`), or null when there is none or it is empty. */
  id: string | null;
  /** Non-empty identifier cells: the kind (lower-case) and the value exactly as written. */
  identifiers: { kind: string; value: string }[];
}

export interface Catalogue {
  /** Lower-case hex SHA-256 of the file's bytes. */
  sha256: string;
  bytes: number;
  /** Data rows read (rows without any identifier included). */
  rowCount: number;
  /** Rows holding at least one identifier. */
  rows: CatalogueRow[];
}

/** A catalogue that cannot be read as asked; the message names the place (row, line or column). */
export class CatalogueError extends Error {}

/** The format a file name implies: `.csv` (comma), `.tsv` (tab), `.jsonl`/`.ndjson`; otherwise undefined. */
export function formatOfFileName(name: string): CatalogueFormat | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith('.csv')) return { type: 'csv', delimiter: ',' };
  if (lower.endsWith('.tsv')) return { type: 'csv', delimiter: '\t' };
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return { type: 'jsonl' };
  return undefined;
}

/** Reads and parses the catalogue at `path` (size checked before reading). */
export function readCatalogueFile(path: string, format: CatalogueFormat, mapping: ColumnMapping): Catalogue {
  let bytes: Buffer;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new Error('not a file');
    if (stat.size > CATALOGUE_LIMITS.maxBytes)
      throw new CatalogueError(
        `the catalogue is ${stat.size} bytes; at most ${CATALOGUE_LIMITS.maxBytes} (64 MiB) are read: split it into several runs`,
      );
    bytes = readFileSync(path);
  } catch (error) {
    if (error instanceof CatalogueError) throw error;
    throw new CatalogueError(`cannot read the catalogue ${path}: ${(error as Error).message}`);
  }
  return parseCatalogue(bytes, format, mapping);
}

/** Parses catalogue bytes (UTF-8, an optional byte-order mark) into rows of identifiers. */
export function parseCatalogue(
  bytes: Uint8Array,
  format: CatalogueFormat,
  mapping: ColumnMapping,
): Catalogue {
  if (bytes.length > CATALOGUE_LIMITS.maxBytes)
    throw new CatalogueError(`the catalogue is over ${CATALOGUE_LIMITS.maxBytes} bytes`);
  const text = decodeUtf8(bytes);
  const { rowCount, rows } =
    format.type === 'csv' ? csvRows(text, format.delimiter, mapping) : jsonlRows(text, mapping);
  if (rows.length === 0)
    throw new CatalogueError(`no row has a value in the identifier columns (${describeMapping(mapping)})`);
  return { sha256: sha256(bytes), bytes: bytes.length, rowCount, rows };
}

function describeMapping(mapping: ColumnMapping): string {
  const named = mapping.columns.map((c) => `${c.kind}="${c.column}"`);
  if (mapping.kindColumn !== null)
    named.push(`kind in "${mapping.kindColumn.kind}", value in "${mapping.kindColumn.value}"`);
  return named.join(', ');
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const lenient = new TextDecoder('utf-8').decode(bytes);
    const at = lenient.indexOf('\uFFFD');
    const line = lenient.slice(0, at).split('\n').length;
    throw new CatalogueError(`line ${line}: the catalogue is not UTF-8 text; save it as UTF-8 (CSV UTF-8)`);
  }
}

/** How a row's cells are read: by column name, `where` naming the row in messages (`row 12`, `line 12`). */
interface CellReader<S> {
  cell(source: S, column: string, where: string): string | undefined;
  where(row: number): string;
}

/** The cell's value when it holds one (undefined when absent or blank); refuses one out of bounds. */
function boundedCell<S>(reader: CellReader<S>, source: S, column: string, row: number): string | undefined {
  const value = reader.cell(source, column, reader.where(row));
  if (value === undefined) return undefined;
  if (value.length > CATALOGUE_LIMITS.maxValueLength)
    throw new CatalogueError(
      `${reader.where(row)}: the value in "${column}" is ${value.length} characters long; at most ${CATALOGUE_LIMITS.maxValueLength}`,
    );
  if (LONE_SURROGATE.test(value))
    throw new CatalogueError(
      `${reader.where(row)}: the value in "${column}" is not Unicode text (a lone surrogate)`,
    );
  return value.trim() === '' ? undefined : value;
}

const LONE_SURROGATE = /\p{Cs}/u;

/** Reads one row's identifier cells (in mapping order) and its id. */
function mapRow<S>(row: number, source: S, reader: CellReader<S>, mapping: ColumnMapping): CatalogueRow {
  const identifiers: { kind: string; value: string }[] = [];
  for (const { kind, column } of mapping.columns) {
    const value = boundedCell(reader, source, column, row);
    if (value !== undefined) identifiers.push({ kind, value });
  }
  if (mapping.kindColumn !== null) {
    const kindCell = boundedCell(reader, source, mapping.kindColumn.kind, row);
    const value = boundedCell(reader, source, mapping.kindColumn.value, row);
    if (value !== undefined) {
      const kind = kindCell?.trim().toLowerCase();
      if (kind === undefined || !(IDENTIFIER_KINDS as readonly string[]).includes(kind))
        throw new CatalogueError(
          `${reader.where(row)}: the kind in "${mapping.kindColumn.kind}" is ${kindCell === undefined ? 'empty' : `"${kindCell.slice(0, 40)}"`}; use one of ${IDENTIFIER_KINDS.join(', ')}`,
        );
      identifiers.push({ kind, value });
    }
  }
  const id = mapping.idColumn === null ? undefined : boundedCell(reader, source, mapping.idColumn, row);
  return { row, id: id ?? null, identifiers };
}

function mappedColumns(mapping: ColumnMapping): string[] {
  const names = mapping.columns.map((c) => c.column);
  if (mapping.kindColumn !== null) names.push(mapping.kindColumn.kind, mapping.kindColumn.value);
  if (mapping.idColumn !== null) names.push(mapping.idColumn);
  return [...new Set(names)];
}

function tooManyRows(): CatalogueError {
  return new CatalogueError(
    `the catalogue has more than ${CATALOGUE_LIMITS.maxRows} data rows; split it into several runs`,
  );
}

function csvRows(
  text: string,
  delimiter: string,
  mapping: ColumnMapping,
): { rowCount: number; rows: CatalogueRow[] } {
  let records: string[][];
  try {
    records = parseCsv(text, {
      delimiter,
      bom: true,
      skip_empty_lines: true,
      max_record_size: CATALOGUE_LIMITS.maxFieldChars,
      to: CATALOGUE_LIMITS.maxRows + 2,
    }) as string[][];
  } catch (error) {
    const e = error as { code?: string; message: string; lines?: number; records?: number };
    if (e.code === 'CSV_MAX_RECORD_SIZE')
      throw new CatalogueError(
        `line ${e.lines}: a field is longer than ${CATALOGUE_LIMITS.maxFieldChars} characters (an unclosed quote?)`,
      );
    if (e.code === 'CSV_QUOTE_NOT_CLOSED')
      throw new CatalogueError(
        `malformed CSV: row ${(e.records ?? 0) + 1} opens a quote that is never closed`,
      );
    throw new CatalogueError(`malformed CSV: ${e.message}`);
  }
  const [header, ...data] = records;
  if (header === undefined)
    throw new CatalogueError('the catalogue is empty: a header row is expected first');
  if (data.length > CATALOGUE_LIMITS.maxRows) throw tooManyRows();
  if (header.length > CATALOGUE_LIMITS.maxColumns)
    throw new CatalogueError(
      `the header has ${header.length} columns; at most ${CATALOGUE_LIMITS.maxColumns}`,
    );
  const names = header.map((h) => h.trim());
  const index = new Map<string, number>();
  for (const column of mappedColumns(mapping)) {
    const at = names.flatMap((n, i) => (n === column ? [i] : []));
    if (at.length === 0)
      throw new CatalogueError(
        `no column "${column}" in the header; its columns are: ${names.map((n) => `"${n}"`).join(', ')}`,
      );
    if (at.length > 1)
      throw new CatalogueError(
        `the header names "${column}" ${at.length} times (columns ${at.map((i) => i + 1).join(', ')})`,
      );
    index.set(column, at[0]!);
  }
  const reader: CellReader<string[]> = {
    cell: (record, column) => record[index.get(column)!],
    where: (row) => `row ${row}`,
  };
  const rows: CatalogueRow[] = [];
  data.forEach((record, i) => {
    const mapped = mapRow(i + 2, record, reader, mapping);
    if (mapped.identifiers.length > 0) rows.push(mapped);
  });
  return { rowCount: data.length, rows };
}

function jsonCell(value: unknown, where: string, column: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'number')
    throw new CatalogueError(
      `${where}: "${column}" is a number that is not an exact integer; write it as a string`,
    );
  throw new CatalogueError(
    `${where}: "${column}" is ${Array.isArray(value) ? 'an array' : `a ${typeof value}`}; a string is expected`,
  );
}

const JSON_CELLS: CellReader<Record<string, unknown>> = {
  cell: (object, column, where) =>
    Object.hasOwn(object, column) ? jsonCell(object[column], where, column) : undefined,
  where: (line) => `line ${line}`,
};

function jsonlRows(text: string, mapping: ColumnMapping): { rowCount: number; rows: CatalogueRow[] } {
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  const rows: CatalogueRow[] = [];
  let rowCount = 0;
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    if (++rowCount > CATALOGUE_LIMITS.maxRows) throw tooManyRows();
    if (raw.length > CATALOGUE_LIMITS.maxFieldChars)
      throw new CatalogueError(`line ${line}: longer than ${CATALOGUE_LIMITS.maxFieldChars} characters`);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new CatalogueError(`line ${line}: not JSON (${(error as Error).message})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new CatalogueError(`line ${line}: a JSON object is expected`);
    const object = value as Record<string, unknown>;
    if (Object.keys(object).length > CATALOGUE_LIMITS.maxColumns)
      throw new CatalogueError(`line ${line}: more than ${CATALOGUE_LIMITS.maxColumns} keys`);
    const mapped = mapRow(line, object, JSON_CELLS, mapping);
    if (mapped.identifiers.length > 0) rows.push(mapped);
  });
  return { rowCount, rows };
}
