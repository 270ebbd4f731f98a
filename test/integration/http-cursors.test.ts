/**
 * Issue 11, C2 and V3: cursors are signed with a secret every node reads from the database and
 * carry no global counter; nothing a caller writes (a NUL in an id, a filter or a label, a cursor
 * position past a column's range) reaches the database as a 500.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Migrator } from 'kysely';
import { encodeCursor, filterFingerprint } from '../../src/domain/cursor.ts';
import { openStore } from '../../src/store/database.ts';
import { migrationProvider } from '../../src/store/migrations/index.ts';
import { createTestDatabase, openRawEngine } from '../support/database.ts';
import { draft, json, startService, type TestService } from '../support/service.ts';

const RECALL = 'us-fda-food.C-0001';

/** A cursor as anyone could mint one before cursors were signed: a public checksum. */
function unsignedCursor(endpoint: string, filters: Record<string, unknown>, position: unknown[]): string {
  const payload = Buffer.from(JSON.stringify([endpoint, filterFingerprint(filters), position])).toString(
    'base64url',
  );
  const sum = createHash('sha256').update(`recalls-cursor-v1\n${payload}`).digest('base64url').slice(0, 16);
  return `${payload}.${sum}`;
}

function decodedPosition(cursor: string): unknown[] {
  const [payload] = cursor.split('.') as [string];
  return (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[][])[2]!;
}

async function problem(r: Response): Promise<{ type: string; parameter?: string; status: number }> {
  assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
  return json(r);
}

describe('cursors are signed and carry no global counter (C2)', () => {
  let s: TestService;
  let key: string;
  before(async () => {
    s = await startService();
    key = await s.key();
    await s.seed(
      Array.from({ length: 5 }, (_, i) => draft(`C-000${i + 1}`, { published_date: `2024-01-1${i}` })),
    );
  });
  after(() => s.close());

  test('a cursor minted without the secret, or with another secret, is 400 invalid-cursor', async () => {
    const minted = [
      unsignedCursor('recalls', {}, ['2099-01-01', 'zzz']),
      unsignedCursor('revisions', { id: RECALL }, [0]),
      encodeCursor(randomBytes(32), 'recalls', filterFingerprint({}), ['2099-01-01', 'zzz']),
    ];
    for (const [path, cursor] of [
      ['/v1/recalls', minted[0]],
      [`/v1/recalls/${RECALL}/revisions`, minted[1]],
      ['/v1/recalls', minted[2]],
    ] as const) {
      const r = await s.request(`${path}?cursor=${encodeURIComponent(cursor!)}`, { key });
      assert.equal(r.status, 400, path);
      const body = await problem(r);
      assert.equal(body.type, '/problems/invalid-cursor');
      assert.equal(body.parameter, 'cursor');
    }
    // The service's own cursors still walk.
    const first = await json(await s.request('/v1/recalls?limit=2', { key }));
    const next = await s.request(`/v1/recalls?limit=2&cursor=${encodeURIComponent(first.meta.next_cursor)}`, {
      key,
    });
    assert.equal(next.status, 200);
  });

  test('a revision position past the integer column (2^31) is 400, signed or not', async () => {
    const revisions = `/v1/recalls/${RECALL}/revisions`;
    const signed = (endpoint: string, filters: Record<string, unknown>, position: unknown[]) =>
      encodeCursor(s.store.cursorSecret, endpoint, filterFingerprint(filters), position as never);
    for (const [path, cursor] of [
      [revisions, unsignedCursor('revisions', { id: RECALL }, [2 ** 31])],
      [revisions, signed('revisions', { id: RECALL }, [2 ** 31])],
      [revisions, signed('revisions', { id: RECALL }, [-1])],
      ['/v1/recalls', signed('recalls', {}, ['2024-01-01', 'a\u0000'])],
    ] as const) {
      const r = await s.request(`${path}?cursor=${encodeURIComponent(cursor)}`, { key });
      assert.equal(r.status, 400, cursor);
      assert.equal((await problem(r)).type, '/problems/invalid-cursor');
    }
  });

  test('the checks cursor names a receipt of the key, not the global receipt sequence', async () => {
    const other = await s.key();
    const body = { identifiers: [{ kind: 'upc', value: '012345678905' }] };
    const mine: string[] = [];
    for (let i = 0; i < 3; i++) {
      mine.push((await json(await s.request('/v1/checks', { key, body }))).data.check_id);
      await s.request('/v1/checks', { key: other, body });
    }
    const page1 = await json(await s.request('/v1/checks?limit=2', { key }));
    assert.deepEqual(
      page1.data.map((r: { check_id: string }) => r.check_id),
      [mine[2], mine[1]],
    );
    const cursor: string = page1.meta.next_cursor;
    const position = decodedPosition(cursor);
    assert.ok(
      position.every((p) => typeof p !== 'number'),
      `no counter in ${JSON.stringify(position)}`,
    );
    const page2 = await json(
      await s.request(`/v1/checks?limit=2&cursor=${encodeURIComponent(cursor)}`, { key }),
    );
    assert.deepEqual(
      page2.data.map((r: { check_id: string }) => r.check_id),
      [mine[0]],
    );
    assert.equal(page2.meta.next_cursor, null);
    // Another key cannot use it.
    const foreign = await s.request(`/v1/checks?cursor=${encodeURIComponent(cursor)}`, { key: other });
    assert.equal(foreign.status, 400);
    assert.equal((await problem(foreign)).type, '/problems/invalid-cursor');
    // An old-style position (a sequence number) is refused.
    const seq = unsignedCursor('checks', { key: 'x' }, [5]);
    const old = await s.request(`/v1/checks?cursor=${encodeURIComponent(seq)}`, { key });
    assert.equal(old.status, 400);
  });
});

describe('the cursor secret is the database’s (C2)', () => {
  test('every store on a database reads the same 32-byte secret; a database migrated before gets one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recalls-secret-'));
    const db = await createTestDatabase(dir);
    try {
      const a = await openStore(db.database);
      const b = await openStore(db.database);
      assert.equal(a.cursorSecret.length, 32);
      assert.deepEqual(a.cursorSecret, b.cursorSecret, 'two nodes, one secret');
      await a.close();
      await b.close();
      const again = await openStore(db.database);
      const first = again.cursorSecret;
      await again.close();
      assert.deepEqual(first, a.cursorSecret, 'kept across restarts');
      // A database as it was before the secret's migration (migrated up to 0003 only).
      const older = await createTestDatabase(mkdtempSync(join(tmpdir(), 'recalls-secret-')));
      const raw = openRawEngine(older.database);
      const migrator = new Migrator({ db: raw.db, provider: migrationProvider(raw) });
      assert.equal((await migrator.migrateTo('0003-idempotency-unique')).error, undefined);
      await raw.close();
      const migrated = await openStore(older.database);
      assert.equal(migrated.cursorSecret.length, 32);
      assert.notDeepEqual(migrated.cursorSecret, first, 'each database its own');
      await migrated.close();
      const reopened = await openStore(older.database);
      assert.deepEqual(
        reopened.cursorSecret,
        migrated.cursorSecret,
        'the migrated database keeps its secret',
      );
      await reopened.close();
      await older.drop();
    } finally {
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('control characters never reach the database (V3)', () => {
  let s: TestService;
  let key: string;
  before(async () => {
    s = await startService();
    key = await s.key();
    await s.seed([draft('C-0001')]);
  });
  after(() => s.close());

  test('a NUL or another control character in a filter or a path id is 400 naming it', async () => {
    const cases: [string, string][] = [
      ['/v1/recalls?jurisdiction=US%00', 'jurisdiction'],
      ['/v1/recalls?jurisdiction=US%01', 'jurisdiction'],
      ['/v1/recalls?jurisdiction=%1F', 'jurisdiction'],
      ['/v1/recalls?source=us-fda-food%00', 'source'],
      ['/v1/recalls?cursor=%00', 'cursor'],
      ['/v1/recalls/abc%00', 'id'],
      [`/v1/recalls/${RECALL}%00`, 'id'],
      [`/v1/recalls/${RECALL}%00/revisions`, 'id'],
      ['/v1/recalls/a%0Ab/revisions', 'id'],
      ['/v1/identifiers/lot/AB%00C', 'value'],
      ['/v1/identifiers/upc%00/012345678905', 'kind'],
      ['/v1/checks/chk_%00', 'id'],
    ];
    for (const [path, parameter] of cases) {
      const r = await s.request(path, { key });
      assert.equal(r.status, 400, path);
      const body = await problem(r);
      assert.equal(body.type, '/problems/invalid-parameter', path);
      assert.equal(body.parameter, parameter, path);
    }
    assert.equal((await s.request(`/v1/recalls/${RECALL}`, { key })).status, 200);
  });

  test('a check label with a NUL is 400 naming label', async () => {
    const r = await s.request('/v1/checks', {
      key,
      body: { label: 'a\u0000b', identifiers: [{ kind: 'upc', value: '012345678905' }] },
    });
    assert.equal(r.status, 400);
    const body = await problem(r);
    assert.equal(body.type, '/problems/invalid-parameter');
    assert.equal(body.parameter, 'label');
    const ok = await s.request('/v1/checks', {
      key,
      body: { label: 'tab\there', identifiers: [{ kind: 'upc', value: '012345678905' }] },
    });
    assert.equal(ok.status, 201, 'other text in a label is the caller’s own');
  });
});
