/**
 * SQLite files on a file system that has become read-only (a volume mounted `ro`, a restored backup on the wrong
 * mount): `ingest`, `migrate` and `serve` each stop with one line naming the read-only folder and status 1,
 * leave nothing behind (a new database's folder is not made either), and once the folder is writable again the
 * next ingest goes on (no lock was left).
 * A file system with files open for writing cannot be remounted read-only (the kernel answers EBUSY), so a
 * running `serve` never meets it; the disk-full suite covers writes failing under a running node.
 * Mounting a tmpfs needs root (or CAP_SYS_ADMIN): the suite skips, saying so, where it cannot.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ingestSamples, runCli } from '../support/cli.ts';
import { sqliteOnly } from '../support/database.ts';
import { smallDisk } from '../support/small-disk.ts';

const disk = smallDisk('read-only', 'size=24m');
const mounted = disk.path;
const skip = sqliteOnly('SQLite files in a tmpfs') || disk.skip;

const env = {
  DATABASE_URL: join(mounted, 'recalls.db'),
  RECALLS_ARCHIVE_DIR: join(disk.root, 'archive'),
  PORT: '0',
};

function remount(mode: 'ro' | 'rw'): void {
  const done = spawnSync('mount', ['-o', `remount,${mode}`, mounted], { encoding: 'utf8' });
  assert.equal(done.status, 0, done.stderr);
}

describe('SQLite files on a read-only file system', { skip, timeout: 120_000 }, () => {
  before(async () => {
    await ingestSamples(env);
    remount('ro');
  });
  after(() => disk.remove());

  for (const args of [['ingest', '--from', 'samples'], ['migrate'], ['serve']]) {
    test(`${args[0]} stops with one line naming the read-only folder, status 1`, async () => {
      const run = await runCli(args, env);
      assert.equal(run.code, 1, run.stderr);
      const lines = run.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `one line, no stack:\n${run.stderr}`);
      assert.match(lines[0]!, /^error: cannot open .*recalls\.db .* as SQLite databases: /);
      assert.ok(lines[0]!.includes(`${mounted} is on a read-only file system`), lines[0]);
    });
  }

  test('a new database in a folder not yet made there stops with one line naming the read-only folder', async () => {
    const run = await runCli(['migrate'], { ...env, DATABASE_URL: join(mounted, 'new', 'recalls.db') });
    assert.equal(run.code, 1, run.stderr);
    assert.equal(
      run.stderr,
      `error: cannot make the folder ${join(mounted, 'new')} for the database: ${mounted} is on a read-only file system\n`,
    );
  });

  test('once writable again the next ingest goes on: no lock or file was left behind', async () => {
    assert.deepEqual(readdirSync(mounted).sort(), ['recalls.corpus.db', 'recalls.db']);
    remount('rw');
    await ingestSamples(env);
  });
});
