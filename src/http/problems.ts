/**
 * The catalogue of problem types (RFC 9457) and the error that carries one through a request.
 * Callers branch on `type`; titles may be reworded.
 */
export const PROBLEM_TYPES = {
  unauthorized: { type: '/problems/unauthorized', status: 401, title: 'Missing or invalid API key' },
  forbidden: { type: '/problems/forbidden', status: 403, title: 'API key revoked' },
  'quota-exceeded': { type: '/problems/quota-exceeded', status: 402, title: 'Monthly quota exhausted' },
  'rate-limited': { type: '/problems/rate-limited', status: 429, title: 'Burst limit exceeded' },
  'not-found': { type: '/problems/not-found', status: 404, title: 'No such resource' },
  'invalid-parameter': { type: '/problems/invalid-parameter', status: 400, title: 'Invalid parameter' },
  'invalid-cursor': { type: '/problems/invalid-cursor', status: 400, title: 'Invalid cursor' },
  internal: { type: '/problems/internal', status: 500, title: 'Internal error' },
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
