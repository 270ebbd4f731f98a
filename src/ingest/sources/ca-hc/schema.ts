/** Health Canada's dump (`HCRSAMOpenData.json`): a JSON array checked at the edge (../../validate.ts). */
import { Type, type Static } from 'typebox';
import {
  checkRecords,
  compileValidator,
  fieldOf,
  jsonPageReader,
  type CheckedRecords,
  OptionalText,
} from '../../validate.ts';

/** One row; the column names are Health Canada's, spaces included. */
export const HcRow = Type.Object(
  {
    NID: Type.Union([Type.String(), Type.Integer({ minimum: 0 })]),
    Title: OptionalText,
    URL: OptionalText,
    Organization: OptionalText,
    Product: OptionalText,
    Issue: OptionalText,
    'What you should do': OptionalText,
    Category: OptionalText,
    'Recall class': OptionalText,
    'Last updated': OptionalText,
    Archived: Type.Optional(Type.Union([Type.String(), Type.Integer(), Type.Boolean(), Type.Null()])),
  },
  { additionalProperties: true },
);
export type HcRow = Static<typeof HcRow>;

const readDump = jsonPageReader(Type.Array(Type.Unknown()), 'Health Canada dump', 'a bare JSON array');
const HcRowValidator = compileValidator(HcRow);

/** `NID` as text, without padding or invisible characters. */
export function hcRecordId(row: HcRow): string {
  return String(row.NID)
    .replace(/[\u200b-\u200f\u2060\ufeff]/g, '')
    .trim();
}

/** Parses and checks the dump; a row with an empty `NID` is set aside. */
export function parseHcDump(body: Buffer | string, url?: string): CheckedRecords<HcRow> {
  return checkRecords(readDump(body, url), HcRowValidator, {
    place: (i) => `[${i}]`,
    idOf: fieldOf('NID'),
    refuse: (row) => (hcRecordId(row) === '' ? 'empty NID' : null),
  });
}
