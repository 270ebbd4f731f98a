/**
 * The CPSC Recall Retrieval answer as served: a bare JSON array of recall records, validated
 * leniently at the edge. Unknown fields pass; every field is optional except `RecallID`
 * (CPSC sends `""` or `[]` for empty fields, and mirrors may drop them); the fields the adapter
 * reads must have the type CPSC documents. Anything else is drift and fails here, loudly, as a
 * format error naming the place. CPSC reports its own errors as HTTP 200 with one record
 * `RecallID: 0`, `Title: "Error retrieving Recalls: …"`: that is a format error too.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { ValueError } from '@sinclair/typebox/value';
import { formatError } from '../../errors.ts';
import { compileValidator, type Validator } from '../../validate.ts';

/** A text field: `""` when empty, absent in mirrors that strip empty fields. */
const Text = Type.Optional(Type.Union([Type.String(), Type.Null()]));

/** A list of objects; only the members the adapter reads are typed, the rest pass. */
function List<T extends Record<string, TSchema>>(members: T) {
  return Type.Optional(
    Type.Union([Type.Array(Type.Object(members, { additionalProperties: true })), Type.Null()]),
  );
}

/** One recall record. `ConsumerContact` is deliberately not declared: it is never read. */
export const CpscRecord = Type.Object(
  {
    RecallID: Type.Integer({ minimum: 0 }),
    RecallNumber: Text,
    RecallDate: Text,
    LastPublishDate: Text,
    Title: Text,
    Description: Text,
    URL: Text,
    Products: List({ Name: Text, Description: Text, Model: Text, Type: Text }),
    Hazards: List({ Name: Text }),
    Remedies: List({ Name: Text }),
    RemedyOptions: List({ Option: Text }),
    ProductUPCs: List({ UPC: Text }),
  },
  { additionalProperties: true },
);
export type CpscRecord = Static<typeof CpscRecord>;

const PageShape = Type.Array(Type.Unknown());

/** The title CPSC gives the record that reports a failed query (e.g. a malformed date). */
const ERROR_TITLE = /^\s*Error retrieving Recalls\b/i;

const PageShapeValidator = compileValidator(PageShape);
const CpscRecordValidator = compileValidator(CpscRecord);

/** The first place where `value` breaks the validator's schema, as `<prefix><path>: <message>`. */
function firstError(validator: Validator<TSchema>, value: unknown, prefix = ''): string {
  const first = validator.firstValueError(value);
  if (first === undefined) return `${prefix || '/'}: does not match`;
  const error = deepest(first);
  return `${prefix}${error.path || '/'}: ${error.message}`;
}

/** Inside a union (`[…] | null`), the deepest failing place names the drift best. */
function deepest(error: ValueError): ValueError {
  let best = error;
  for (const branch of error.errors) {
    for (const inner of branch) {
      const candidate = deepest(inner);
      if (candidate.path.length > best.path.length) best = candidate;
    }
  }
  return best;
}

/**
 * Parses and validates one CPSC answer. Throws UpstreamError('format') when the body is not
 * JSON, not an array, holds a record that drifted, or is CPSC's in-band error record.
 * An empty array is a valid answer (a quiet date window).
 */
export function parseCpscPage(body: Buffer | string, url?: string): CpscRecord[] {
  let json: unknown;
  try {
    json = JSON.parse(typeof body === 'string' ? body : body.toString('utf8'));
  } catch (cause) {
    throw formatError(`CPSC answer is not JSON: ${(cause as Error).message}`, url);
  }
  if (!PageShapeValidator.check(json)) {
    throw formatError(
      `CPSC answer is not a bare array of recalls: ${firstError(PageShapeValidator, json)}`,
      url,
    );
  }
  const records: CpscRecord[] = [];
  json.forEach((record, i) => {
    if (!CpscRecordValidator.check(record)) {
      throw formatError(`CPSC record drifted at ${firstError(CpscRecordValidator, record, `[${i}]`)}`, url);
    }
    if (record.RecallID === 0 || ERROR_TITLE.test(record.Title ?? '')) {
      throw formatError(`CPSC answered with an error record: ${record.Title ?? '(no title)'}`, url);
    }
    records.push(record);
  });
  return records;
}
