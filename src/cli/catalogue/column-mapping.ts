/** Which catalogue columns hold identifiers, of which kind, and which one names the row. */
import { InvalidArgumentError } from 'commander';
import { IDENTIFIER_KINDS } from '../../client/index.ts';
import { CommandFailure } from '../exit-codes.ts';

/** Most `--column` mappings in one run (a row then holds at most this many identifiers, plus one). */
export const MAX_MAPPED_COLUMNS = 16;

/** The column mapping of a run, as recorded in run.json. */
export interface ColumnMapping {
  /** Identifier columns: each column's values are of one kind (`--column upc=UPC`). */
  columns: { kind: string; column: string }[];
  /** A column naming each row's kind and one holding its value (`--kind-column K --value-column V`). */
  kindColumn: { kind: string; value: string } | null;
  /** The column whose value names the row in the outputs (`--id-column sku`). */
  idColumn: string | null;
}

/** Parses one `--column KIND=HEADER` (repeatable; commander's argument parser). */
export function parseColumnOption(
  text: string,
  previous: { kind: string; column: string }[] = [],
): { kind: string; column: string }[] {
  const at = text.indexOf('=');
  const kind = text.slice(0, Math.max(at, 0)).trim().toLowerCase();
  const column = text.slice(at + 1).trim();
  if (at < 0 || column === '')
    throw new InvalidArgumentError(`expected KIND=COLUMN (e.g. upc=UPC or model="Model No"), got "${text}"`);
  if (!(IDENTIFIER_KINDS as readonly string[]).includes(kind))
    throw new InvalidArgumentError(`unknown kind "${kind}"; use one of ${IDENTIFIER_KINDS.join(', ')}`);
  if (previous.some((p) => p.column === column))
    throw new InvalidArgumentError(`column "${column}" is mapped twice`);
  if (previous.length >= MAX_MAPPED_COLUMNS)
    throw new InvalidArgumentError(`at most ${MAX_MAPPED_COLUMNS} --column mappings`);
  return [...previous, { kind, column }];
}

/** Builds the mapping from the options, or says what is missing (CommandFailure). */
export function columnMapping(options: {
  column?: { kind: string; column: string }[];
  kindColumn?: string;
  valueColumn?: string;
  idColumn?: string;
}): ColumnMapping {
  if ((options.kindColumn === undefined) !== (options.valueColumn === undefined))
    throw new CommandFailure('--kind-column and --value-column go together');
  const kindColumn =
    options.kindColumn === undefined || options.valueColumn === undefined
      ? null
      : { kind: options.kindColumn, value: options.valueColumn };
  const columns = options.column ?? [];
  if (columns.length === 0 && kindColumn === null)
    throw new CommandFailure(
      'name the identifier columns: --column KIND=COLUMN (repeatable), or --kind-column K --value-column V',
    );
  return { columns, kindColumn, idColumn: options.idColumn ?? null };
}
