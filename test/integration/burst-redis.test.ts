import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { test } from 'node:test';
import { createRedisBurstLimiter } from '../../src/node/burst-redis.ts';
import { sqliteOnly } from '../support/database.ts';
import { REDIS_URL, requireService } from '../support/services.ts';
import { until } from '../support/until.ts';

const skip = sqliteOnly('no database');

test('two nodes share one burst counter per client in Redis', { skip }, async (t) => {
  if (!(await requireService(t, 'Redis', REDIS_URL))) return;
  const prefix = `recalls-test:${randomBytes(4).toString('hex')}:`;
  const a = createRedisBurstLimiter(REDIS_URL, { prefix });
  const b = createRedisBurstLimiter(REDIS_URL, { prefix });
  try {
    const decisions = [];
    for (let i = 0; i < 6; i++)
      decisions.push(await (i % 2 === 0 ? a : b).hit('203.0.113.7', 4, 60, Date.now()));
    assert.deepEqual(
      decisions.map((d) => d.allowed),
      [true, true, true, true, false, false],
    );
    assert.deepEqual(
      decisions.map((d) => d.remaining),
      [3, 2, 1, 0, 0, 0],
    );
    assert.ok(decisions.every((d) => d.resetSeconds >= 1 && d.resetSeconds <= 60));
    assert.equal(
      (await a.hit('203.0.113.8', 4, 60, Date.now())).allowed,
      true,
      'another client has its own counter',
    );
    const short = await a.hit('203.0.113.9', 1, 1, Date.now());
    assert.equal(short.allowed, true);
    assert.equal((await b.hit('203.0.113.9', 1, 1, Date.now())).allowed, false);
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal((await b.hit('203.0.113.9', 1, 1, Date.now())).allowed, true, 'the window resets');
  } finally {
    await a.close();
    await b.close();
  }
});

/** A Redis server of the test's own on a free port (killed and restarted by the test). */
function startRedis(port: number): ChildProcess {
  return spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once a Redis server answers on `port`. */
async function listening(port: number): Promise<void> {
  const probe = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true, maxRetriesPerRequest: 0 });
  probe.on('error', () => {});
  try {
    await until(
      () =>
        probe.ping().then(
          () => true,
          () => false,
        ),
      () => `redis-server on port ${port}`,
    );
  } finally {
    probe.disconnect();
  }
}

test(
  'Redis down: bursts are counted in memory, each request fast after the first, one line per outage and recovery',
  { skip },
  async (t) => {
    if (!(await requireService(t, 'Redis', REDIS_URL))) return; // the machine has Redis: so it has redis-server
    const port = await freePort();
    let server = startRedis(port);
    await listening(port);
    const log: string[] = [];
    const prefix = `recalls-test:${randomBytes(4).toString('hex')}:`;
    const limiter = createRedisBurstLimiter(`redis://127.0.0.1:${port}`, {
      prefix,
      retryMs: 300,
      onOutage: () => log.push('outage'),
      onRecovery: () => log.push('recovery'),
    });
    try {
      await until(
        async () => (await limiter.hit('203.0.113.1', 100, 60, Date.now())).count > 0,
        () => 'the limiter to count',
      );
      server.kill('SIGKILL');
      await new Promise((resolve) => server.once('exit', resolve));
      await limiter.hit('203.0.113.7', 3, 60, Date.now()); // the first may wait for the failure
      const took: number[] = [];
      const allowed: boolean[] = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        allowed.push((await limiter.hit('203.0.113.7', 3, 60, Date.now())).allowed);
        took.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 25)); // past retryMs: Redis is tried again, off the requests
      }
      assert.ok(
        Math.max(...took) < 50,
        `each hit after the first took at most ${Math.max(...took).toFixed(1)} ms`,
      );
      assert.deepEqual(allowed.slice(0, 3), [true, true, false], 'the limit holds, counted in memory');
      assert.deepEqual(log, ['outage'], 'one line for the outage, however many requests and reconnections');
      server = startRedis(port);
      // The client reconnects by itself and its ready connection ends the outage.
      await until(
        async () => {
          await limiter.hit('203.0.113.8', 100, 60, Date.now());
          return log.includes('recovery');
        },
        () => `Redis to be used again (log ${JSON.stringify(log)})`,
      );
      // Counted in Redis again, not in memory: the restarted server holds the counter, hit for hit. (A count
      // alone would not tell: the memory fallback counts too.)
      const reader = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 1 });
      try {
        for (let n = 1; n <= 3; n++) {
          assert.equal((await limiter.hit('203.0.113.9', 100, 60, Date.now())).count, n);
          assert.equal(await reader.get(`${prefix}203.0.113.9`), String(n), 'the counter is in Redis');
        }
      } finally {
        reader.disconnect();
      }
      assert.deepEqual(log, ['outage', 'recovery']);
    } finally {
      await limiter.close();
      server.kill('SIGKILL');
    }
  },
);

test(
  'a node whose Redis came up late counts there once its connection is ready, without waiting retryMs',
  { skip },
  async (t) => {
    if (!(await requireService(t, 'Redis', REDIS_URL))) return;
    const port = await freePort();
    const log: string[] = [];
    const prefix = `recalls-test:${randomBytes(4).toString('hex')}:`;
    const limiter = createRedisBurstLimiter(`redis://127.0.0.1:${port}`, {
      prefix,
      retryMs: 600_000,
      onOutage: () => log.push('outage'),
      onRecovery: () => log.push('recovery'),
    });
    let server: ChildProcess | undefined;
    try {
      await until(
        () => log.includes('outage'),
        () => 'the refused first connection to start an outage',
      );
      assert.equal((await limiter.hit('203.0.113.5', 10, 60, Date.now())).count, 1, 'counted in memory');
      server = startRedis(port);
      await until(
        () => log.includes('recovery'),
        () => `the reconnection to end the outage (log ${JSON.stringify(log)})`,
      );
      const reader = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 1 });
      try {
        assert.equal(
          (await limiter.hit('203.0.113.5', 10, 60, Date.now())).count,
          1,
          'a new count, in Redis',
        );
        assert.equal(await reader.get(`${prefix}203.0.113.5`), '1', 'the counter is in Redis');
      } finally {
        reader.disconnect();
      }
      assert.deepEqual(log, ['outage', 'recovery']);
    } finally {
      await limiter.close();
      server?.kill('SIGKILL');
    }
  },
);
