/**
 * Stage 2, parameters (400), before schema validation: unknown and repeated query parameters are refused,
 * never ignored (the declared properties are the whole list; a repeat is ambiguous); integers must be decimal
 * digits (coercion would take `0x10`, `1e1`, `+5`, ` 5`, `2.0`); control characters (U+0000–U+001F) in a path
 * or query are refused, but for GS (U+001D), which a scanned GS1 element string holds: no id, filter or other
 * identifier holds one, and PostgreSQL's text refuses NUL.
 */
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { routeOptionsOf } from '../context.ts';
import { invalidParameter } from '../problems.ts';

interface QueryRules {
  allowed: string[];
  /** The integer parameters, with the range their detail states. */
  integers: { name: string; range: string }[];
}

const DECIMAL = /^[0-9]+$/;

const rulesOf = new WeakMap<object, QueryRules>();

function queryRules(schema: unknown): QueryRules {
  if (schema === undefined || schema === null) return { allowed: [], integers: [] };
  let rules = rulesOf.get(schema);
  if (rules === undefined) {
    const properties =
      (schema as { properties?: Record<string, { type?: unknown; minimum?: number; maximum?: number }> })
        .properties ?? {};
    rules = {
      allowed: Object.keys(properties),
      integers: Object.entries(properties)
        .filter(([, p]) => p.type === 'integer')
        .map(([name, p]) => ({
          name,
          range:
            p.minimum !== undefined && p.maximum !== undefined ? ` from ${p.minimum} to ${p.maximum}` : '',
        })),
    };
    rulesOf.set(schema, rules);
  }
  return rules;
}

function enforceDecimal(query: Record<string, unknown>, integers: QueryRules['integers']): void {
  for (const { name, range } of integers) {
    const value = query[name];
    if (typeof value === 'string' && !DECIMAL.test(value))
      throw invalidParameter(name, `Parameter "${name}" must be a whole number${range}, in decimal digits.`);
  }
}

function enforceStrictQuery(request: FastifyRequest, { allowed, integers }: QueryRules): void {
  const query = (request.query ?? {}) as Record<string, unknown>;
  for (const name in query) {
    const value = query[name];
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
  if (integers.length > 0) enforceDecimal(query, integers);
}

// GS (U+001D) ends a field of a scanned GS1 element string, so it passes here and the identifier normaliser
// decides where it may stand.
// eslint-disable-next-line no-control-regex -- the control characters are what is refused
const CONTROL = /[\u0000-\u001c\u001e\u001f]/;

function refuseControls(name: string, value: unknown, what: string): void {
  if (typeof value === 'string' && CONTROL.test(value))
    throw invalidParameter(name, `${what} "${name}" contains a control character.`);
}

function enforceTextParams(request: FastifyRequest): void {
  const params = (request.params ?? {}) as Record<string, unknown>;
  for (const name in params) refuseControls(name, params[name], 'Path parameter');
}

/** Refuses control characters in paths, and unknown, repeated or non-decimal integer query parameters. */
export const parametersGate = fp(
  async (app) => {
    app.addHook('preValidation', (request, _reply, done) => {
      const { config, schema } = routeOptionsOf(request);
      if (config.access !== undefined) {
        try {
          enforceTextParams(request);
          enforceStrictQuery(request, queryRules(schema?.querystring));
        } catch (error) {
          done(error as Error);
          return;
        }
      }
      done();
    });
  },
  { name: 'parameters-gate' },
);
