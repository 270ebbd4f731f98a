/**
 * `recalls demo`, the real command in a child process in a folder of its own: the fictional samples
 * go into ./data/demo.db whatever DATABASE_URL says, it serves on 127.0.0.1 and the port given
 * whatever PORT, HOST and REDIS_URL say, and it refuses a port in use or out of range. (The README's
 * first look runs it as the README says: readme-first-look.test.ts.)
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli, startCli } from '../support/cli.ts';
import { sqliteOnly } from '../support/database.ts';
import { eventually } from '../support/until.ts';

type Run = ReturnType<typeof startCli>;

/** Waits for the demo's "Serving on" line and returns its address. */
function servingAddress(run: Run): Promise<string> {
  return eventually(
    () => /Serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(run.output())?.[1],
    () => `the demo to serve; output so far: ${run.output()}`,
    { timeoutMs: 30_000, intervalMs: 20 },
  );
}

async function recallCount(address: string, key: string): Promise<{ status: number; count?: number }> {
  const res = await fetch(`${address}/v1/recalls?limit=50`, { headers: { authorization: `Bearer ${key}` } });
  if (res.status !== 200) return { status: res.status };
  return { status: 200, count: ((await res.json()) as { data: unknown[] }).data.length };
}

describe('recalls demo', { skip: sqliteOnly('the demo is SQLite') }, () => {
  let dir: string;
  let occupied: Server;
  let occupiedPort: number;
  // Settings that would send the samples elsewhere if the demo read them.
  let env: Record<string, string>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'recalls-demo-'));
    occupied = createServer();
    await new Promise<void>((resolve) => occupied.listen(0, '127.0.0.1', resolve));
    occupiedPort = (occupied.address() as { port: number }).port;
    env = {
      DATABASE_URL: `sqlite:${join(dir, 'real', 'recalls.db')}`,
      REDIS_URL: 'redis://127.0.0.1:1',
      PORT: String(occupiedPort),
      HOST: '0.0.0.0',
    };
  });

  after(async () => {
    await new Promise((resolve) => occupied.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  test('serves the samples from ./data/demo.db with the key it saves, and leaves DATABASE_URL alone', async () => {
    const first = startCli(['demo', '--port', '0'], env, { cwd: dir });
    const address = await servingAddress(first);
    const key = readFileSync(join(dir, 'data', 'demo.key'), 'utf8').trim();
    assert.ok(first.output().includes(`\n${key}\n`), 'prints the key it saves');
    assert.equal(readFileSync(join(dir, 'data', 'demo.key')).length, key.length + 1);
    assert.deepEqual(await recallCount(address, key), { status: 200, count: 12 });
    assert.match(first.output(), /us-fda-food: ok, 12 records from 1 page\(s\): 12 new/);
    assert.doesNotMatch(first.output(), /skipped/, 'sources without samples are not listed');
    assert.equal(existsSync(join(dir, 'real')), false, "DATABASE_URL's database is never opened");

    // Started again (the first one still serving): the same records, unchanged, and a new key.
    const second = startCli(['demo', '--port', '0'], env, { cwd: dir });
    const again = await servingAddress(second);
    assert.match(
      second.output(),
      /us-fda-food: ok, 12 records from 1 page\(s\): 0 new, 0 amended, 12 unchanged/,
    );
    const newKey = readFileSync(join(dir, 'data', 'demo.key'), 'utf8').trim();
    assert.notEqual(newKey, key);
    assert.deepEqual(await recallCount(again, newKey), { status: 200, count: 12 });
    assert.deepEqual(await recallCount(again, key), { status: 200, count: 12 }, 'earlier keys stay valid');

    for (const run of [first, second]) {
      run.child.kill('SIGTERM');
      assert.equal((await run.done).code, 0);
    }
  });

  test('a port in use: exit 1, saying so, and the saved key is kept', async () => {
    const before = readFileSync(join(dir, 'data', 'demo.key'), 'utf8');
    const result = await runCli(['demo', '--port', String(occupiedPort)], env, { cwd: dir });
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`port ${occupiedPort} is in use`));
    assert.equal(readFileSync(join(dir, 'data', 'demo.key'), 'utf8'), before);
  });

  test('a port outside 0 to 65535 is a usage error (exit 2), before anything is opened', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'recalls-demo-usage-'));
    try {
      for (const port of ['65536', '-1', 'http', '80.5']) {
        const result = await runCli(['demo', '--port', port], env, { cwd: empty });
        assert.equal(result.code, 2, `--port ${port}: ${result.stderr}`);
        assert.match(result.stderr, /a port is 0 to 65535/);
      }
      assert.equal(existsSync(join(empty, 'data')), false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
