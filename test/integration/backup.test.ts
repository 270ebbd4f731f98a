/**
 * `recalls backup FILE` while `serve` answers lookups and writes receipts: both backup files pass SQLite's
 * integrity check, and a second `serve` on the backup answers as the original did, receipts and key included.
 * A copy that fails leaves nothing under FILE's names. And what it refuses: an existing FILE (unless --force),
 * a file of the live database, PostgreSQL.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { corpusPathOf } from '../../src/store/engines/sqlite-files.ts';
import { SQLite } from '../../src/store/engines/sqlite-driver.ts';
import {
  BIN,
  ROOT,
  createKey,
  ingestSamples,
  listeningUrl,
  runCli,
  serviceEnv,
  startCli,
} from '../support/cli.ts';
import { sqliteOnly } from '../support/database.ts';
import { until } from '../support/until.ts';

const LOOKUP = '/v1/identifiers/upc/012345678905';
/** The pause between two rounds of the request loop (a lookup and a check). */
const PACE_MS = 50;

describe('recalls backup', { skip: sqliteOnly('it copies SQLite files') }, () => {
  let dir: string;
  let env: Record<string, string>;
  let key: string;
  let url: string;
  let receipt: string;
  const runs: ReturnType<typeof startCli>[] = [];

  /** `serve` on `databaseUrl`; its address once it listens. */
  async function serve(databaseUrl: string): Promise<string> {
    const run = startCli(['serve'], { ...env, DATABASE_URL: databaseUrl, PORT: '0', LOG_LEVEL: 'info' });
    runs.push(run);
    return listeningUrl(run);
  }

  function request(base: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${base}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  /** A receipt of a check of the sample UPC; its id. */
  async function check(base: string, label: string): Promise<string> {
    const answer = await request(base, '/v1/checks', {
      label,
      identifiers: [{ kind: 'upc', value: '0 12345 67890 5' }],
    });
    assert.equal(answer.status, 201, await answer.clone().text());
    return ((await answer.json()) as { data: { check_id: string } }).data.check_id;
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'recalls-backup-'));
    env = serviceEnv(join(dir, 'live', 'recalls.db'), dir);
    await ingestSamples(env);
    key = await createKey(env, 'scale');
    url = await serve(env.DATABASE_URL!);
    receipt = await check(url, 'before the backup');
  });
  after(async () => {
    for (const run of runs) run.child.kill('SIGKILL');
    await Promise.all(runs.map((run) => run.done));
    rmSync(dir, { recursive: true, force: true });
  });

  test('a backup taken while serve answers and writes opens as the same service', async (t) => {
    // Lookups and checks (each a receipt written to the service file) until told to stop, paced so that the
    // service's WAL stays under SQLite's automatic checkpoint (1000 pages, ~8 a receipt) for a good while:
    // the receipts written before the backup are then in recalls.db-wal, not yet in recalls.db.
    let stop = false;
    const failures: string[] = [];
    const receipts: string[] = [];
    let answered = 0;
    const loop = (async () => {
      for (let i = 0; !stop; i++) {
        try {
          const lookup = await request(url, LOOKUP);
          if (lookup.status !== 200) failures.push(`lookup: ${lookup.status}`);
          await lookup.arrayBuffer();
          receipts.push(await check(url, `loop ${i}`));
          answered += 2;
          await delay(PACE_MS);
        } catch (error) {
          failures.push(String(error));
        }
      }
    })();
    await until(
      () => receipts.length >= 10 || failures.length > 0,
      () => `ten receipts written by the loop (${receipts.length})`,
      { timeoutMs: 30_000 },
    );
    const writtenBefore = receipts.length;
    const answeredBefore = answered;
    // What `cp recalls.db` would keep of them now: only what a checkpoint has moved out of the -wal file.
    const copied = join(dir, 'copied.db');
    copyFileSync(env.DATABASE_URL!, copied);
    const file = join(dir, 'backups', 'recalls.db');
    const backup = await runCli(['backup', file], env);
    const answeredDuring = answered - answeredBefore;
    stop = true;
    await loop;
    assert.equal(backup.code, 0, backup.stderr);
    assert.deepEqual(failures, [], 'every request of the loop was answered');
    assert.ok(answeredDuring > 0, 'the service answered while the backup ran');

    // What was written is named on stdout with its size, and nothing else is left in the folder.
    for (const path of [file, corpusPathOf(file)])
      assert.ok(backup.stdout.includes(`${path}\t${statSync(path).size} bytes`), backup.stdout);
    assert.deepEqual(readdirSync(join(dir, 'backups')).sort(), ['recalls.corpus.db', 'recalls.db']);
    for (const path of [file, corpusPathOf(file)]) {
      const raw = new SQLite(path, { readonly: true, fileMustExist: true });
      try {
        assert.equal(raw.pragma('integrity_check', { simple: true }), 'ok', path);
      } finally {
        raw.close();
      }
    }

    // A second service on the backup answers as the original, with the same key and receipts.
    const restored = await serve(file);
    for (const path of ['/v1/recalls?limit=5', LOOKUP, `/v1/checks/${receipt}`]) {
      const [was, is] = await Promise.all([request(url, path), request(restored, path)]);
      assert.equal(was.status, 200, path);
      assert.equal(is.status, 200, path);
      assert.equal(await is.text(), await was.text(), path);
    }
    const raw = new SQLite(copied, { readonly: true });
    const inCopy = receipts
      .slice(0, writtenBefore)
      .filter((id) => raw.prepare('SELECT 1 FROM checks WHERE check_id = ?').get(id) !== undefined).length;
    raw.close();
    t.diagnostic(
      `a plain copy of recalls.db holds ${inCopy} of the ${writtenBefore} receipts written before`,
    );
    // Every receipt written before the backup started is in it, as served by the original.
    for (const id of receipts.slice(0, writtenBefore)) {
      const [was, is] = await Promise.all([
        request(url, `/v1/checks/${id}`),
        request(restored, `/v1/checks/${id}`),
      ]);
      assert.equal(is.status, 200, `the receipt ${id}, written before the backup, is in it`);
      assert.equal(await is.text(), await was.text());
    }
  });

  test('a write to the corpus file while serve runs is in the backup, though only in the corpus WAL', async () => {
    // The corpus written now, with serve holding the file open: the write stays in recalls.corpus.db-wal
    // (no checkpoint: serve is still connected and the WAL is far below 1000 pages).
    const corpus = corpusPathOf(env.DATABASE_URL!);
    const mark = 'TEST RECORD written while serve runs';
    const writer = new SQLite(corpus, { fileMustExist: true });
    let id: string;
    try {
      writer.pragma('busy_timeout = 10000');
      id = writer.prepare('SELECT id FROM recalls ORDER BY id LIMIT 1').pluck().get() as string;
      writer.prepare('UPDATE recalls SET title = ? WHERE id = ?').run(mark, id);
    } finally {
      writer.close();
    }
    const titleIn = (path: string) => {
      const raw = new SQLite(path, { readonly: true, fileMustExist: true });
      try {
        return raw.prepare('SELECT title FROM recalls WHERE id = ?').pluck().get(id) as string;
      } finally {
        raw.close();
      }
    };
    // What `cp recalls.corpus.db` would keep: the title before the write (so a plain copy would miss it).
    const copied = join(dir, 'copied-corpus', 'recalls.corpus.db');
    mkdirSync(dirname(copied), { recursive: true });
    copyFileSync(corpus, copied);
    assert.notEqual(titleIn(copied), mark, 'the write is in the WAL, not yet in the corpus file');

    const file = join(dir, 'corpus-write', 'recalls.db');
    const backup = await runCli(['backup', file], env);
    assert.equal(backup.code, 0, backup.stderr);
    assert.equal(titleIn(corpusPathOf(file)), mark, 'the backup holds the write');
    const raw = new SQLite(corpusPathOf(file), { readonly: true, fileMustExist: true });
    try {
      assert.equal(raw.pragma('integrity_check', { simple: true }), 'ok');
    } finally {
      raw.close();
    }
  });

  test(
    'a backup that fails leaves nothing under FILE’s names',
    { skip: process.platform === 'win32' ? 'ulimit -f is a POSIX shell’s' : false },
    async () => {
      // A file size limit far below either file's size: the first copy fails with an I/O error.
      const folder = join(dir, 'failing');
      const file = join(folder, 'b.db');
      const run = spawn(
        '/bin/sh',
        ['-c', 'trap "" XFSZ; ulimit -f 16; exec "$0" "$@"', process.execPath, BIN, 'backup', file],
        { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      run.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const [code] = (await once(run, 'close')) as [number | null];
      assert.equal(code, 1, stderr);
      assert.match(stderr, /the backup failed, nothing was written under .*b\.db's names/);
      assert.deepEqual(readdirSync(folder), [], 'no file, temporary or not, is left');
    },
  );

  // Up to 119 s measured on a loaded machine (docs/development.md, test timeouts).
  test(
    'refuses an existing FILE unless --force, any file of the live database, and PostgreSQL',
    { timeout: 480_000 },
    async () => {
      const file = join(dir, 'refusals', 'b.db');
      const first = await runCli(['backup', file], env);
      assert.equal(first.code, 0, first.stderr);
      const stamps = () => [file, corpusPathOf(file)].map((p) => statSync(p).mtimeMs);
      const before = stamps();

      const again = await runCli(['backup', file], env);
      assert.equal(again.code, 2);
      assert.match(again.stderr, /b\.db exists \(--force replaces it\)/);
      // The corpus file alone is enough to refuse: it would be replaced.
      rmSync(file);
      const corpusOnly = await runCli(['backup', file], env);
      assert.equal(corpusOnly.code, 2);
      assert.match(corpusOnly.stderr, /b\.corpus\.db exists/);
      assert.ok(!existsSync(file), 'nothing written');

      const forced = await runCli(['backup', file, '--force'], env);
      assert.equal(forced.code, 0, forced.stderr);
      assert.ok(existsSync(file) && existsSync(corpusPathOf(file)));
      assert.notDeepEqual(stamps(), before, 'both files were replaced');

      const live = env.DATABASE_URL!;
      // The live file itself, its corpus file, and a FILE whose corpus file is the live corpus file.
      for (const target of [live, corpusPathOf(live), live.replace(/\.db$/, '')]) {
        const refused = await runCli(['backup', target, '--force'], env);
        assert.equal(refused.code, 2, target);
        assert.match(refused.stderr, /is a file of the live database/);
      }
      assert.deepEqual(
        readdirSync(join(dir, 'live')).filter((name) => name.includes('partial')),
        [],
      );

      const postgres = await runCli(['backup', join(dir, 'pg.db')], {
        ...env,
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/recalls',
      });
      assert.equal(postgres.code, 2);
      assert.match(postgres.stderr, /pg_dump -Fc/);
      assert.ok(!existsSync(join(dir, 'pg.db')));
    },
  );
});
