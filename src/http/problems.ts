/**
 * The catalogue of problem types (RFC 9457) and the error that carries one through a request.
 * Callers branch on `type`; titles may be reworded.
 */
export const PROBLEM_TYPES = {
  unauthorized: {
    type: '/problems/unauthorized',
    status: 401,
    title: 'Missing or invalid API key',
    about:
      'The request carries no API key, or one this service does not know. Send `Authorization: Bearer <key>` or ' +
      '`X-API-Key: <key>`. Two headers naming different keys are refused the same way.',
  },
  forbidden: {
    type: '/problems/forbidden',
    status: 403,
    title: 'API key revoked',
    about: "The API key was revoked by the service's operator. Ask for a new key.",
  },
  'quota-exceeded': {
    type: '/problems/quota-exceeded',
    status: 402,
    title: 'Monthly quota exhausted',
    about:
      "The key's plan allows so many requests, and so many identifiers checked, per calendar month (UTC), and this " +
      'request would pass one of them. The detail names the plan and the limit; the quota starts again on the ' +
      'first day of next month (UTC), or sooner if the key is moved to a larger plan.',
  },
  'rate-limited': {
    type: '/problems/rate-limited',
    status: 429,
    title: 'Burst limit exceeded',
    about:
      "Too many requests from this client address in the current one-minute window (the burst limit of the key's " +
      'plan). Retry after the number of seconds in the `Retry-After` header.',
  },
  'not-found': {
    type: '/problems/not-found',
    status: 404,
    title: 'No such resource',
    about:
      'Nothing at this address: an unknown path, or a recall or receipt id that does not exist. A receipt made ' +
      'with another key is not found either.',
  },
  'invalid-parameter': {
    type: '/problems/invalid-parameter',
    status: 400,
    title: 'Invalid parameter',
    about:
      'A path or query parameter, a header or the body cannot be accepted: `parameter` names which, and the ' +
      'detail says why. Unknown query parameters are refused, never ignored. Nothing was changed.',
  },
  'invalid-cursor': {
    type: '/problems/invalid-cursor',
    status: 400,
    title: 'Invalid cursor',
    about:
      'The `cursor` is not one this service issued for this list, or it was altered. Start the walk again from ' +
      'the first page.',
  },
  internal: {
    type: '/problems/internal',
    status: 500,
    title: 'Internal error',
    about:
      "The service could not answer, and the request changed nothing. Retry later; the service's log has the " +
      'cause under the request id.',
  },
} as const;

export type ProblemKind = keyof typeof PROBLEM_TYPES;

/** The wire shape of a problem document. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  parameter?: string;
}

/** Thrown anywhere in a request to answer with a problem document. */
export class ProblemError extends Error {
  readonly kind: ProblemKind;
  readonly parameter: string | undefined;
  readonly headers: Record<string, string>;

  constructor(
    kind: ProblemKind,
    detail: string,
    options: { parameter?: string; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'ProblemError';
    this.kind = kind;
    this.parameter = options.parameter;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return PROBLEM_TYPES[this.kind].status;
  }

  toProblem(instance: string): Problem {
    const t = PROBLEM_TYPES[this.kind];
    return {
      type: t.type,
      title: t.title,
      status: t.status,
      detail: this.message,
      instance,
      ...(this.parameter === undefined ? {} : { parameter: this.parameter }),
    };
  }
}

export function invalidParameter(parameter: string, detail: string): ProblemError {
  return new ProblemError('invalid-parameter', detail, { parameter });
}
