/**
 * `serve` on PostgreSQL whose receipts table lives in a tablespace on a small tmpfs that fills up: a check that
 * cannot be written answers 500 with the server's cause (53100, "could not extend file") in the log, `/readyz`
 * says not ready naming it, and once space is back checks are recorded again and `/readyz` is ready, without a
 * restart. Mounting a tmpfs needs root (or CAP_SYS_ADMIN), and the tablespace a superuser: the suite skips,
 * saying so, where it cannot.
 */
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createKey, ingestSamples, serveWithAdmin, serviceEnv, type startCli } from '../support/cli.ts';
import { createTestDatabase, PG_ADMIN_URL, sqliteOnly, type TestDatabase } from '../support/database.ts';
import { requireService } from '../support/services.ts';
import { fullThenFreed, smallDisk } from '../support/small-disk.ts';

// The server writes the tablespace: the tmpfs belongs to the user it runs as, on this machine.
const owner = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
const disk =
  owner.status === 0 ? smallDisk('pg-full', `size=8m,uid=${owner.stdout.trim()},mode=0700`) : undefined;
if (disk !== undefined) chmodSync(disk.root, 0o755); // the server reaches the tablespace through it
const mounted = disk?.path ?? '';
const skip =
  sqliteOnly('PostgreSQL whatever the engine') || (disk === undefined ? 'no postgres user here' : disk.skip);
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
    db = await createTestDatabase(disk!.root, 'postgres');
    const env = serviceEnv(db.url, disk!.root);
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
    disk?.remove();
  });

  test('checks fail naming the cause and /readyz is not ready; both recover once space is back', async (t) => {
    if (!ready) return t.skip('PostgreSQL not available');
    // The table's last page may still hold a receipt or more.
    await fullThenFreed(
      { check, readyz, output: () => serve!.output() },
      {
        path: mounted,
        tries: 400,
        reason: /^writes fail: the disk is full \(53100: could not extend file/,
        logged: /could not extend file/,
      },
    );
  });
});
