/** The one error a non-2xx answer becomes: its status, problem document and Retry-After. */
import { problemTypeValues } from './api-types.ts';
import type { Problem } from './types.ts';

/** Longest excerpt of a non-problem body quoted in the synthesised problem's `detail`. */
const EXCERPT_LENGTH = 200;

/**
 * A non-2xx answer (304 aside). `problem` is the service's problem document; an answer that is not one (a proxy's
 * HTML page, an unknown `type`) gets a synthesised `/problems/internal` whose `detail` quotes the start of `body`.
 */
export class RecallsApiError extends Error {
  override readonly name = 'RecallsApiError';
  readonly status: number;
  readonly problem: Problem;
  /** The answer's `Retry-After` in seconds (429), or null when absent. */
  readonly retryAfterSeconds: number | null;
  /** The body text as served. */
  readonly body: string;
  readonly headers: Headers;

  constructor(response: { status: number; headers: Headers }, body: string) {
    const problem = problemFrom(response.status, body);
    super(`${response.status} ${problem.type}: ${problem.detail}`);
    this.status = response.status;
    this.problem = problem;
    this.retryAfterSeconds = retryAfterSeconds(response.headers.get('retry-after'), Date.now());
    this.body = body;
    this.headers = response.headers;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The problem document in `body`, or a `/problems/internal` one describing what came instead. */
export function problemFrom(status: number, body: string): Problem {
  const value = parseJson(body);
  if (isRecord(value)) {
    const type = problemTypeValues.find((t) => t === value.type);
    const { title, detail, instance, parameter } = value;
    if (type !== undefined && typeof title === 'string' && typeof detail === 'string') {
      return {
        type,
        title,
        status: typeof value.status === 'number' ? value.status : status,
        detail,
        ...(typeof instance === 'string' ? { instance } : {}),
        ...(typeof parameter === 'string' ? { parameter } : {}),
      };
    }
  }
  const excerpt = body.length > EXCERPT_LENGTH ? `${body.slice(0, EXCERPT_LENGTH)}…` : body;
  return {
    type: '/problems/internal',
    title: `HTTP ${status}`,
    status,
    detail: `The answer was not a problem document of this service: ${JSON.stringify(excerpt)}`,
  };
}

/** `Retry-After` as whole seconds from `nowMs` (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterSeconds(header: string | null, nowMs: number): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  if (!/^[A-Za-z]{3}/.test(text)) return null; // an HTTP date starts with its day's name
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - nowMs) / 1000));
}
