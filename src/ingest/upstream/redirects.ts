/** Redirects followed by hand, so that each one is counted and a loop is caught. */
import { fatal } from './failures.ts';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Whether an answer is a redirect to follow. */
export function isRedirect(status: number): boolean {
  return REDIRECT_STATUSES.has(status);
}

/** The redirects of one attempt: where it started, how many were followed, where it has been. */
export class RedirectTrail {
  private readonly visited: Set<string>;
  private followed = 0;

  constructor(
    private readonly startUrl: string,
    private readonly maxRedirects: number,
  ) {
    this.visited = new Set([loopKey(startUrl)]);
  }

  /**
   * The address a redirect from `url` leads to. Throws AttemptError ('http_status') without a
   * usable http(s) Location, and ('redirect_loop') past the limit or back to an address seen.
   */
  next(url: string, status: number, location: string | null): URL {
    let next: URL | undefined;
    try {
      next = location === null ? undefined : new URL(location, url);
    } catch {
      next = undefined;
    }
    if (next === undefined || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
      throw fatal('http_status', `${url} answered ${status} without a usable Location`, { url, status });
    }
    if (this.followed >= this.maxRedirects) {
      throw fatal('redirect_loop', `${this.startUrl}: more than ${this.maxRedirects} redirects`, {
        url: this.startUrl,
      });
    }
    const key = loopKey(next.href);
    if (this.visited.has(key)) {
      throw fatal('redirect_loop', `${this.startUrl}: redirect loop at ${next.href}`, { url: this.startUrl });
    }
    this.visited.add(key);
    this.followed++;
    return next;
  }
}

/** Redirect-loop key: the address without its fragment. */
function loopKey(url: string): string {
  try {
    const u = new URL(url);
    u.hash = '';
    return u.href;
  } catch {
    return url;
  }
}
