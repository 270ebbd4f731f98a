/**
 * Gate 3, parameters (400), before schema validation: unknown and repeated query parameters are
 * refused, never ignored. The route's declared properties are the whole list, and a parameter
 * given twice is ambiguous. A path or query value with a control character (U+0000 to U+001F)
 * is refused too: no id, filter or identifier holds one, and PostgreSQL's text refuses NUL.
 */
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { invalidParameter } from '../problems.ts';

function declaredQueryParameters(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties === undefined ? [] : Object.keys(properties);
}

function enforceStrictQuery(request: FastifyRequest, allowed: string[]): void {
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
    refuseControls(name, value, 'Query parameter');
  }
}

// eslint-disable-next-line no-control-regex -- the control characters are what is refused
const CONTROL = /[\u0000-\u001f]/;

function refuseControls(name: string, value: unknown, what: string): void {
  if (typeof value === 'string' && CONTROL.test(value))
    throw invalidParameter(name, `${what} "${name}" contains a control character.`);
}

function enforceTextParams(request: FastifyRequest): void {
  const params = (request.params ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(params)) refuseControls(name, value, 'Path parameter');
}

/** Refuses unknown or repeated query parameters on every route that declares its access. */
export const parametersGate = fp(
  async (app) => {
    app.addHook('preValidation', (request, _reply, done) => {
      const { config, schema } = request.routeOptions;
      if (config.access !== undefined) {
        try {
          enforceTextParams(request);
          enforceStrictQuery(request, declaredQueryParameters(schema?.querystring));
        } catch (error) {
          done(error as Error);
          return;
        }
      }
      done();
    });
  },
  { name: 'parameters-gate', dependencies: ['key-gate'] },
);
