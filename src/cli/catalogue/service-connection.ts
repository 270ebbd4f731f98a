/** The service a catalogue command talks to: its address and key, through the typed client. */
import { RecallsApiError, RecallsClient } from '../../client/index.ts';
import { CommandFailure } from '../exit-codes.ts';

/** The service address without a trailing slash; must be http(s). */
export function serviceUrl(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '')
    throw new CommandFailure(
      'no service address: pass --url or set RECALLS_URL (e.g. http://127.0.0.1:8080)',
    );
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new CommandFailure(`--url "${raw}" is not a URL (e.g. http://127.0.0.1:8080)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CommandFailure(`--url must be http or https, not ${url.protocol}`);
  return url.href.replace(/\/+$/, '');
}

/** The API key; must be given. */
export function apiKey(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '')
    throw new CommandFailure('no API key: pass --key or set RECALLS_KEY (recalls keys create prints one)');
  return raw.trim();
}

/** A client that reports every wait before a retry (a 429, a 5xx, no answer) through `onWait`, naming `url`. */
export function connect(url: string, key: string, onWait: (message: string) => void): RecallsClient {
  return new RecallsClient({
    baseUrl: url,
    apiKey: key,
    onRetry: ({ status, waitSeconds, attempt }) =>
      onWait(
        `${status === null ? `no answer from ${url} (--url or RECALLS_URL)` : `the service answered ${status}`}: waiting ${waitSeconds} s before retry ${attempt}`,
      ),
  });
}

/** Whether the service refused the key itself (missing, unknown or revoked), not the request. */
export function isKeyRefused(error: unknown): boolean {
  return error instanceof RecallsApiError && (error.status === 401 || error.status === 403);
}

/** One line about a failed request: the problem's status, type and detail, or the network error at `url`. */
export function describeFailure(error: unknown, url: string): string {
  if (error instanceof RecallsApiError)
    return `${error.status} ${error.problem.type}: ${error.problem.detail}`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return `the service at ${url} (--url or RECALLS_URL) did not answer (${cause?.code ?? cause?.message ?? (error as Error).message})`;
}
