/** TypeBox builders; schemas are the single source of the domain shapes (types are their `Static<>`). */
import { Type, type Static, type TObject, type TSchema, type TSchemaOptions, type TUnsafe } from 'typebox';

/**
 * `{ $ref: <schema's $id>, ...options }`, typed as `schema` (TypeBox's `Type.Ref` takes a name and types it
 * `unknown` outside a module). Every schema referred to is registered by its `$id` with Fastify.
 */
export function Ref<T extends TSchema>(schema: T, options: TSchemaOptions = {}): TUnsafe<Static<T>> {
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id !== 'string') throw new Error('Ref: the schema has no $id');
  return Type.Unsafe<Static<T>>(Type.Ref(id, options));
}

/** `schema` or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A string with no NUL: PostgreSQL refuses it, SQLite keeps it; engines agree only if it never arrives. */
export const Text = (options: Record<string, unknown> = {}) =>
  Type.String({ pattern: '^[^\\u0000]*$', ...options });

/** A string enum written as `{type: 'string', enum}` (not TypeBox's union of literals). */
export const StringEnum = <T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/**
 * The order in which Fastify's serializer (fast-json-stringify) writes an object's properties: the required
 * ones first, then the optional ones, each group in the schema's order.
 */
export function servedOrder(schema: TObject): string[] {
  const required = new Set(schema.required ?? []);
  const keys = Object.keys(schema.properties);
  return [...keys.filter((k) => required.has(k)), ...keys.filter((k) => !required.has(k))];
}
