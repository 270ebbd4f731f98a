/**
 * One FLAT_RCL row; no header, fields by position (NHTSA's RCL.txt). 24 fields since 2008, 27 since
 * March 2020 (part numbers), 29 since May 2025 (advisories); any other count is a format error.
 */
import { formatError } from '../../errors.ts';

/** The 29 fields of RCL.txt, in file order (CONEQUENCE_DEFECT is NHTSA's own spelling). */
export const FLAT_RCL_FIELDS = [
  'RECORD_ID',
  'CAMPNO',
  'MAKETXT',
  'MODELTXT',
  'YEARTXT',
  'MFGCAMPNO',
  'COMPNAME',
  'MFGNAME',
  'BGMAN',
  'ENDMAN',
  'RCLTYPECD',
  'POTAFF',
  'ODATE',
  'INFLUENCED_BY',
  'MFGTXT',
  'RCDATE',
  'DATEA',
  'RPNO',
  'FMVSS',
  'DESC_DEFECT',
  'CONEQUENCE_DEFECT',
  'CORRECTIVE_ACTION',
  'NOTES',
  'RCL_CMPT_ID',
  'MFR_COMP_NAME',
  'MFR_COMP_DESC',
  'MFR_COMP_PTNO',
  'DO_NOT_DRIVE',
  'PARK_OUTSIDE',
] as const;

export type FlatRclField = (typeof FLAT_RCL_FIELDS)[number];

/** The fewest fields a row may have (the layout of March 2008 to March 2020). */
export const MIN_FIELDS = 24;
/** The most fields a row may have (the layout since May 2025). */
export const MAX_FIELDS = FLAT_RCL_FIELDS.length;

/** The fields read, as served (`''` when empty or absent); advisory flags `Yes` → true, else false. */
export interface FlatRclRow {
  campno: string;
  make: string;
  model: string;
  /** `YEARTXT`: a model year, or `9999` when unknown or not applicable. */
  year: string;
  component: string;
  /** `RCLTYPECD`: V (vehicle), E (equipment), T (tire), C (child restraint). */
  recallType: string;
  /** `RCDATE`: the date NHTSA received the manufacturer's Part 573 report, YYYYMMDD. */
  reportReceived: string;
  /** `DATEA`: the date NHTSA created the record, YYYYMMDD. */
  recordCreated: string;
  defect: string;
  consequence: string;
  correctiveAction: string;
  /** `MFR_COMP_PTNO` (field 27, since 2020): the manufacturer's component part number(s). */
  partNumber: string;
  doNotDrive: boolean;
  parkOutside: boolean;
}

/** NHTSA campaign numbers: `02V269000` (two-digit year, type letter, six digits). */
const CAMPNO = /^\d{2}[A-Z]\d{6}$/;

const FIELD_INDEX = new Map<FlatRclField, number>(FLAT_RCL_FIELDS.map((name, i) => [name, i]));

/** A field by name, trimmed; `''` when the row is too short to have it. */
function field(fields: readonly string[], name: FlatRclField): string {
  return (fields[FIELD_INDEX.get(name)!] ?? '').trim();
}

function flag(fields: readonly string[], name: FlatRclField, line: number, url?: string): boolean {
  const value = field(fields, name);
  if (/^(?:yes|y)$/i.test(value)) return true;
  if (value === '' || /^(?:no|n)$/i.test(value)) return false;
  throw formatError(`FLAT_RCL line ${line}: ${name} is "${value.slice(0, 20)}", expected Yes or No`, url);
}

/** Validates one row and picks the fields read; UpstreamError('format') naming the line on drift. */
export function parseFlatRclRow(fields: readonly string[], line: number, url?: string): FlatRclRow {
  if (fields.length < MIN_FIELDS || fields.length > MAX_FIELDS) {
    throw formatError(
      `FLAT_RCL line ${line} has ${fields.length} tab-separated fields, expected ${MIN_FIELDS} to ${MAX_FIELDS}`,
      url,
    );
  }
  const campno = field(fields, 'CAMPNO');
  if (!CAMPNO.test(campno)) {
    throw formatError(
      `FLAT_RCL line ${line}: CAMPNO "${campno.slice(0, 20)}" is not a campaign number like 02V269000`,
      url,
    );
  }
  return {
    campno,
    make: field(fields, 'MAKETXT'),
    model: field(fields, 'MODELTXT'),
    year: field(fields, 'YEARTXT'),
    component: field(fields, 'COMPNAME'),
    recallType: field(fields, 'RCLTYPECD').toUpperCase(),
    reportReceived: field(fields, 'RCDATE'),
    recordCreated: field(fields, 'DATEA'),
    defect: field(fields, 'DESC_DEFECT'),
    consequence: field(fields, 'CONEQUENCE_DEFECT'),
    correctiveAction: field(fields, 'CORRECTIVE_ACTION'),
    // Fields 25-26 held other things before 2020; only field 27 is read.
    partNumber: fields.length >= 27 ? field(fields, 'MFR_COMP_PTNO') : '',
    doNotDrive: flag(fields, 'DO_NOT_DRIVE', line, url),
    parkOutside: flag(fields, 'PARK_OUTSIDE', line, url),
  };
}
