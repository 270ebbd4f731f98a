/**
 * `serve` on SQLite files in a small tmpfs that fills up: the check that cannot be written fails with its real
 * cause in the log (not "cannot rollback - no transaction is active"), `/readyz` says not ready naming it while
 * writes fail, and once space is back checks are recorded again and `/readyz` is ready, without a restart. A
 * WAL file left at its size by another process's failed write is given back when the disk is full.
 * Mounting a tmpfs needs root (or CAP_SYS_ADMIN): the suite skips, saying so, where it cannot.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SQLite } from '../../src/store/engines/sqlite-driver.ts';
import {
  ROOT,
  createKey,
  ingestSamples,
  runCli,
  serveWithAdmin,
  serviceEnv,
  type startCli,
} from '../support/cli.ts';
import { sqliteOnly } from '../support/database.ts';
import { fill, fullThenFreed, smallDisk } from '../support/small-disk.ts';

const disk = smallDisk('storage', 'size=24m');
const mounted = disk.path;
const skip = sqliteOnly('SQLite files in a tmpfs') || disk.skip;

describe('a disk that fills up under serve', { skip, timeout: 240_000 }, () => {
  let serve: ReturnType<typeof startCli>;
  let url: string;
  let admin: string;
  let key: string;
  let n = 0;

  const check = () =>
    fetch(`${url}/v1/checks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ identifiers: [{ kind: 'lot', value: `FULL${++n}` }] }),
    });
  const readyz = async () => {
    const res = await fetch(`${admin}/readyz`);
    return { status: res.status, body: (await res.json()) as { status: string; reason?: string } };
  };

  before(async () => {
    const env = serviceEnv(join(mounted, 'recalls.db'), disk.root);
    await ingestSamples(env);
    key = await createKey(env, 'scale');
    ({ run: serve, url, admin } = await serveWithAdmin(env));
  });
  after(async () => {
    serve?.child.kill('SIGKILL');
    await serve?.done;
    disk.remove();
  });

  test('checks fail naming the cause and /readyz is not ready; both recover once space is back', async () => {
    await fullThenFreed(
      { check, readyz, output: () => serve.output() },
      {
        path: mounted,
        tries: 50,
        // SQLite says SQLITE_FULL, or an I/O error when it is the shared-memory or WAL file that cannot grow
        reason: /^writes fail: (?:the disk is full \(SQLITE_FULL|an I\/O error \(SQLITE_IOERR)/,
        logged: /database or disk is full|disk I\/O error/,
      },
    );
    assert.doesNotMatch(serve.output(), /cannot rollback/, 'not a failed rollback in its place');
  });

  test('a WAL left at its size by another process’s failed write is given back when the disk is full', async () => {
    // What an ingest stopped midway leaves: the pages of its rolled-back transaction in the corpus WAL,
    // which stays at that size while serve keeps the file open.
    const corpus = join(mounted, 'recalls.corpus.db');
    const writer = new SQLite(corpus, { fileMustExist: true });
    try {
      writer.pragma('cache_size = 50'); // spill to the WAL long before the end
      writer.exec('BEGIN');
      writer.exec('CREATE TABLE test_spill (b BLOB)');
      const insert = writer.prepare('INSERT INTO test_spill VALUES (randomblob(65536))');
      for (let i = 0; i < 160; i++) insert.run(); // 10 MiB
      writer.exec('ROLLBACK');
    } finally {
      writer.close();
    }
    const walSize = () => statSync(`${corpus}-wal`).size;
    assert.ok(walSize() > 8 * 1024 * 1024, `the corpus WAL holds the rolled-back pages (${walSize()} bytes)`);
    const filler = join(mounted, 'filler');
    fill(filler);
    try {
      const res = await check();
      assert.equal(res.status, 201, await res.clone().text());
      assert.equal(walSize(), 0, 'the WAL was given back');
      assert.deepEqual((await readyz()).body, { status: 'ready' });
    } finally {
      rmSync(filler, { force: true });
    }
  });
});

describe('a disk that fills up under an ingest', { skip, timeout: 240_000 }, () => {
  let small: ReturnType<typeof smallDisk>;
  let base: string;
  let fsDir: string;
  let mirror: string;
  let env: Record<string, string>;

  before(() => {
    small = smallDisk('ingest-full', 'size=16m');
    assert.equal(small.skip, false, String(small.skip));
    ({ root: base, path: fsDir } = small);
    mirror = join(base, 'mirror');
    // The project's fictional food sample, its records copied 3000 times (a few MB stored).
    const sample = JSON.parse(readFileSync(join(ROOT, 'samples', 'us-fda-food', 'page-1.json'), 'utf8')) as {
      meta: { results: { limit: number; total: number } };
      results: { recall_number: string; product_description: string }[];
    };
    const results = Array.from({ length: 3000 }, (_, i) => {
      const r = sample.results[i % sample.results.length]!;
      return {
        ...r,
        recall_number: `F-${String(9000 + (i % 1000)).padStart(4, '0')}-${2097 + Math.floor(i / 1000)}`,
        product_description: `${r.product_description} ${'SAMPLE DATA, not a real recall. '.repeat(30)}`,
      };
    });
    mkdirSync(join(mirror, 'us-fda-food'), { recursive: true });
    writeFileSync(
      join(mirror, 'us-fda-food', 'page-1.json'),
      JSON.stringify({
        ...sample,
        meta: { ...sample.meta, results: { skip: 0, limit: 3000, total: 3000 } },
        results,
      }),
    );
    env = { DATABASE_URL: join(fsDir, 'recalls.db'), RECALLS_ARCHIVE_DIR: join(base, 'archive') };
  });
  after(() => small?.remove());

  test('the source fails naming the cause in one line, no stack, and the next run with space goes on', async () => {
    assert.equal((await runCli(['migrate'], env)).code, 0);
    const filler = join(fsDir, 'filler');
    fill(filler);
    // A megabyte back: enough to open the files and take the lease, not to write 3000 records.
    truncateSync(filler, statSync(filler).size - 1024 * 1024);
    const full = await runCli(['ingest', '--from', mirror, '--source', 'us-fda-food'], env);
    assert.equal(full.code, 1, full.stdout + full.stderr);
    assert.match(full.stdout, /^us-fda-food: failed: database or disk is full$/m, full.stdout);
    assert.doesNotMatch(full.stderr, /^\s+at /m, 'no stack trace');
    rmSync(filler);
    const again = await runCli(['ingest', '--from', mirror, '--source', 'us-fda-food'], env);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /^us-fda-food: ok, 3000 records/m, again.stdout);
  });
});
