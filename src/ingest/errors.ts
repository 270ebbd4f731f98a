/** Failures at an agency, as opposed to defects in our code. */
export type UpstreamFailure =
  'http_status' | 'timeout' | 'network' | 'too_large' | 'redirect_loop' | 'truncated' | 'format' | 'empty';

/** Marks its source failed for this run (its records stay untouched); anything else thrown is a defect. */
export class UpstreamError extends Error {
  constructor(
    readonly failure: UpstreamFailure,
    message: string,
    readonly details: { url?: string; status?: number } = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'UpstreamError';
  }
}

/** An agency payload that does not have the shape the adapter knows: drift fails loudly here. */
export function formatError(message: string, url?: string): UpstreamError {
  return new UpstreamError('format', message, url === undefined ? {} : { url });
}
