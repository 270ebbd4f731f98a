import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import { REMEMBERED_KEYS, rememberedPlans } from '../../../src/http/gates/key.ts';

test('each node remembers the plans of the last 10,000 key hashes looked up', () => {
  assert.equal(REMEMBERED_KEYS, 10_000);
  const plans = rememberedPlans();
  const { free } = loadConfig({}, []).plans;
  for (let i = 0; i <= REMEMBERED_KEYS; i++) plans.set(`hash-${i}`, free);
  assert.equal(plans.size, REMEMBERED_KEYS);
  assert.equal(plans.get('hash-0'), undefined, 'the least recently looked up is forgotten');
  assert.equal(plans.get(`hash-${REMEMBERED_KEYS}`), free);
});
