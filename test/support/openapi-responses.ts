/**
 * Checks answers against the service's own OpenAPI document: every answer to a documented operation must have a
 * status the operation declares, the media type and body schema declared for that status (Ajv, strict, JSON
 * Schema 2020-12 as OpenAPI 3.1 says), every required header it declares, declared headers that match their
 * schemas, and none of the contract's headers (ETag, RateLimit, …) left undeclared. Answers outside any
 * operation (unknown paths) must be problem documents. `watchResponses` does this for every answer of a test
 * service (test/support/service.ts).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

type Json = Record<string, any>;

/** One answer, as the server sent it. */
export interface SeenResponse {
  method: string;
  /** The route's URL pattern (`/v1/recalls/:id`), undefined when no route matched. */
  route: string | undefined;
  /** The request path, for the report. */
  url: string;
  status: number;
  headers: Record<string, string | undefined>;
  /** The body as sent ('' or undefined when none). */
  body: string | undefined;
}

/** Headers of the contract that a response must not send unless its operation declares them for that status. */
const CONTRACT_HEADERS = ['etag', 'retry-after', 'ratelimit', 'ratelimit-policy', 'idempotent-replayed'];

const BASE = 'https://openapi.test/schemas/';

/** `#/components/schemas/X` → an absolute id Ajv knows, everywhere in `value`. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] =
      k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')
        ? `${BASE}${v.slice('#/components/schemas/'.length)}`
        : rewriteRefs(v);
  }
  return out;
}

/** `/v1/recalls/:id` → `/v1/recalls/{id}`. */
function documentPath(route: string): string {
  return route.replace(/:(\w+)/g, '{$1}');
}

function mediaType(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase();
}

export class ResponseValidator {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  /** Answers checked against an operation (or, outside any, against the problem schema). */
  checked = 0;
  /** Answers of routes the document leaves out on purpose (the document itself, /docs). */
  outside = 0;

  constructor(private readonly document: Json) {
    this.ajv = new Ajv2020({ strict: true });
    addFormats.default(this.ajv);
    this.ajv.addKeyword('example');
    for (const [name, schema] of Object.entries<Json>(document.components?.schemas ?? {}))
      this.ajv.addSchema({ ...(rewriteRefs(schema) as Json), $id: `${BASE}${name}` });
  }

  private validator(key: string, schema: unknown): ValidateFunction {
    let v = this.compiled.get(key);
    if (v === undefined) {
      v = this.ajv.compile(rewriteRefs(schema) as Json);
      this.compiled.set(key, v);
    }
    return v;
  }

  private resolve(object: Json): Json {
    const ref = object.$ref as string | undefined;
    if (ref === undefined) return object;
    const [, section, name] = /^#\/components\/(\w+)\/(.+)$/.exec(ref) ?? [];
    const found = section === undefined ? undefined : this.document.components?.[section]?.[name!];
    if (found === undefined) throw new Error(`unresolved ${ref}`);
    return found;
  }

  private errors(v: ValidateFunction): string {
    return this.ajv.errorsText(v.errors, { dataVar: 'body' });
  }

  /** The problems of one answer ([] when it is as documented). */
  check(seen: SeenResponse): string[] {
    const where = `${seen.method} ${seen.url} → ${seen.status}`;
    const method = seen.method === 'HEAD' ? 'get' : seen.method.toLowerCase();
    const item = seen.route === undefined ? undefined : this.document.paths?.[documentPath(seen.route)];
    const op: Json | undefined = item?.[method];
    if (op === undefined) {
      if (seen.route !== undefined && seen.status < 400) {
        this.outside++;
        return [];
      }
      this.checked++;
      return this.checkBody(
        where,
        seen,
        { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        'problem',
      );
    }
    this.checked++;
    const declared = op.responses?.[String(seen.status)];
    if (declared === undefined)
      return [`${where}: status ${seen.status} is not declared for ${op.operationId}`];
    const response = this.resolve(declared);
    return [
      ...this.checkHeaders(where, seen, response),
      ...(seen.method === 'HEAD'
        ? []
        : this.checkBody(where, seen, response.content, `${op.operationId} ${seen.status}`)),
    ];
  }

  private checkBody(where: string, seen: SeenResponse, content: Json | undefined, key: string): string[] {
    const body = seen.body ?? '';
    if (content === undefined) return body === '' ? [] : [`${where}: a body where none is declared`];
    const type = mediaType(seen.headers['content-type']);
    const media = type === undefined ? undefined : content[type];
    if (media === undefined)
      return [`${where}: content type ${type ?? '(none)'} is not one of ${Object.keys(content).join(', ')}`];
    let data: unknown;
    try {
      data = JSON.parse(body);
    } catch {
      return [`${where}: the body is not JSON: ${body.slice(0, 80)}`];
    }
    const v = this.validator(`${key} ${type}`, media.schema);
    return v(data) ? [] : [`${where}: ${this.errors(v)}`];
  }

  private checkHeaders(where: string, seen: SeenResponse, response: Json): string[] {
    const problems: string[] = [];
    const declared = new Map<string, Json>();
    for (const [name, header] of Object.entries<Json>(response.headers ?? {}))
      declared.set(name.toLowerCase(), this.resolve(header));
    for (const name of CONTRACT_HEADERS)
      if (seen.headers[name] !== undefined && !declared.has(name))
        problems.push(`${where}: header ${name} is sent but not declared`);
    for (const [name, header] of declared) {
      const value = seen.headers[name];
      if (value === undefined) {
        if (header.required === true) problems.push(`${where}: required header ${name} is missing`);
        continue;
      }
      const schema = header.schema ?? {};
      const data = schema.type === 'integer' && /^-?[0-9]+$/.test(value) ? Number(value) : value;
      const v = this.validator(`header ${JSON.stringify(schema)}`, schema);
      if (!v(data)) problems.push(`${where}: header ${name}: ${JSON.stringify(value)} ${this.errors(v)}`);
    }
    return problems;
  }
}

/** One validator per distinct document in this process (every test service serves the same one). */
const validators = new Map<string, ResponseValidator>();

function validatorFor(document: Json): ResponseValidator {
  const key = JSON.stringify(document);
  let v = validators.get(key);
  if (v === undefined) {
    v = new ResponseValidator(document);
    validators.set(key, v);
  }
  return v;
}

/** Answers checked in this process so far, over every validator. */
export function responsesChecked(): { checked: number; outside: number } {
  let checked = 0;
  let outside = 0;
  for (const v of validators.values()) {
    checked += v.checked;
    outside += v.outside;
  }
  return { checked, outside };
}

let summaryPrinted = false;

/** Prints how many answers this test process checked, once, as it exits. */
function printSummaryOnExit(): void {
  if (summaryPrinted) return;
  summaryPrinted = true;
  process.once('exit', () => {
    const { checked, outside } = responsesChecked();
    process.stdout.write(
      `openapi: ${checked} responses checked against the document (${outside} outside it)\n`,
    );
  });
}

function text(payload: unknown): string | undefined {
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8');
  return undefined;
}

/**
 * Checks every answer `app` sends against the document it serves, collecting what does not conform. Call before
 * the app is ready. The body is taken at onSend (before HEAD drops it) and checked once the answer is sent,
 * with its status and headers as sent: conditional GET tags the answer, and may make a 304 of it (with no
 * body), in the route's own onSend, which runs after every hook added here.
 */
export function watchResponses(app: FastifyInstance): { violations: string[] } {
  const violations: string[] = [];
  let validator: ResponseValidator | undefined;
  printSummaryOnExit();
  const bodies = new WeakMap<object, unknown>();
  app.addHook('onSend', (_request, reply, payload, done) => {
    bodies.set(reply, payload);
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (!bodies.has(reply)) return done();
    const payload = reply.statusCode === 304 ? '' : bodies.get(reply);
    try {
      validator ??= validatorFor(app.swagger() as Json);
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(reply.getHeaders()))
        headers[name.toLowerCase()] = value === undefined ? undefined : String(value);
      const body = text(payload);
      if (body === undefined && payload !== undefined && payload !== null) {
        validator.outside++; // a stream: the static files of /docs; no operation answers with one
      } else {
        violations.push(
          ...validator.check({
            method: request.method,
            route: request.routeOptions.url,
            url: request.url,
            status: reply.statusCode,
            headers,
            body,
          }),
        );
      }
    } catch (error) {
      violations.push(`${request.method} ${request.url}: the check failed: ${String(error)}`);
    }
    done();
  });
  return { violations };
}
