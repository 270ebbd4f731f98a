import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CacheFigures } from '../../../src/node/caches.ts';
import { hashApiKey } from '../../../src/domain/api-keys.ts';
import { openStore } from '../../../src/store/database.ts';
import { KEYS_KEPT } from '../../../src/store/keys-store.ts';
import { CacheRegistry } from '../../../src/node/caches.ts';

const presented = (figures: CacheFigures[]) => figures.find((f) => f.name === 'presented-keys')!;

test('each node keeps one entry per presented key, by its hash, for the last 10,000 keys', async () => {
  assert.equal(KEYS_KEPT, 10_000);
  const dir = mkdtempSync(join(tmpdir(), 'recalls-keys-'));
  const caches = new CacheRegistry();
  const store = await openStore({ engine: 'sqlite', path: join(dir, 'recalls.db') }, { caches });
  try {
    const { key } = await store.keys.create('growth', null, new Date());
    const hash = hashApiKey(key);
    assert.equal(store.keys.lastKnownPlan(hash), undefined, 'not known before its first lookup');
    assert.equal((await store.keys.authenticateHash(hash)).record?.plan, 'growth');
    assert.equal((await store.keys.authenticateHash(hash)).record?.plan, 'growth');
    let f = presented(caches.figures());
    assert.deepEqual([f.entries, f.maxEntries, f.hits, f.misses], [1, KEYS_KEPT, 1, 1]);
    assert.equal(store.keys.lastKnownPlan(hash), 'growth');

    await store.keys.revoke(key, new Date()); // the keys version moves
    assert.equal(store.keys.lastKnownPlan(hash), 'growth', 'the plan still serves the burst gate');
    assert.notEqual((await store.keys.authenticateHash(hash)).record?.revoked_at, null, 'read again');
    f = presented(caches.figures());
    assert.deepEqual([f.entries, f.misses], [1, 2], 'still one entry for the key');

    for (let i = 0; i < KEYS_KEPT; i++) await store.keys.authenticateHash(hashApiKey(`rk_live_${i}`));
    assert.equal(store.keys.lastKnownPlan(hashApiKey('rk_live_1')), null, 'a hash that names no key');
    assert.equal(presented(caches.figures()).entries, KEYS_KEPT);
    assert.equal(store.keys.lastKnownPlan(hash), undefined, 'the least recently presented is forgotten');
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
