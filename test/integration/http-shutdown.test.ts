/**
 * A node stopped with SIGTERM answers its in-flight requests and exits within seconds, even
 * with an idle keep-alive client connected (not after the 72 s keep-alive timeout).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli, startCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/** Resolves once `check` returns a value, polling every 20 ms; rejects after `ms`. */
async function until<T>(what: string, ms: number, check: () => T | undefined): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('graceful shutdown', () => {
  let dir: string;
  let db: TestDatabase;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'recalls-shutdown-'));
    db = await createTestDatabase(dir);
  });
  after(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('SIGTERM answers the request in flight and exits in seconds with an idle keep-alive client', async () => {
    const env = { DATABASE_URL: db.url, RECALLS_ARCHIVE_DIR: join(dir, 'a') };
    const key = (await runCli(['keys', 'create', '--plan', 'scale'], env)).stdout.trim().split('\n').pop()!;
    // debug: the log says when a request has arrived (access-log.ts)
    const node = startCli(['serve'], { ...env, PORT: '0', LOG_LEVEL: 'debug' });
    const agent = new Agent({ keepAlive: true });
    try {
      const url = new URL(
        await until(
          'the server to listen',
          15_000,
          () => /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(node.output())?.[1],
        ),
      );

      // An idle keep-alive client: one answered request, its connection kept open.
      const idle = await new Promise<number>((resolve, reject) =>
        get(new URL('/v1/health', url), { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        }).on('error', reject),
      );
      assert.equal(idle, 200);
      await until('the idle connection', 2_000, () =>
        Object.values(agent.freeSockets).flat().length === 1 ? true : undefined,
      );

      // A request in flight: its headers sent, its body held back until the node is stopping.
      const body = JSON.stringify({ identifiers: [{ kind: 'lot', value: 'S1X' }] });
      const socket = connect(Number(url.port), url.hostname);
      let answer = '';
      socket.on('data', (d: Buffer) => (answer += d.toString()));
      const closed = new Promise((resolve) => socket.on('close', resolve));
      socket.write(
        `POST /v1/checks HTTP/1.1\r\nHost: ${url.host}\r\nConnection: keep-alive\r\n` +
          `Authorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, -1)}`,
      );
      await until('the request to arrive', 5_000, () =>
        /"url":"\/v1\/checks","msg":"request received"/.test(node.output()) ? true : undefined,
      );

      const stopping = Date.now();
      node.child.kill('SIGTERM');
      await until('shutdown to start', 5_000, () => (/shutting down/.test(node.output()) ? true : undefined));
      socket.write(body.slice(-1));

      const exit = await Promise.race([
        node.done,
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 15_000)),
      ]);
      // Seconds, not the 72 s keep-alive timeout (the bound leaves room for a loaded machine).
      assert.ok(exit, `still running 15 s after SIGTERM\n${node.output()}`);
      assert.equal(exit.code, 0, exit.stderr);
      assert.ok(Date.now() - stopping < 10_000, `exited ${Date.now() - stopping} ms after SIGTERM`);
      await closed;
      assert.match(answer, /^HTTP\/1\.1 201 /, 'the in-flight request was answered');
    } finally {
      agent.destroy();
      node.child.kill('SIGKILL');
    }
  });
});
