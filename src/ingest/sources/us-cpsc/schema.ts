/** The CPSC answer: a JSON array checked at the edge (../../validate.ts); all but `RecallID` optional. */
import { Type, type Static, type TSchema } from 'typebox';
import { formatError } from '../../errors.ts';
import {
  checkRecords,
  compileValidator,
  fieldOf,
  jsonPageReader,
  type CheckedRecords,
  OptionalText,
} from '../../validate.ts';

/** A list of objects; only the members read are typed. */
function List<T extends Record<string, TSchema>>(members: T) {
  return Type.Optional(
    Type.Union([Type.Array(Type.Object(members, { additionalProperties: true })), Type.Null()]),
  );
}

/** One recall record; `ConsumerContact` is deliberately undeclared: it is never read. */
export const CpscRecord = Type.Object(
  {
    RecallID: Type.Integer({ minimum: 0 }),
    RecallNumber: OptionalText,
    RecallDate: OptionalText,
    LastPublishDate: OptionalText,
    Title: OptionalText,
    Description: OptionalText,
    URL: OptionalText,
    Products: List({
      Name: OptionalText,
      Description: OptionalText,
      Model: OptionalText,
      Type: OptionalText,
    }),
    Images: List({ Caption: OptionalText }),
    Hazards: List({ Name: OptionalText }),
    Remedies: List({ Name: OptionalText }),
    RemedyOptions: List({ Option: OptionalText }),
    ProductUPCs: List({ UPC: OptionalText }),
  },
  { additionalProperties: true },
);
export type CpscRecord = Static<typeof CpscRecord>;

const ERROR_TITLE = /^\s*Error retrieving Recalls\b/i;

const readPage = jsonPageReader(Type.Array(Type.Unknown()), 'CPSC answer', 'a bare array of recalls');
const CpscRecordValidator = compileValidator(CpscRecord);

/** CPSC's in-band failure report (HTTP 200): `RecallID: 0`, `Title: "Error retrieving Recalls: …"`. */
function isErrorRecord(record: unknown): record is { Title?: unknown } {
  if (record === null || typeof record !== 'object') return false;
  const { RecallID, Title } = record as Record<string, unknown>;
  return RecallID === 0 || (typeof Title === 'string' && ERROR_TITLE.test(Title));
}

/** Parses and checks one answer; the in-band error record is a format error, an empty array valid. */
export function parseCpscPage(body: Buffer | string, url?: string): CheckedRecords<CpscRecord> {
  const json = readPage(body, url);
  const error = json.find(isErrorRecord);
  if (error !== undefined) {
    throw formatError(`CPSC answered with an error record: ${String(error.Title ?? '(no title)')}`, url);
  }
  return checkRecords(json, CpscRecordValidator, { place: (i) => `[${i}]`, idOf: fieldOf('RecallID') });
}
