/**
 * A local HTTP server standing in for api.fda.gov's enforcement endpoints: it answers
 * `search=report_date:[A TO B]` with `limit` and `skip` over the records it is given, as
 * openFDA does (404 NOT_FOUND for no match, skip capped at 25000), with ETags for
 * conditional GET. Every request is recorded; an unexpected path fails the test.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export interface OpenFdaStandIn {
  url: string;
  requests: string[];
  /** Answers 304 to a matching If-None-Match (counted here). */
  notModified: number;
  /** Delay before each answer. */
  delayMs: number;
  /** Holds every answer until the returned function is called, to keep a run in flight. */
  hold(): () => void;
  /** Unexpected requests seen (the test asserts this stays empty). */
  unexpected: string[];
  records: Record<string, unknown>[];
  lastUpdated: string;
  close(): Promise<void>;
}

export async function startOpenFdaStandIn(
  path: string,
  records: Record<string, unknown>[],
  lastUpdated = '2026-06-17',
): Promise<OpenFdaStandIn> {
  const state: Omit<OpenFdaStandIn, 'url' | 'close' | 'hold'> = {
    requests: [],
    notModified: 0,
    delayMs: 0,
    unexpected: [],
    records,
    lastUpdated,
  };
  let held: Promise<void> = Promise.resolve();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    state.requests.push(req.url ?? '');
    const answer = () => {
      if (url.pathname !== path) {
        state.unexpected.push(req.url ?? '');
        res.writeHead(404).end();
        return;
      }
      const search = url.searchParams.get('search') ?? '';
      const m = /report_date:\[(\d{8})[ +]TO[ +](\d{8})\]/.exec(search);
      const limit = Number(url.searchParams.get('limit') ?? '1');
      const skip = Number(url.searchParams.get('skip') ?? '0');
      if (skip > 25000 || limit > 1000) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ error: { code: 'BAD_REQUEST', message: 'Skip value must 25000 or less.' } }),
        );
        return;
      }
      const matching = state.records.filter((r) => {
        if (m === null) return search === '';
        const d = String(r.report_date ?? '');
        return d >= m[1]! && d <= m[2]!;
      });
      if (matching.length === 0) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'No matches found!' } }));
        return;
      }
      const body = JSON.stringify({
        meta: {
          disclaimer: 'Stand-in for tests.',
          terms: 'https://open.fda.gov/terms/',
          license: 'https://open.fda.gov/license/',
          last_updated: state.lastUpdated,
          results: { skip, limit, total: matching.length },
        },
        results: matching.slice(skip, skip + limit),
      });
      const etag = `"${createHash('sha1').update(body).digest('hex')}"`;
      if (req.headers['if-none-match'] === etag) {
        state.notModified++;
        res.writeHead(304, { etag }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', etag });
      res.end(body);
    };
    void held.then(() => setTimeout(answer, state.delayMs));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const standIn = state as OpenFdaStandIn;
  standIn.url = `http://127.0.0.1:${address.port}`;
  standIn.hold = () => {
    let release!: () => void;
    held = new Promise((resolve) => (release = resolve));
    return release;
  };
  standIn.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return standIn;
}
