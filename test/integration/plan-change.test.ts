/**
 * A key moved to another plan while it keeps calling: the node applies the new plan's monthly quota from its
 * next request after it sees the change (within 1 s, as a revocation), down and up, and usage stays exact.
 * The change is made on another connection, as `recalls keys plan` in another process makes it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openStore, type Store } from '../../src/store/database.ts';
import { json, settledUsage, startService, type TestService } from '../support/service.ts';

/** The bound every node keeps for seeing a key change (store-state.ts). */
const WITHIN_MS = 1000;

describe('a plan change reaches the quota of a busy key', () => {
  let s: TestService;
  let other: Store;
  before(async () => {
    s = await startService({
      env: { RECALLS_PLAN_FREE_REQUESTS: '30', RECALLS_PLAN_STARTER_REQUESTS: '60' },
    });
    other = await openStore(s.config.database);
  });
  after(async () => {
    await other?.close();
    await s?.close();
  });

  async function call(key: string): Promise<number> {
    const r = await s.request('/v1/recalls?limit=1', { key });
    await r.arrayBuffer();
    return r.status;
  }

  /** Calls until `status` comes back; returns how long it took and the 2xx answers on the way. */
  async function callUntil(key: string, status: number): Promise<{ ms: number; ok: number }> {
    const started = performance.now();
    let ok = 0;
    for (;;) {
      const got = await call(key);
      if (got === 200) ok++;
      if (got === status) return { ms: performance.now() - started, ok };
      assert.ok(performance.now() - started < 5 * WITHIN_MS, `still ${got}, not ${status}`);
    }
  }

  test('down: a key past the lower limit gets 402 within 1 s; up: it is admitted again within 1 s', async () => {
    const key = await s.key('starter');
    let answered = 0;
    for (let i = 0; i < 40; i++) {
      assert.equal(await call(key), 200);
      answered++;
    }
    assert.ok(await other.keys.setPlan(key, 'free'));
    const down = await callUntil(key, 402);
    answered += down.ok;
    assert.ok(down.ms < WITHIN_MS, `the lower limit applied after ${down.ms.toFixed(0)} ms`);
    // Only requests that began before the node saw the change pass (the old limit would have let 20 more).
    assert.ok(down.ok <= 3, `${down.ok} admitted after the change`);
    const refused = await s.request('/v1/recalls?limit=1', { key });
    assert.equal(refused.status, 402);
    assert.match((await json(refused)).detail, /\b30\b/, 'the detail names the new limit');

    assert.ok(await other.keys.setPlan(key, 'starter'));
    const up = await callUntil(key, 200);
    answered += up.ok;
    assert.ok(up.ms < WITHIN_MS, `the higher limit applied after ${up.ms.toFixed(0)} ms`);
    while ((await call(key)) === 200) answered++;
    assert.equal(answered, 60, 'the starter limit, exactly');

    const usage = await settledUsage(s, key);
    assert.equal(usage.requests, answered, 'usage is exact: every 2xx once');
  });
});
