import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { openStore } from '../../src/store/database.ts';
import { LISTENER_NAME } from '../../src/store/engines/postgres-watch.ts';
import { createTestDatabase, PG_ADMIN_URL, sqliteOnly } from '../support/database.ts';
import { requireService } from '../support/services.ts';
import { until } from '../support/until.ts';

const skip = sqliteOnly('always on PostgreSQL');

test('the store survives PostgreSQL terminating its idle connections', { skip }, async (t) => {
  if (!(await requireService(t, 'PostgreSQL', PG_ADMIN_URL))) return;
  const dir = mkdtempSync(join(tmpdir(), 'recalls-pg-'));
  const db = await createTestDatabase(dir, 'postgres');
  const store = await openStore(db.database);
  try {
    assert.equal(typeof (await store.corpusVersion()), 'number');
    const name = new URL(db.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      // The store's pool connections (the LISTEN connection comes back by itself: store-state.test.ts), and only
      // those: a connection the store opens again meanwhile (a state read after the listener reconnects) is not
      // one the server terminated.
      const { rows } = await admin.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name <> $2',
        [name, LISTENER_NAME],
      );
      const pids = rows.map((r) => r.pid);
      assert.ok(pids.length > 0, 'the store holds a connection');
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
      let left = pids.length;
      await until(
        async () => {
          const alive = await admin.query<{ n: string }>(
            'SELECT count(*) n FROM pg_stat_activity WHERE pid = ANY($1)',
            [pids],
          );
          left = Number(alive.rows[0]!.n);
          return left === 0;
        },
        () => `the store's ${left} terminated connections to end`,
      );
    } finally {
      await admin.end();
    }
    assert.equal(typeof (await store.corpusVersion()), 'number', 'the next query reconnects');
  } finally {
    await store.close();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
});
