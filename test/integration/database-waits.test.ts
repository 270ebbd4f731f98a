/**
 * A database busy elsewhere never makes `serve` hang (docs/scale.md, "Bounds"). With the service file's
 * write lock held by another connection (SQLite, one node), or one key's `usage` row locked by another connection
 * (PostgreSQL, three nodes, each with more requests of that key in flight than its pool has connections),
 * `/v1/health`, lookups and 304s are answered by every node while the lock is held; a request that must wait for
 * the locked row (a lease of its key's quota) fails within REQUEST_WAIT_MS with a 500 problem and `Retry-After`,
 * still while the lock is held; `/metrics` and `/readyz` answer too. Once it is released the same request is answered.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { SQLite } from '../../src/store/engines/sqlite-driver.ts';
import { REQUEST_WAIT_MS } from '../../src/store/engine.ts';
import { openStore } from '../../src/store/database.ts';
import { createKey, ingestSamples, serveWithAdmin, serviceEnv, type startCli } from '../support/cli.ts';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../support/database.ts';

const LOOKUP = '/v1/identifiers/upc/012345678905';
/** API nodes on the engine: PostgreSQL serves several, a SQLite file one. */
const NODES = TEST_ENGINE === 'postgres' ? 3 : 1;
/** Requests of the locked key sent to each node at once: more than its pool's 10 connections. */
const WAITING = TEST_ENGINE === 'postgres' ? 12 : 1;

/** A lock held by another connection until `release`. */
interface HeldLock {
  release(): Promise<void>;
}

/** SQLite: the service file's write lock (BEGIN IMMEDIATE), as a long write of another process holds it. */
function lockServiceFile(path: string): HeldLock {
  const db = new SQLite(path, { fileMustExist: true });
  db.exec('BEGIN IMMEDIATE');
  db.prepare('UPDATE keys_state SET keys_version = keys_version WHERE id = 1').run();
  return {
    release: async () => {
      db.exec('ROLLBACK');
      db.close();
    },
  };
}

/** PostgreSQL: one key's `usage` rows, locked as a check's receipt transaction on another node locks them. */
async function lockUsageRow(url: string, keyId: string): Promise<HeldLock> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  const locked = await client.query('SELECT 1 FROM usage WHERE key_id = $1 FOR UPDATE', [keyId]);
  assert.ok(locked.rowCount! > 0, 'the key has a usage row to lock');
  return {
    release: async () => {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}

describe('requests while the database is locked elsewhere', { timeout: 240_000 }, () => {
  let dir: string;
  let db: TestDatabase;
  let env: Record<string, string>;
  const nodes: { serve: ReturnType<typeof startCli>; url: string; admin: string }[] = [];
  /** Unmetered requests: answered without a lease. */
  let unmetered: string;
  /** Starter, leased one request at a time: each request leases from its usage row. */
  let leased: string;

  const get = (url: string, path: string, key?: string, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, {
      headers: { ...headers, ...(key === undefined ? {} : { authorization: `Bearer ${key}` }) },
    });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'recalls-waits-'));
    db = await createTestDatabase(dir);
    env = serviceEnv(db.url, dir, { RECALLS_QUOTA_LEASE_BLOCK: '1' });
    await ingestSamples(env);
    unmetered = await createKey(env, 'scale');
    leased = await createKey(env, 'starter');
    for (let i = 0; i < NODES; i++) {
      const { run, url, admin } = await serveWithAdmin(env);
      nodes.push({ serve: run, url, admin });
    }
  });
  after(async () => {
    for (const { serve } of nodes) serve.child.kill('SIGKILL');
    await Promise.all(nodes.map(({ serve }) => serve.done));
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test(`health, lookups and 304s are answered; a request waiting on the lock fails within ${REQUEST_WAIT_MS} ms`, async (t) => {
    const first = await get(nodes[0]!.url, LOOKUP, unmetered);
    assert.equal(first.status, 200);
    const etag = first.headers.get('etag')!;
    assert.equal(
      (await get(nodes[0]!.url, '/v1/sources', leased)).status,
      200,
      'the leased key has its usage row',
    );

    let lock: HeldLock;
    if (TEST_ENGINE === 'sqlite') lock = lockServiceFile(db.url);
    else {
      const store = await openStore(db.database);
      const keyId = (await store.keys.findByKey(leased))!.id;
      await store.close();
      lock = await lockUsageRow(db.url, keyId);
    }
    let released = false;
    try {
      const started = performance.now();
      const timed = async (name: string, answer: Promise<Response>) => {
        const res = await answer;
        const body = await res.text();
        t.diagnostic(`${name}: ${res.status} after ${(performance.now() - started).toFixed(0)} ms`);
        return { res, body, released };
      };
      const answers = await Promise.all(
        nodes.map(async ({ url, admin }, n) => {
          const [waiting, health, lookup, notModified, metrics, readyz] = await Promise.all([
            Promise.all(
              Array.from({ length: WAITING }, () =>
                timed(`node ${n}: a lease of the locked key`, get(url, '/v1/sources', leased)),
              ),
            ),
            timed(`node ${n}: health`, get(url, '/v1/health')),
            timed(`node ${n}: lookup`, get(url, LOOKUP, unmetered)),
            timed(`node ${n}: 304`, get(url, LOOKUP, unmetered, { 'if-none-match': etag })),
            timed(`node ${n}: metrics`, fetch(`${admin}/metrics`)),
            timed(`node ${n}: readyz`, fetch(`${admin}/readyz`)),
          ]);
          return { waiting, health, lookup, notModified, metrics, readyz };
        }),
      );
      for (const { waiting, health, lookup, notModified, metrics, readyz } of answers) {
        for (const a of [...waiting, health, lookup, notModified, metrics, readyz])
          assert.equal(a.released, false, 'answered while the lock is held');
        assert.equal(health.res.status, 200, health.body);
        assert.equal(lookup.res.status, 200, lookup.body);
        assert.equal(notModified.res.status, 304);
        assert.equal(metrics.res.status, 200, metrics.body);
        assert.equal(
          readyz.res.status,
          200,
          `a lock held elsewhere is not a node that cannot serve: ${readyz.body}`,
        );
        for (const w of waiting) {
          assert.equal(w.res.status, 500, w.body);
          assert.equal(w.res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
          assert.equal(w.res.headers.get('retry-after'), String(Math.ceil(REQUEST_WAIT_MS / 1000)));
          const problem = JSON.parse(w.body) as { type: string; detail: string };
          assert.equal(problem.type, '/problems/internal');
          assert.match(
            problem.detail,
            /^The database did not answer within \d+ s .*retry after \d+ seconds\.$/,
          );
        }
      }
    } finally {
      released = true;
      await lock.release();
    }
    for (const { url } of nodes)
      assert.equal((await get(url, '/v1/sources', leased)).status, 200, 'answered once the lock is released');
  });
});
