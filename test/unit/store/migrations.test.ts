/**
 * Migration 0003 (one receipt per use of an Idempotency-Key) on a database that already holds
 * duplicate receipts of one key: it applies, keeps them, and the constraint holds from then on.
 * On the test engine (RECALLS_TEST_ENGINE=postgres for PostgreSQL).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Migrator } from 'kysely';
import { migrate } from '../../../src/store/database.ts';
import { migrationProvider } from '../../../src/store/migrations/index.ts';
import { createTestDatabase, openRawEngine } from '../../support/database.ts';

const receipt = (checkId: string, generation?: number) => ({
  check_id: checkId,
  key_id: 'key_1',
  label: null,
  performed_at: new Date().toISOString(),
  submitted_count: 0,
  submitted_digest: 'd',
  rejected: '[]',
  match_count: 0,
  result_digest: 'r',
  corpus_as_of: null,
  corpus_size: 0,
  matches: '[]',
  idempotency_key: 'retry-me',
  request_hash: 'h',
  ...(generation === undefined ? {} : { idempotency_generation: generation }),
});

test('0003 applies over duplicate receipts of one Idempotency-Key, keeps them, then refuses another of one use', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'recalls-migrate-'));
  const db = await createTestDatabase(dir);
  const engine = openRawEngine(db.database);
  try {
    const migrator = new Migrator({ db: engine.db, provider: migrationProvider(engine) });
    const { error } = await migrator.migrateTo('0002-set-aside');
    assert.equal(error, undefined);
    await engine.db
      .insertInto('api_keys')
      .values({
        id: 'key_1',
        prefix: 'p',
        key_hash: 'h',
        name: null,
        plan: 'free',
        created_at: 'now',
        revoked_at: null,
      })
      .execute();
    // written before the constraint existed, as concurrent requests did
    for (const id of ['chk_a', 'chk_b']) await engine.db.insertInto('checks').values(receipt(id)).execute();

    assert.deepEqual(await migrate(engine), ['0003-idempotency-unique', '0004-cursor-secret']);
    const kept = await engine.db
      .selectFrom('checks')
      .select(['check_id', 'idempotency_generation'])
      .orderBy('seq')
      .execute();
    assert.deepEqual(kept, [
      { check_id: 'chk_a', idempotency_generation: null },
      { check_id: 'chk_b', idempotency_generation: null },
    ]);
    await engine.db.insertInto('checks').values(receipt('chk_c', 1)).execute();
    await assert.rejects(
      engine.db.insertInto('checks').values(receipt('chk_d', 1)).execute(),
      /unique|UNIQUE/,
    );
    await engine.db.insertInto('checks').values(receipt('chk_e', 2)).execute();
  } finally {
    await engine.close();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
});
