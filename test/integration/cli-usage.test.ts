/**
 * The edges of the `recalls` command, run for real in a child process: settings it cannot read and
 * arguments it cannot take stop it with one line and status 2; a command that opens the database
 * says which one on stderr (`serve` in its log), its stdout unchanged.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { listeningUrl, ROOT, startCli, type CliResult } from '../support/cli.ts';
import { SQLite } from '../../src/store/engines/sqlite-driver.ts';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../support/database.ts';
import { openStore } from '../../src/store/database.ts';

let dir: string;
let db: TestDatabase;
let env: Record<string, string>;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'recalls-usage-'));
  db = await createTestDatabase(dir);
  env = { DATABASE_URL: db.url, RECALLS_ARCHIVE_DIR: join(dir, 'archive') };
});
after(async () => {
  await db.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `recalls <args>`, killed after `ms` should it not stop by itself (a `serve` that starts). */
async function run(args: string[], extra: Record<string, string> = {}, ms = 30_000): Promise<CliResult> {
  const cli = startCli(args, { ...env, ...extra });
  const timer = setTimeout(() => cli.child.kill('SIGKILL'), ms);
  try {
    return await cli.done;
  } finally {
    clearTimeout(timer);
  }
}

/** A refusal: status 2 and one line on stderr matching `message`, no stack trace. */
function assertRefused(r: CliResult, message: RegExp, what: string): void {
  assert.equal(r.code, 2, `${what}: status ${r.code}, stderr: ${r.stderr}`);
  assert.match(r.stderr, message, what);
  assert.equal(r.stderr.trimEnd().split('\n').length, 1, `${what}: one line, got: ${r.stderr}`);
}

describe('a setting the command cannot read', () => {
  test('LOG_LEVEL, RECALLS_TRUST_PROXY or a DATABASE_URL of an unknown scheme stops the command with one line naming the variable, status 2', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [
        ['keys', 'list'],
        { LOG_LEVEL: 'verbose' },
        /^configuration error: LOG_LEVEL must be one of .*"verbose"/,
      ],
      [['serve'], { PORT: '0', LOG_LEVEL: 'verbose' }, /^configuration error: LOG_LEVEL /],
      [
        ['serve'],
        { PORT: '0', RECALLS_TRUST_PROXY: 'maybe' },
        /^configuration error: RECALLS_TRUST_PROXY: "maybe" is not an address or CIDR/,
      ],
      [
        ['keys', 'list'],
        { DATABASE_URL: 'mysql://u:secret@db.invalid/recalls' },
        /^configuration error: DATABASE_URL: /,
      ],
    ];
    for (const [args, settings, message] of cases)
      assertRefused(
        await run(args, settings),
        message,
        `${JSON.stringify(settings)} recalls ${args.join(' ')}`,
      );
  });
});

describe('the command line itself', () => {
  test('--version prints the version of package.json and exits 0', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const r = await run([flag]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${version}\n`);
    }
  });

  test('--help exits 0', async () => {
    for (const args of [['--help'], ['keys', '--help'], ['ingest', '--help'], ['help', 'keys']]) {
      const r = await run(args);
      assert.equal(r.code, 0, `recalls ${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, /^Usage: recalls/, args.join(' '));
    }
  });

  test('a usage error exits 2 with its message: unknown command or option, missing or invalid argument', async () => {
    const cases: [string[], RegExp][] = [
      [['nonsense'], /unknown command 'nonsense'/],
      [['keys', 'list', '--bogus'], /unknown option '--bogus'/],
      [['keys', 'create'], /required option '--plan <plan>' not specified/],
      [['keys', 'create', '--plan', 'platinum'], /argument 'platinum' is invalid/],
      [['keys', 'revoke'], /missing required argument 'idOrKey'/],
      [['keys', 'plan', 'key_1', 'gold'], /value 'gold' is invalid for argument 'plan'/],
      [['ingest', '--source', 'nowhere'], /unknown source; known: /],
      [['keys', 'list', 'extra'], /too many arguments/],
      [[], /Usage: recalls/],
      [['keys'], /Usage: recalls keys/],
    ];
    for (const [args, message] of cases) {
      const r = await run(args);
      assert.equal(r.code, 2, `recalls ${args.join(' ')}: status ${r.code}, stderr: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
      assert.doesNotMatch(r.stderr, /^\s+at /m, 'no stack trace');
    }
  });
});

describe('recalls ingest --from', () => {
  test('a folder that does not exist, or a file, exits 2 saying so, before the database is opened', async () => {
    const file = join(dir, 'a-file.txt');
    writeFileSync(file, 'not a mirror\n');
    for (const [from, message] of [
      [
        join(dir, 'no-such-dir'),
        /option '--from <dir>' argument '.*no-such-dir' is invalid\. no such folder/,
      ],
      [file, /option '--from <dir>' argument '.*a-file\.txt' is invalid\. not a folder/],
      [join(file, 'below'), /argument '.*a-file\.txt\/below' is invalid\. no such folder/],
    ] as const) {
      const r = await run(['ingest', '--from', from]);
      assert.equal(r.code, 2, `--from ${from}: status ${r.code}, stdout: ${r.stdout}, stderr: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.ok(!r.stderr.includes('database:'), r.stderr);
      assert.equal(r.stdout, '');
    }
  });
});

describe('a reader that closes stdout early (recalls keys list | head -1)', () => {
  test('is no error: no stack trace, the command finishes with its status', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await run(['keys', 'create', '--plan', 'free'])).code, 0);
    for (const args of [['keys', 'list'], ['report']]) {
      const cli = startCli(args, env);
      cli.child.stdout!.destroy(); // the reader is gone before the command writes its first line
      const r = await cli.done;
      assert.equal(r.code, 0, `recalls ${args.join(' ')}: status ${r.code}, stderr: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /EPIPE|^\s+at /m, args.join(' '));
    }
  });
});

describe('the database a command opened', () => {
  /** What the command should name: the SQLite file's absolute path, or the URL (no password in tests). */
  const named = () => (TEST_ENGINE === 'sqlite' ? resolve(db.url) : db.url);

  test("keys usage prints a key's month against its plan's limits", async () => {
    const created = await run(['keys', 'create', '--plan', 'starter', '--name', 'usage']);
    assert.equal(created.code, 0, created.stderr);
    const id = /key_\w+/.exec(created.stdout)![0];
    const store = await openStore(db.database);
    try {
      await store.usage.settleRequests(id, '2026-10', 12, 0);
    } finally {
      await store.close();
    }
    const october = await run(['keys', 'usage', id, '--month', '2026-10']);
    assert.equal(october.code, 0, october.stderr);
    assert.match(
      october.stdout,
      new RegExp(
        `^${id} \\(plan starter\\) in 2026-10: 12 of \\d+ requests, 0 of \\d+ identifiers; 0 requests leased by serving nodes\n$`,
      ),
    );
    assert.equal((await run(['keys', 'usage', 'key_nosuch'])).code, 1);
    assert.equal((await run(['keys', 'usage', id, '--month', '2026-13'])).code, 2);
  });

  test('is named on stderr by every command that opens it, and stdout is only the answer', async () => {
    const mirror = join(dir, 'mirror');
    mkdirSync(mirror);
    for (const args of [['migrate'], ['keys', 'list'], ['report'], ['ingest', '--from', mirror]]) {
      const r = await run(args);
      assert.equal(r.code, 0, `recalls ${args.join(' ')}: ${r.stderr}`);
      assert.ok(r.stderr.includes(`database: ${named()}\n`), `recalls ${args.join(' ')}: ${r.stderr}`);
      assert.ok(!r.stdout.includes('database:'), r.stdout);
    }
    assert.equal((await run(['migrate'])).stdout, 'database was already up to date\n');
    for (const line of (await run(['keys', 'list'])).stdout.trimEnd().split('\n'))
      assert.match(line, /^(no keys|key_\w+\trk_live_\w+…\t.*)$/);
  });

  test(
    'an SQLite path given relative to the working folder is named absolute',
    { skip: TEST_ENGINE !== 'sqlite' && 'SQLite only' },
    async () => {
      const file = join(dir, 'relative.db');
      const r = await run(['keys', 'list'], { DATABASE_URL: `sqlite:${relative(ROOT, file)}` });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stderr.includes(`database: ${file}\n`), r.stderr);
    },
  );

  test('is named in the log of serve', async () => {
    const serve = startCli(['serve'], { ...env, PORT: '0', LOG_LEVEL: 'info' });
    try {
      await listeningUrl(serve);
      const opened = serve
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg?: string; database?: string })
        .find((l) => l.msg === 'database opened');
      assert.equal(opened?.database, named());
    } finally {
      serve.child.kill('SIGTERM');
      await serve.done;
    }
  });
});

describe('a database the command cannot migrate', () => {
  test('migrate says which migrations it applied, and when there were none', async () => {
    const file = join(dir, 'fresh.db');
    const first = await run(['migrate'], { DATABASE_URL: `sqlite:${file}` });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^applied \d+ migrations \(0001-initial, .*\): database is up to date\n$/);
    const again = await run(['migrate'], { DATABASE_URL: `sqlite:${file}` });
    assert.equal(again.stdout, 'database was already up to date\n');
  });

  test('one migrated by a newer release is refused with one line saying so, status 1', async () => {
    const file = join(dir, 'newer.db');
    const sqliteEnv = { DATABASE_URL: `sqlite:${file}` };
    assert.equal((await run(['migrate'], sqliteEnv)).code, 0);
    const raw = new SQLite(file);
    raw
      .prepare('INSERT INTO kysely_migration (name, timestamp) VALUES (?, ?)')
      .run('9999-from-a-newer-release', new Date().toISOString());
    raw.close();
    const r = await run(['migrate'], sqliteEnv);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stderr,
      'error: the database was migrated by a newer release (migration 9999-from-a-newer-release is not in this one): run that release, or restore the backup made before the upgrade\n',
    );
  });

  test('an unreachable PostgreSQL is one line naming the cause, status 1', async () => {
    const r = await run(['migrate'], { DATABASE_URL: 'postgres://recalls@127.0.0.1:1/recalls' });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stderr,
      'error: cannot connect to the database at postgres://recalls@127.0.0.1:1/recalls (DATABASE_URL): connect ECONNREFUSED 127.0.0.1:1\n',
    );
  });
});
