/**
 * Usage on an unmetered request quota is counted off the request's path (batched after the
 * answer), yet exactly: every 2xx once, 304s and errors never, identifiers still reserved with
 * the receipt, and nothing lost when the server is closed (SIGTERM) right after answering.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../../src/store/database.ts';
import { listeningUrl, runCli, startCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { draft, startService, usageReaches, type TestService } from '../support/service.ts';

const month = () => new Date().toISOString().slice(0, 7);

/** A service whose scale plan is unmetered for requests and allows 5 identifiers a month. */
async function unmetered(): Promise<TestService> {
  const s = await startService({
    env: { RECALLS_PLAN_SCALE_REQUESTS: 'unmetered', RECALLS_PLAN_SCALE_IDENTIFIERS: '5' },
  });
  await s.seed([
    draft('F-1-2024', {
      identifiers: [{ kind: 'lot', value: 'Lot 4242', normalized: '4242', confidence: 'inferred' }],
    }),
  ]);
  return s;
}

/**
 * Asserts the key's usage this month: first that the recorder writes it within its interval,
 * without any further request (polled, with a deadline), then, once the server is closed (which
 * writes whatever is still pending), that nothing more was counted.
 */
async function assertUsage(s: TestService, key: string, expected: { requests: number; identifiers: number }) {
  await usageReaches(s, key, expected);
  const id = (await s.store.keys.findByKey(key))!.id;
  await s.app.close();
  assert.deepEqual(await s.store.usage.get(id, month()), expected, 'nothing more once everything is written');
}

describe('usage on an unmetered request quota', () => {
  test('counts every 2xx exactly once and nothing else, however many arrive at once', async () => {
    const s = await unmetered();
    try {
      const key = await s.key('scale');
      const first = await s.request('/v1/recalls', { key });
      const etag = first.headers.get('etag')!;
      const answers = await Promise.all([
        ...Array.from({ length: 40 }, () => s.request('/v1/recalls?limit=1', { key })),
        ...Array.from({ length: 5 }, () =>
          s.request('/v1/recalls', { key, headers: { 'if-none-match': etag } }),
        ),
        ...Array.from({ length: 5 }, () => s.request('/v1/recalls/nope', { key })),
        ...Array.from({ length: 5 }, () => s.request('/v1/recalls?bad=1', { key })),
      ]);
      const codes = answers.map((a) => a.status);
      assert.equal(codes.filter((c) => c === 200).length, 40);
      assert.equal(codes.filter((c) => c === 304).length, 5);
      await assertUsage(s, key, { requests: 41, identifiers: 0 });
    } finally {
      await s.close();
    }
  });

  test('identifiers are still reserved with the receipt: the quota is never passed', async () => {
    const s = await unmetered();
    try {
      const key = await s.key('scale');
      const check = (values: string[]) =>
        s.request('/v1/checks', {
          key,
          body: { identifiers: values.map((value) => ({ kind: 'lot', value })) },
        });
      const answers = await Promise.all([
        check(['AA1', 'AA2']),
        check(['BB1', 'BB2']),
        check(['CC1', 'CC2']),
      ]);
      const codes = answers.map((a) => a.status).sort();
      assert.deepEqual(
        codes,
        [201, 201, 402],
        'two checks of two fit in five identifiers, the third does not',
      );
      await assertUsage(s, key, { requests: 2, identifiers: 4 });
    } finally {
      await s.close();
    }
  });
});

describe('usage recorded off the request path survives a graceful stop', () => {
  let dir: string;
  let db: TestDatabase;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'recalls-usage-'));
    db = await createTestDatabase(dir);
  });
  after(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('SIGTERM right after the last answer writes every counted request', async () => {
    const env = {
      DATABASE_URL: db.url,
      RECALLS_PLAN_SCALE_REQUESTS: 'unmetered',
      RECALLS_ARCHIVE_DIR: join(dir, 'a'),
    };
    const key = (await runCli(['keys', 'create', '--plan', 'scale'], env)).stdout.trim().split('\n').pop()!;
    const node = startCli(['serve'], { ...env, PORT: '0', LOG_LEVEL: 'info' });
    const url = await listeningUrl(node);
    const answers = await Promise.all(
      Array.from({ length: 25 }, () =>
        fetch(`${url}/v1/sources`, { headers: { authorization: `Bearer ${key}` } }),
      ),
    );
    assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200]));
    node.child.kill('SIGTERM');
    assert.equal((await node.done).code, 0);
    const store = await openStore(db.database);
    try {
      const id = (await store.keys.findByKey(key))!.id;
      assert.deepEqual(await store.usage.get(id, month()), { requests: 25, identifiers: 0 });
    } finally {
      await store.close();
    }
  });
});
