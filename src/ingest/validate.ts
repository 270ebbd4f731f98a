/**
 * Edge validation for the adapters, one policy for every source: a page is read leniently
 * (unknown fields pass; the fields we read must have the documented type), each record is
 * checked on its own so that one that drifted is set aside with its place and the deepest
 * schema error while the rest of the page is read, and a page that is not of the known shape
 * (not JSON, not well-formed XML, not the outer structure) is drift and fails loudly as
 * UpstreamError('format'). Schemas are compiled once, at module load (TypeBox's compiled
 * checker is many times faster than `Value.Check` over hundreds of thousands of records).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { ValueError } from '@sinclair/typebox/value';
import { XMLValidator, type XMLParser } from 'fast-xml-parser';
import { formatError } from './errors.ts';
import type { SetAside } from './source.ts';

/** A text field that may be absent, `""` or `null`: agencies write all three for a missing value. */
export const OptionalText = Type.Optional(Type.Union([Type.String(), Type.Null()]));

/** A schema compiled into a checker. */
export interface Validator<T extends TSchema> {
  /** Whether `value` matches the schema. */
  check(value: unknown): value is Static<T>;
  /** The first place where `value` breaks the schema (the deepest inside a union), as `<path>: <message>`. */
  firstError(value: unknown): string;
}

/** Compiles `schema` into a Validator (call once per schema, at module load). */
export function compileValidator<T extends TSchema>(schema: T): Validator<T> {
  const compiled = TypeCompiler.Compile(schema);
  return {
    check: (value: unknown): value is Static<T> => compiled.Check(value),
    firstError(value) {
      const first = compiled.Errors(value).First();
      if (first === undefined) return 'does not match';
      const error = deepest(first);
      return `${error.path || '/'}: ${error.message}`;
    },
  };
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

/** A page body as text, without the byte-order mark some agencies put before it. */
export function pageText(body: Buffer | string): string {
  return (typeof body === 'string' ? body : body.toString('utf8')).replace(/^\uFEFF/, '');
}

/**
 * A reader of one source's JSON pages: parses the body (a leading byte-order mark is allowed)
 * and checks its outer shape against `shape`. The reader throws UpstreamError('format') as
 * `<what> is not JSON: …` or `<what> is not <shapeName>: <place>: <error>`.
 */
export function jsonPageReader<T extends TSchema>(
  shape: T,
  what: string,
  shapeName: string,
): (body: Buffer | string, url?: string) => Static<T> {
  const validator = compileValidator(shape);
  return (body, url) => {
    let json: unknown;
    try {
      json = JSON.parse(pageText(body));
    } catch (cause) {
      throw formatError(`${what} is not JSON: ${(cause as Error).message}`, url);
    }
    if (!validator.check(json))
      throw formatError(`${what} is not ${shapeName}: ${validator.firstError(json)}`, url);
    return json;
  };
}

/**
 * Parses an XML page with `parser` once it is known to be well-formed (a leading byte-order mark
 * is allowed); throws UpstreamError('format') as `<what> is not well-formed XML: <error> (line n)`.
 */
export function parseXmlPage(parser: XMLParser, body: Buffer | string, what: string, url?: string): unknown {
  const xml = pageText(body);
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw formatError(`${what} is not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`, url);
  }
  return parser.parse(xml);
}

/** The member `key` of a parsed document's object, or undefined when `value` is no object. */
export function memberOf(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

/** The records of a page that passed their schema, and those set aside with the reason. */
export interface CheckedRecords<T> {
  records: T[];
  setAside: SetAside[];
}

/** Longest reason kept for a record set aside (an agency's value quoted in it can be long). */
const MAX_REASON = 300;

/**
 * Checks each record of a page on its own against `validator`. `place(i)` names the record's
 * place (`items[3]`), `idOf` reads the agency's id from the raw record when it can, and `refuse`
 * may reject a record that matches the schema but cannot be used (no id), with the reason.
 */
export function checkRecords<T extends TSchema>(
  items: readonly unknown[],
  validator: Validator<T>,
  opts: {
    place: (index: number) => string;
    idOf?: (item: unknown) => string | null;
    refuse?: (record: Static<T>) => string | null;
  },
): CheckedRecords<Static<T>> {
  const records: Static<T>[] = [];
  const setAside: SetAside[] = [];
  items.forEach((item, i) => {
    const reason = validator.check(item)
      ? (opts.refuse?.(item) ?? null)
      : `does not match the schema at ${validator.firstError(item)}`;
    if (reason === null) {
      records.push(item as Static<T>);
      return;
    }
    const id = safeId(opts.idOf, item);
    setAside.push({
      record: id === null ? opts.place(i) : `${opts.place(i)} (${id})`,
      reason: reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON - 1)}…` : reason,
    });
  });
  return { records, setAside };
}

function safeId(idOf: ((item: unknown) => string | null) | undefined, item: unknown): string | null {
  try {
    const id = (idOf?.(item) ?? '').replace(/\p{Cf}/gu, '').trim();
    return id === '' ? null : id.slice(0, 80);
  } catch {
    return null;
  }
}

/** The string or number under `key` of a raw record, for naming a record set aside. */
export function fieldOf(key: string): (item: unknown) => string | null {
  return (item) => {
    const v = memberOf(item, key);
    return typeof v === 'string' || typeof v === 'number' ? String(v) : null;
  };
}
