/**
 * Builders for the TypeBox schemas of the domain's shapes. The schemas are the single source of
 * those shapes: the domain types are their `Static<>`, the HTTP layer validates, serialises and
 * documents with them.
 */
import { Type, type TSchema } from '@sinclair/typebox';

/** `schema` or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * A string a text column can store: no NUL (PostgreSQL's text refuses it, SQLite would keep it;
 * both engines answer alike only if it never reaches them).
 */
export const Text = (options: Record<string, unknown> = {}) =>
  Type.String({ pattern: '^[^\\u0000]*$', ...options });

/** A string enum written as `{type: 'string', enum}` (not TypeBox's union of literals). */
export const StringEnum = <T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
