/**
 * `serve` on PostgreSQL whose receipts table lives in a tablespace on a small tmpfs that fills up: a check that
 * cannot be written answers 500 with the server's cause (53100, "could not extend file") in the log, `/readyz`
 * says not ready naming it, and once space is back checks are recorded again and `/readyz` is ready, without a
 * restart. Mounting a tmpfs needs root (or CAP_SYS_ADMIN), and the tablespace a superuser: the suite skips,
 * saying so, where it cannot.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createKey, ingestSamples, serveWithAdmin, serviceEnv, type startCli } from '../support/cli.ts';
import { createTestDatabase, PG_ADMIN_URL, sqliteOnly, type TestDatabase } from '../support/database.ts';
import { requireService } from '../support/services.ts';
import { until } from '../support/until.ts';

const root = mkdtempSync(join(tmpdir(), 'recalls-pg-full-'));
const mounted = join(root, 'fs');
mkdirSync(mounted);
chmodSync(root, 0o755); // the server reaches the tablespace through it
// The server writes the tablespace: the tmpfs belongs to the user it runs as.
const owner = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
const mount =
  owner.status === 0
    ? spawnSync(
        'mount',
        ['-t', 'tmpfs', '-o', `size=8m,uid=${owner.stdout.trim()},mode=0700`, 'tmpfs', mounted],
        { encoding: 'utf8' },
      )
    : owner;
const skip =
  sqliteOnly('PostgreSQL whatever the engine') ||
  (mount.status === 0 ? false : `cannot mount a tmpfs for postgres here: ${(mount.stderr || '').trim()}`);
const TABLESPACE = `recalls_full_${randomBytes(4).toString('hex')}`;

async function asAdmin(sql: string, url = PG_ADMIN_URL): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Fills the file system of `path` with a file there, until it refuses (ENOSPC). */
function fill(path: string): void {
  const fd = openSync(path, 'w');
  const page = Buffer.alloc(8192);
  try {
    for (;;) writeSync(fd, page);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

describe('a PostgreSQL tablespace that fills up under serve', { skip, timeout: 240_000 }, () => {
  let db: TestDatabase | undefined;
  let serve: ReturnType<typeof startCli> | undefined;
  let url: string;
  let admin: string;
  let key: string;
  let n = 0;
  let ready = false;

  const check = () =>
    fetch(`${url}/v1/checks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ identifiers: [{ kind: 'lot', value: `FULL${++n}-${'X'.repeat(40)}` }] }),
    });
  const readyz = async () => {
    const res = await fetch(`${admin}/readyz`);
    return { status: res.status, body: (await res.json()) as { status: string; reason?: string } };
  };

  before(async (t) => {
    if (!(await requireService(t as never, 'PostgreSQL', PG_ADMIN_URL))) return;
    db = await createTestDatabase(root, 'postgres');
    const env = serviceEnv(db.url, root);
    await ingestSamples(env);
    await asAdmin(`CREATE TABLESPACE ${TABLESPACE} LOCATION '${mounted}'`);
    await asAdmin(`ALTER TABLE checks SET TABLESPACE ${TABLESPACE}`, db.url);
    key = await createKey(env, 'scale');
    ({ run: serve, url, admin } = await serveWithAdmin(env));
    ready = true;
  });
  after(async () => {
    serve?.child.kill('SIGKILL');
    await serve?.done;
    await db?.drop();
    await asAdmin(`DROP TABLESPACE IF EXISTS ${TABLESPACE}`).catch(() => {});
    spawnSync('umount', [mounted]);
    rmSync(root, { recursive: true, force: true });
  });

  test('checks fail naming the cause and /readyz is not ready; both recover once space is back', async (t) => {
    if (!ready) return t.skip('PostgreSQL not available');
    assert.equal((await check()).status, 201);
    assert.deepEqual((await readyz()).body, { status: 'ready' });

    const filler = join(mounted, 'filler');
    t.after(() => rmSync(filler, { force: true }));
    fill(filler);
    // The table's last page may still hold a receipt or more: check until one cannot be written.
    let failed: Response | undefined;
    for (let i = 0; i < 400 && failed === undefined; i++) {
      const res = await check();
      if (res.status !== 201) failed = res;
      else await res.arrayBuffer();
    }
    assert.ok(failed !== undefined, 'a check failed once the tablespace was full');
    assert.equal(failed.status, 500);
    assert.equal(((await failed.json()) as { type: string }).type, '/problems/internal');
    const notReady = await readyz();
    assert.equal(notReady.status, 503);
    assert.match(notReady.body.reason ?? '', /^writes fail: the disk is full \(53100: could not extend file/);
    await until(
      () => /could not extend file/.test(serve!.output()),
      () => `the log names the cause; it has: ${serve!.output()}`,
      { timeoutMs: 10_000, intervalMs: 50 },
    );

    rmSync(filler);
    const again = await check();
    assert.equal(again.status, 201, await again.clone().text());
    // not ready for STORAGE_FAILURE_MS after the last failed write, then ready: no restart
    await until(
      async () => (await readyz()).status === 200,
      () => 'ready again',
      { timeoutMs: 60_000, intervalMs: 250 },
    );
  });
});
