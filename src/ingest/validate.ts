/**
 * Edge validation for every adapter: unknown fields pass, a drifted record is set aside with its
 * place and reason, a page of unknown shape is UpstreamError('format'). Schemas compile once, at
 * module load (many times faster than `Value.Check` over hundreds of thousands of records).
 */
import { Type, type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { TLocalizedValidationError } from 'typebox/error';
import { XMLParser, XMLValidator, type X2jOptions } from 'fast-xml-parser';
import { UpstreamError, formatError } from './errors.ts';
import type { SetAside } from './source.ts';

/** A text field that may be absent, `""` or `null`: agencies write all three for a missing value. */
export const OptionalText = Type.Optional(Type.Union([Type.String(), Type.Null()]));

/** A schema compiled into a checker. */
export interface Validator<T extends TSchema> {
  check(value: unknown): value is Static<T>;
  /** The first place where `value` breaks the schema (the deepest inside a union), as `<path>: <message>`. */
  firstError(value: unknown): string;
}

/** Compiles `schema` into a Validator (call once per schema, at module load). */
export function compileValidator<T extends TSchema>(schema: T): Validator<T> {
  const compiled = Compile(schema);
  return {
    check: (value: unknown): value is Static<T> => compiled.Check(value),
    firstError: (value) => firstError(compiled.Errors(value)) ?? 'does not match',
  };
}

/**
 * The first failing place of a value, as `<path>: <message>`. TypeBox lists every error, a union's branch
 * errors before the union's own: when the first lies inside a union, the deepest failing place in that union
 * names the drift best (the union's own error when no branch reaches deeper). A missing property is named
 * at its own place.
 */
export function firstError(errors: readonly TLocalizedValidationError[]): string | undefined {
  const first = errors[0];
  if (first === undefined) return undefined;
  let error = first;
  const at = first.schemaPath.indexOf('/anyOf/');
  if (at !== -1) {
    const union = first.schemaPath.slice(0, at);
    const inside = errors.filter((e) => e.schemaPath === union || e.schemaPath.startsWith(`${union}/anyOf/`));
    error = inside.find((e) => e.schemaPath === union) ?? first;
    for (const e of inside) if (e.instancePath.length > error.instancePath.length) error = e;
  }
  if (error.keyword === 'required') {
    const [missing] = error.params.requiredProperties;
    const pointer = String(missing).replaceAll('~', '~0').replaceAll('/', '~1');
    return `${error.instancePath}/${pointer}: is required`;
  }
  return `${error.instancePath || '/'}: ${error.message}`;
}

/** A page body as text, without the byte-order mark some agencies put before it. */
export function pageText(body: Buffer | string): string {
  return (typeof body === 'string' ? body : body.toString('utf8')).replace(/^\uFEFF/, '');
}

/**
 * JSON page limits, checked before JSON.parse (which has none). Size 64 MiB: over twice the largest
 * page (CPSC's whole corpus, ~27 MB). Depth 32, real pages nest ≤ 8 (UK FSA): a recursive walk of
 * a deeper value could overflow the stack. The depth scan costs about a sixth of the parse.
 */
export const JSON_LIMITS = { maxBytes: 64 * 1024 * 1024, maxDepth: 32 } as const;

/** Whether arrays and objects nest deeper than `max` in the JSON text (strings are skipped). */
function nestsDeeper(json: Buffer, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === 0x22) {
      // to the next quote not escaped by an odd run of backslashes
      for (;;) {
        i = json.indexOf(0x22, i + 1);
        if (i === -1) return false;
        let k = i - 1;
        while (json[k] === 0x5c) k--;
        if ((i - 1 - k) % 2 === 0) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * A reader of one source's JSON pages (BOM allowed), checking the outer `shape`. Throws
 * UpstreamError('too_large') past {@link JSON_LIMITS}.maxBytes, else 'format' naming `<what>`.
 */
export function jsonPageReader<T extends TSchema>(
  shape: T,
  what: string,
  shapeName: string,
): (body: Buffer | string, url?: string) => Static<T> {
  const validator = compileValidator(shape);
  return (page, url) => {
    const body = typeof page === 'string' ? Buffer.from(page) : page;
    if (body.length > JSON_LIMITS.maxBytes) {
      throw new UpstreamError(
        'too_large',
        `${what} is ${body.length} bytes, over the ${JSON_LIMITS.maxBytes}-byte cap of a JSON page`,
        url === undefined ? {} : { url },
      );
    }
    if (nestsDeeper(body, JSON_LIMITS.maxDepth)) {
      throw formatError(`${what} nests deeper than ${JSON_LIMITS.maxDepth} arrays and objects`, url);
    }
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
 * XML page limits, explicit so a change of fast-xml-parser's defaults cannot lift them. Nesting ≤ 32
 * (feeds: 4–6). DOCTYPE entities (feeds declare none): ≤ 16, 1024 chars each, ≤ 10 000 expansions,
 * ≤ 256 Ki chars of growth in all. HTML entities are not expanded.
 */
export const XML_LIMITS = {
  maxDepth: 32,
  entities: {
    maxEntityCount: 16,
    maxEntitySize: 1024,
    maxExpansionDepth: 4,
    maxTotalExpansions: 10_000,
    maxExpandedLength: 256 * 1024,
  },
} as const;

/** An XMLParser with `options` and {@link XML_LIMITS}, which no option given can override. */
export function createXmlParser(options: X2jOptions): XMLParser {
  const entities = {
    enabled: true,
    ...XML_LIMITS.entities,
    // Count only the DOCTYPE's entities (fast-xml-parser reads it, its types omit it).
    appliesTo: 'external',
  };
  return new XMLParser({
    ...options,
    processEntities: entities,
    htmlEntities: false,
    // fast-xml-parser lets elements nest one deeper than its option (the root is not counted)
    maxNestedTags: XML_LIMITS.maxDepth - 1,
  });
}

/** Parses an XML page (BOM allowed); UpstreamError('format') if malformed or past {@link XML_LIMITS}. */
export function parseXmlPage(parser: XMLParser, body: Buffer | string, what: string, url?: string): unknown {
  const xml = pageText(body);
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw formatError(`${what} is not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`, url);
  }
  try {
    return parser.parse(xml);
  } catch (cause) {
    throw formatError(`${what} is refused: ${(cause as Error).message}`, url);
  }
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

/** Checks each record alone; `place(i)` names it, `idOf` reads its id, `refuse` rejects unusable ones. */
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
