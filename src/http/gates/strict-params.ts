/**
 * Unknown and repeated query parameters are refused, never ignored: the schema's declared
 * properties are the whole list, and a parameter given twice is ambiguous.
 */
import type { FastifyRequest } from 'fastify';
import { invalidParameter } from '../problems.ts';

export function declaredQueryParameters(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties === undefined ? [] : Object.keys(properties);
}

export function enforceStrictQuery(request: FastifyRequest, allowed: string[]): void {
  const query = (request.query ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(query)) {
    if (!allowed.includes(name)) {
      const supported =
        allowed.length === 0
          ? 'This endpoint takes no query parameters.'
          : `Supported: ${allowed.join(', ')}.`;
      throw invalidParameter(name, `Unknown query parameter "${name}". ${supported}`);
    }
    if (Array.isArray(value))
      throw invalidParameter(name, `Query parameter "${name}" is given more than once.`);
  }
}
