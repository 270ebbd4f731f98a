/**
 * A local stand-in for an agency that answers a script, in order: each request must match the
 * next scripted path. Anything else is recorded as unexpected and answered 418 (not retried), and
 * `finish()` fails the test if a request was unexpected or a scripted answer was never asked for.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export async function scriptedAgency(t: TestContext, script: Array<[path: string, handler: Handler]>) {
  const queue = [...script];
  const unexpected: string[] = [];
  const requests: Array<{ path: string; headers: IncomingMessage['headers'] }> = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '';
    requests.push({ path, headers: req.headers });
    const next = queue[0];
    if (next === undefined || next[0] !== path) {
      unexpected.push(`${req.method} ${path}`);
      res.writeHead(418).end();
      return;
    }
    queue.shift();
    next[1](req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = async (): Promise<void> => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  t.after(close);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    url: (path: string) => base + path,
    requests,
    async finish(): Promise<void> {
      await close();
      assert.deepEqual(unexpected, [], 'unexpected requests');
      assert.deepEqual(
        queue.map(([p]) => p),
        [],
        'scripted answers never asked for',
      );
    },
  };
}
