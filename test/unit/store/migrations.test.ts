/**
 * Migration 0003 (one receipt per use of an Idempotency-Key) on a database that already holds
 * duplicate receipts of one key: it applies, keeps them, and the constraint holds from then on.
 * Migration 0005 renders the served JSON of the recalls stored before it.
 * On the test engine (RECALLS_TEST_ENGINE=postgres for PostgreSQL).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Migrator } from 'kysely';
import { canonicalContent, contentHash } from '../../../src/domain/diff.ts';
import { recallId, type RecallDraft } from '../../../src/domain/recall.ts';
import { migrate } from '../../../src/store/database.ts';
import { recallColumns } from '../../../src/store/recall-rows.ts';
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

    // the two after 0002, first; later migrations follow
    assert.deepEqual((await migrate(engine)).slice(0, 2), ['0003-idempotency-unique', '0004-cursor-secret']);
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

test('0005 renders the served JSON of every recall stored before it, as ingestion renders it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'recalls-migrate-'));
  const db = await createTestDatabase(dir);
  const engine = openRawEngine(db.database);
  try {
    const migrator = new Migrator({ db: engine.db, provider: migrationProvider(engine) });
    assert.equal((await migrator.migrateTo('0004-cursor-secret')).error, undefined);
    await engine.db
      .insertInto('sources')
      .values({ id: 'src', agency: 'A', jurisdiction: 'US', enabled: 1, consecutive_failures: 0 })
      .execute();
    // More than one batch of the migration, text JSON escapes, identifiers in need of ordering.
    const expected = new Map<string, { fields: string; identifiers: string }>();
    for (let n = 0; n < 1203; n++) {
      const draft: RecallDraft = {
        recordId: `R-${n}`,
        title: n % 2 === 0 ? `Title "${n}" \\ \n \u2028 😀` : null,
        summary: null,
        hazard: { category: null, text: 'text' },
        product: { category: 'food', brands: [`b${n}`], models: [] },
        severity: 'low',
        source_classification: null,
        remedy: null,
        recall_date: null,
        published_date: '2024-01-01',
        countries: ['US'],
        url: null,
        identifiers: [
          { kind: 'lot', value: '\u{1F600}', normalized: `L${n}`, confidence: 'inferred' },
          { kind: 'lot', value: '\uFF21', normalized: `L${n}`, confidence: 'inferred' },
        ],
      };
      const id = recallId('src', draft.recordId);
      const content = canonicalContent(draft);
      const { rendered_fields, rendered_identifiers, ...columns } = recallColumns(
        id,
        { sourceId: 'src', jurisdiction: 'US' },
        draft,
        content,
        contentHash(content),
      );
      expected.set(id, { fields: rendered_fields, identifiers: rendered_identifiers });
      await engine.db
        .insertInto('recalls')
        .values({ ...columns, revision: 1, first_seen_at: 'then', last_seen_at: 'then' } as never)
        .execute();
    }
    // 0005 first; later migrations follow it
    assert.deepEqual((await migrate(engine))[0], '0005-rendered-recalls');
    const rows = await engine.db
      .selectFrom('recalls')
      .select(['id', 'rendered_fields', 'rendered_identifiers'])
      .execute();
    assert.equal(rows.length, expected.size);
    for (const r of rows)
      assert.deepEqual(
        { fields: r.rendered_fields, identifiers: r.rendered_identifiers },
        expected.get(r.id),
      );
  } finally {
    await engine.close();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
});
