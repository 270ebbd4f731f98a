/**
 * Edge validation for the adapters: a TypeBox schema compiled once, at module load, into a
 * checker (TypeBox's compiled checker is many times faster than the interpreted `Value.Check`
 * over a feed of hundreds of thousands of records), with the same error reporting on failure.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { ValueError } from '@sinclair/typebox/value';

export interface Validator<T extends TSchema> {
  /** Whether `value` matches the schema. */
  check(value: unknown): value is Static<T>;
  /** The first place where `value` breaks the schema, or undefined when it matches. */
  firstValueError(value: unknown): ValueError | undefined;
  /** The first place where `value` breaks the schema, as `<path>: <message>`. */
  firstError(value: unknown): string;
}

/** Compiles `schema` into a Validator (call once per schema, at module load). */
export function compileValidator<T extends TSchema>(schema: T): Validator<T> {
  const compiled = TypeCompiler.Compile(schema);
  const firstValueError = (value: unknown): ValueError | undefined => compiled.Errors(value).First();
  return {
    check: (value: unknown): value is Static<T> => compiled.Check(value),
    firstValueError,
    firstError(value) {
      const error = firstValueError(value);
      return error === undefined ? 'does not match' : `${error.path || '/'}: ${error.message}`;
    },
  };
}
