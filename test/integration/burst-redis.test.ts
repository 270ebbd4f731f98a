import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { createRedisBurstLimiter } from '../../src/http/gates/burst-redis.ts';
import { sqliteOnly } from '../support/database.ts';
import { REDIS_URL, requireService } from '../support/services.ts';

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

test('an unreachable Redis admits requests and reports the error', { skip }, async () => {
  const errors: unknown[] = [];
  const limiter = createRedisBurstLimiter('redis://127.0.0.1:9', { onError: (e) => errors.push(e) });
  try {
    const d = await limiter.hit('203.0.113.7', 1, 60, Date.now());
    assert.equal(d.allowed, true);
    assert.ok(errors.length > 0);
  } finally {
    await limiter.close();
  }
});
