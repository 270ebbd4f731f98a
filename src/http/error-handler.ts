/**
 * The one place where anything thrown during a request becomes an RFC 9457 problem document.
 * Nothing internal (stack, driver message) ever reaches the body; a 500 carries the request id
 * that the log line carries too.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidCursorError } from '../domain/cursor.ts';
import { InvalidInput, QuotaExceeded } from '../domain/errors.ts';
import { isDatabaseBusy, REQUEST_WAIT_MS } from '../store/database.ts';
import { ProblemError, invalidParameter, type Problem } from './problems.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** The request path without its query string, as `instance`. */
export function instanceOf(request: FastifyRequest): string {
  const url = request.raw.url ?? request.url;
  const path = url.split('?')[0] ?? '/';
  return path.length > 512 ? `${path.slice(0, 509)}...` : path;
}

/** `/identifiers/12/value` → `identifiers[12].value`. */
function bodyPath(instancePath: string, property?: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (property !== undefined) parts.push(property);
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out === '' ? p : `.${p}`;
  return out === '' ? 'body' : out;
}

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

function fromValidation(
  error: FastifyError & { validation: AjvIssue[]; validationContext?: string },
): ProblemError {
  const issue = error.validation[0];
  const context = error.validationContext ?? 'querystring';
  if (issue === undefined) return invalidParameter(context, 'The request is not valid.');
  const property =
    typeof issue.params.missingProperty === 'string'
      ? issue.params.missingProperty
      : typeof issue.params.additionalProperty === 'string'
        ? issue.params.additionalProperty
        : undefined;
  if (context === 'body') {
    const parameter = bodyPath(issue.instancePath, property);
    const what =
      issue.keyword === 'additionalProperties'
        ? `unknown field "${parameter}"`
        : issue.keyword === 'required'
          ? `"${parameter}" is required`
          : `"${parameter}" ${issue.message ?? 'is not valid'}`;
    return invalidParameter(parameter, `The request body is not valid: ${what}.`);
  }
  const parameter = property ?? issue.instancePath.split('/').filter(Boolean)[0] ?? context;
  const allowed = Array.isArray(issue.params.allowedValues)
    ? ` Allowed: ${issue.params.allowedValues.join(', ')}.`
    : '';
  return invalidParameter(
    parameter,
    `Parameter "${parameter}" ${issue.message ?? 'is not valid'}.${allowed}`,
  );
}

/** Maps any error to a problem. */
export function toProblemError(error: unknown): ProblemError | undefined {
  if (error instanceof ProblemError) return error;
  if (error instanceof InvalidInput) return invalidParameter(error.parameter, error.message);
  if (error instanceof QuotaExceeded) return new ProblemError('quota-exceeded', error.message);
  if (isDatabaseBusy(error)) {
    const seconds = Math.ceil(REQUEST_WAIT_MS / 1000);
    return new ProblemError(
      'internal',
      `The database did not answer within ${seconds} s (it is busy elsewhere); retry after ${seconds} seconds.`,
      { headers: { 'Retry-After': String(seconds) } },
    );
  }
  if (error instanceof InvalidCursorError)
    return new ProblemError('invalid-cursor', `Invalid cursor: ${error.message}.`, { parameter: 'cursor' });
  const e = error as FastifyError & { validation?: AjvIssue[]; validationContext?: string };
  if (Array.isArray(e.validation)) return fromValidation(e as FastifyError & { validation: AjvIssue[] });
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return invalidParameter('body', 'The request body is too large (at most 1 MiB).');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return invalidParameter(
        'Content-Type',
        'The request body must be JSON (Content-Type: application/json).',
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidParameter('body', 'The request body is empty; a JSON object is required.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return invalidParameter('Content-Length', 'Content-Length does not match the body.');
    case 'FST_ERR_BAD_URL':
      return invalidParameter('path', 'The request path is not a valid URL (bad percent-encoding).');
  }
  if (e.statusCode === 400 && (error instanceof SyntaxError || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY')) {
    return invalidParameter('body', 'The request body is not valid JSON.');
  }
  if (e.statusCode === 404) return new ProblemError('not-found', 'No such resource.');
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return invalidParameter('request', 'The request could not be understood.');
  }
  return undefined;
}

export function sendProblem(reply: FastifyReply, problem: ProblemError, instance: string): FastifyReply {
  // A tag set before the handler failed must not stay on an error: it would let a later
  // If-None-Match turn a missing resource into a 304.
  reply.removeHeader('ETag');
  for (const [name, value] of Object.entries(problem.headers)) reply.header(name, value);
  const body: Problem = problem.toProblem(instance);
  return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(body);
}

export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const problem = toProblemError(error);
  if (isDatabaseBusy(error))
    request.log.warn(
      { reqId: request.id, cause: (error as Error).message },
      `the database did not answer within ${REQUEST_WAIT_MS} ms`,
    );
  if (problem !== undefined) return sendProblem(reply, problem, instanceOf(request));
  request.log.error({ err: error, reqId: request.id }, 'unexpected error');
  return sendProblem(
    reply,
    new ProblemError(
      'internal',
      `An internal error occurred; quote request id ${request.id} when reporting it.`,
    ),
    instanceOf(request),
  );
}
