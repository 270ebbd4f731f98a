/**
 * The SQLite layout in two files (engines/sqlite-files.ts): a database made before the split, in one file,
 * has its corpus tables moved to the corpus file on its next open, rows, indexes and foreign keys intact; and
 * a move interrupted between the two files' commits (either one committed alone) is finished on the next open.
 * A pair with one file missing, a folder or a file that is not SQLite is refused, and nothing is changed. Processes
 * opening a new pair together migrate it once.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { after, describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { Migrator } from 'kysely';
import { lookupKeys } from '../../src/domain/identifiers/match-keys.ts';
import { openStore } from '../../src/store/database.ts';
import { openSqlite } from '../../src/store/engines/sqlite.ts';
import { CORPUS_TABLES, corpusPathOf } from '../../src/store/engines/sqlite-files.ts';
import { SQLite, SQLITE_DRIVER } from '../../src/store/engines/sqlite-driver.ts';
import { MIGRATION_NAMES, migrationProvider } from '../../src/store/migrations/index.ts';
import { runCli } from '../support/cli.ts';
import { sqliteOnly } from '../support/database.ts';
import { draft } from '../support/service.ts';

const dir = mkdtempSync(join(tmpdir(), 'recalls-files-'));

/** A database as the release before the split left it: migrations up to 0007, everything in one file. */
async function oneFileDatabase(name: string): Promise<{ path: string; key: string }> {
  const path = join(dir, `${name}.db`);
  const engine = openSqlite(path);
  const migrator = new Migrator({ db: engine.db, provider: migrationProvider(engine) });
  const { error } = await migrator.migrateTo('0007-quota-leases');
  if (error !== undefined) throw error;
  await engine.close();
  // Rows written the way that release wrote them: straight into the one file.
  const raw = new SQLite(path);
  raw.exec(`INSERT INTO sources (id, agency, jurisdiction, enabled, consecutive_failures, set_aside)
            VALUES ('us-fda-food', 'U.S. Food and Drug Administration', 'US', 1, 0, 0)`);
  raw
    .prepare(
      `INSERT INTO recalls (id, source_id, record_id, jurisdiction, brands, models, sort_date, countries, revision,
         content_hash, content, first_seen_at, last_seen_at) VALUES (?, 'us-fda-food', ?, 'US', '[]', '[]', ?, '[]', 1,
         'h', '{}', '2026-01-01', '2026-01-01')`,
    )
    .run('us-fda-food.F-1-2026', 'F-1-2026', '2026-01-01');
  raw.exec(`INSERT INTO identifiers (recall_id, kind, value, normalized, confidence, match_key, product_key)
            VALUES ('us-fda-food.F-1-2026', 'lot', '4242', '4242', 'inferred', 'lot:4242', NULL)`);
  raw.exec(`UPDATE corpus_state SET version = 7`);
  raw.close();
  const store = await openStoreAt0007(path);
  return { path, key: store };
}

/** The one-file database brought to the latest migration without the move, as the move's first step finds it. */
async function migratedInOneFile(name: string): Promise<string> {
  const { path } = await oneFileDatabase(name);
  const engine = openSqlite(path);
  const { error } = await new Migrator({
    db: engine.db,
    provider: migrationProvider(engine),
  }).migrateToLatest();
  await engine.close();
  if (error !== undefined) throw error;
  return path;
}

/** Issues a key on the one-file database with plain SQL (keys_version moves by the 0006 trigger). */
async function openStoreAt0007(path: string): Promise<string> {
  const raw = new SQLite(path);
  raw.exec(`INSERT INTO api_keys (id, prefix, key_hash, name, plan, created_at, revoked_at)
            VALUES ('key_old', 'rk_live_x', 'hash', NULL, 'free', '2026-01-01', NULL)`);
  const version = raw.prepare('SELECT keys_version FROM corpus_state').pluck().get() as number;
  raw.close();
  assert.equal(version, 1, 'the 0006 trigger moved the keys version');
  return 'key_old';
}

function tablesOf(path: string): string[] {
  const raw = new SQLite(path, { readonly: true });
  try {
    return raw
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
      .pluck()
      .all() as string[];
  } finally {
    raw.close();
  }
}

async function assertMoved(path: string): Promise<void> {
  const store = await openStore({ engine: 'sqlite', path });
  try {
    assert.equal(await store.corpusVersion(), 7, 'the corpus version came along');
    const found = await store.identifiers.lookup(lookupKeys('lot', '4242'), 10);
    assert.equal(found.rows.length, 1, 'the recall is found by its identifier');
    assert.equal((await store.keys.list()).length, 1);
  } finally {
    await store.close();
  }
  const main = tablesOf(path);
  const corpus = tablesOf(corpusPathOf(path));
  for (const table of CORPUS_TABLES) {
    assert.ok(corpus.includes(table), `${table} is in the corpus file`);
    assert.ok(!main.some((t) => t.startsWith(table)), `${table} has left the service file`);
  }
  assert.ok(main.includes('api_keys') && main.includes('keys_state') && !corpus.includes('api_keys'));
  const raw = new SQLite(corpusPathOf(path), { readonly: true });
  try {
    assert.equal(raw.pragma('integrity_check', { simple: true }), 'ok');
    assert.deepEqual(raw.pragma('foreign_key_check'), []);
    const fk = raw
      .prepare(`SELECT sql FROM sqlite_master WHERE name = 'identifiers'`)
      .pluck()
      .get() as string;
    assert.match(fk, /references "recalls"/);
    const indexes = raw
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`)
      .pluck()
      .all();
    assert.ok(indexes.includes('identifiers_by_match_key'), 'indexes came along');
  } finally {
    raw.close();
  }
}

/** A worker thread running test/support/migrate-worker.ts (a worker does not get the test's TypeScript loader). */
const WORKER = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(
  new URL('../support/migrate-worker.ts', import.meta.url).href,
)}); })`;

describe('SQLite: the corpus in a file of its own', { skip: sqliteOnly('the SQLite layout') }, () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a fresh database has the corpus tables in the corpus file', async () => {
    const path = join(dir, 'fresh.db');
    const store = await openStore({ engine: 'sqlite', path });
    await store.sources.register([{ id: 'us-fda-food', agency: 'FDA', jurisdiction: 'US' }]);
    await store.ingest.apply({
      sourceId: 'us-fda-food',
      jurisdiction: 'US',
      drafts: [draft('F-2-2026')],
      dataAsOf: '2026-06-17',
      observedAt: new Date().toISOString(),
    });
    await store.close();
    assert.ok(tablesOf(corpusPathOf(path)).includes('recalls'));
    assert.ok(!tablesOf(path).includes('recalls'));
  });

  test('stores opened together on a new database all open: the migrations run once', async () => {
    // Worker threads that open the same new pair at one moment, ROUNDS times (without a lock, most rounds
    // failed with "table already exists", "duplicate column" or "no such table: corpus.sources").
    const [ROUNDS, TOGETHER] = [3, 4];
    for (let round = 1; round <= ROUNDS; round++) {
      const path = join(dir, `together-${round}.db`);
      const ready = new Int32Array(new SharedArrayBuffer(4));
      const outcomes = await Promise.all(
        Array.from({ length: TOGETHER }, async () => {
          const worker = new Worker(WORKER, { eval: true, workerData: { path, ready, together: TOGETHER } });
          const exited = once(worker, 'exit');
          const [outcome] = (await once(worker, 'message')) as [{ applied?: number; error?: string }];
          await exited;
          return outcome;
        }),
      );
      const errors = outcomes.flatMap((o) => (o.error === undefined ? [] : [o.error]));
      assert.deepEqual(errors, [], `round ${round}`);
      assert.deepEqual(
        outcomes.map((o) => o.applied).sort(),
        [0, 0, 0, MIGRATION_NAMES.length].slice(4 - TOGETHER),
        `round ${round}: one applied them, the others found them applied`,
      );
      assert.ok(tablesOf(corpusPathOf(path)).includes('recalls'));
      assert.ok(!tablesOf(path).includes('recalls'));
    }
  });

  test('a new file whose write lock another process holds is switched to WAL once the lock is let go', async () => {
    // SQLite answers a switch to WAL with SQLITE_BUSY at once, without its busy timeout, while another
    // connection holds the new file's write lock: two processes opening one new database together met it.
    const path = join(dir, 'held.db');
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require(${JSON.stringify(createRequire(import.meta.url).resolve(SQLITE_DRIVER))}))(${JSON.stringify(path)});
         db.exec('CREATE TABLE held (x)'); db.exec('BEGIN IMMEDIATE'); db.exec('INSERT INTO held VALUES (1)');
         console.log('locked'); setTimeout(() => { db.exec('COMMIT'); db.close(); }, 300);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = once(holder, 'exit');
    const [line] = (await once(holder.stdout, 'data')) as [Buffer];
    assert.equal(line.toString().trim(), 'locked');
    const engine = openSqlite(path);
    try {
      const raw = new SQLite(path, { readonly: true });
      assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
      raw.close();
    } finally {
      await engine.close();
      await exited;
    }
  });

  test('a one-file database is moved on its next open, rows, indexes and keys intact', async () => {
    const { path } = await oneFileDatabase('upgrade');
    await assertMoved(path);
  });

  test('a move whose service-file commit alone landed is finished from the tables set aside', async () => {
    const path = await migratedInOneFile('main-only');
    // What the move's first transaction leaves in the service file: each table renamed aside, none copied.
    const raw = new SQLite(path);
    raw.pragma('foreign_keys = OFF');
    for (const t of CORPUS_TABLES) raw.exec(`ALTER TABLE "${t}" RENAME TO "${t}_moved_to_corpus"`);
    raw.close();
    await assertMoved(path);
  });

  test('a move whose corpus-file commit alone landed is done again from the service file', async () => {
    const path = await migratedInOneFile('corpus-only');
    // A corpus file holding an older copy: the service file's tables are still the ones in use.
    const raw = new SQLite(corpusPathOf(path));
    raw.exec(`CREATE TABLE recalls (id text primary key)`);
    raw.exec(`INSERT INTO recalls VALUES ('stale')`);
    raw.close();
    await assertMoved(path);
  });

  test('a pair with one file missing is refused with one line naming it, status 1, nothing made or changed', async () => {
    const path = join(dir, 'pair.db');
    const store = await openStore({ engine: 'sqlite', path });
    await store.keys.create('free', null, new Date());
    await store.close();
    const corpus = corpusPathOf(path);
    const [serviceTables, corpusTables] = [tablesOf(path), tablesOf(corpus)];
    const keysList = () => runCli(['keys', 'list'], { DATABASE_URL: path });
    const restore = 'restore both files from one backup (docs/backups.md, Restore)';

    renameSync(corpus, `${corpus}.aside`);
    let r = await keysList();
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `error: the corpus file ${corpus} is missing beside ${path}: ${restore}\n`);
    assert.ok(!existsSync(corpus), 'no empty corpus file is left in its place');
    assert.deepEqual(tablesOf(path), serviceTables);
    renameSync(`${corpus}.aside`, corpus);

    renameSync(path, `${path}.aside`);
    r = await keysList();
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `error: ${path} is missing but its corpus file ${corpus} is not: ${restore}, or move the corpus file aside to start anew\n`,
    );
    assert.ok(!existsSync(path), 'no empty service file is left in its place');
    assert.deepEqual(tablesOf(corpus), corpusTables, 'the corpus is as it was, not replaced by empty tables');
    renameSync(`${path}.aside`, path);

    r = await keysList();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /free/, 'the pair together opens as before');
  });

  test('a database whose folder cannot be made (a file is in its way) is refused with one line, status 1', async () => {
    const file = join(dir, 'in-the-way.txt');
    writeFileSync(file, 'a file where the database wants a folder\n');
    const folder = join(file, 'data');
    for (const args of [['keys', 'list'], ['migrate'], ['serve']]) {
      const r = await runCli(args, { DATABASE_URL: join(folder, 'recalls.db'), PORT: '0' });
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      // One line: the folder, then the system's reason (ENOTDIR or EEXIST, by platform).
      assert.ok(r.stderr.startsWith(`error: cannot make the folder ${folder} for the database: E`), r.stderr);
      assert.equal(r.stderr.indexOf('\n'), r.stderr.length - 1, r.stderr);
    }
    assert.equal(
      readFileSync(file, 'utf8'),
      'a file where the database wants a folder\n',
      'the file is left as it was',
    );
  });

  test('a folder or a file that is not SQLite is refused with one line naming it, status 1, nothing made', async () => {
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    const text = join(dir, 'notes.db');
    writeFileSync(text, 'not a database, though named like one\n'.repeat(100));
    for (const [path, cause] of [
      [folder, 'unable to open database file'],
      [text, 'file is not a database'],
    ] as const) {
      const r = await runCli(['keys', 'list'], { DATABASE_URL: path });
      assert.equal(r.code, 1);
      assert.equal(
        r.stderr,
        `error: cannot open ${path} with ${corpusPathOf(path)} as SQLite databases: ${cause}\n`,
      );
      assert.ok(!existsSync(corpusPathOf(path)), 'no corpus file is made beside it');
    }
  });
});
