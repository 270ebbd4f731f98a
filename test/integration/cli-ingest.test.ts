import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Config } from '../../src/config.ts';
import { listeningUrl, runCli, startCli } from '../support/cli.ts';
import { json } from '../support/service.ts';
import { fdaPage, fdaRecord } from '../support/fda-records.ts';
import { startOpenFdaStandIn } from '../support/openfda-server.ts';
import { requireShared, sharedPath } from '../support/shared.ts';
import { createTestDatabase, openRawEngine } from '../support/database.ts';
import { until } from '../support/until.ts';

interface Temp {
  dir: string;
  env: Record<string, string>;
  database: Config['database'];
  cleanup(): Promise<void>;
}

/** A folder and an empty database on the test engine (RECALLS_TEST_ENGINE). */
async function tempEnv(): Promise<Temp> {
  const dir = mkdtempSync(join(tmpdir(), 'recalls-cli-'));
  const db = await createTestDatabase(dir);
  return {
    dir,
    database: db.database,
    env: { DATABASE_URL: db.url, RECALLS_ARCHIVE_DIR: join(dir, 'archive') },
    cleanup: async () => {
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Rows of a query, on a fresh connection (the commands under test write from other processes). */
async function rows<T>(t: Temp, query: string): Promise<T[]> {
  const engine = openRawEngine(t.database);
  try {
    return (await sql.raw<T>(query).execute(engine.db)).rows;
  } finally {
    await engine.close();
  }
}

async function count(t: Temp, query: string): Promise<number> {
  const [row] = await rows<{ n: unknown }>(t, query);
  return Number(row?.n);
}

/** Runs statements on a fresh connection to the test database. */
async function execute(database: Config['database'], statements: string[]): Promise<void> {
  const engine = openRawEngine(database);
  try {
    for (const statement of statements) await sql.raw(statement).execute(engine.db);
  } finally {
    await engine.close();
  }
}

/** Makes the database refuse inserts into `table` once it holds `rows` rows ("injected fault"). */
function injectFault(database: Config['database'], table: string, rows: number): Promise<void> {
  const full = `(SELECT count(*) FROM ${table}) >= ${rows}`;
  return execute(
    database,
    database.engine === 'sqlite'
      ? [
          // A trigger lives in its table's file: the corpus tables' is attached as `corpus`.
          `CREATE TRIGGER corpus.inject_fault_${table} BEFORE INSERT ON ${table} WHEN ${full}
           BEGIN SELECT RAISE(ABORT, 'injected fault'); END`,
        ]
      : [
          `CREATE FUNCTION inject_fault_${table}() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN IF ${full} THEN RAISE EXCEPTION 'injected fault'; END IF; RETURN NEW; END $$`,
          `CREATE TRIGGER inject_fault_${table} BEFORE INSERT ON ${table}
           FOR EACH ROW EXECUTE FUNCTION inject_fault_${table}()`,
        ],
  );
}

function removeFault(database: Config['database'], table: string): Promise<void> {
  return execute(
    database,
    database.engine === 'sqlite'
      ? [`DROP TRIGGER corpus.inject_fault_${table}`]
      : [`DROP TRIGGER inject_fault_${table} ON ${table}`, `DROP FUNCTION inject_fault_${table}()`],
  );
}

describe('recalls keys', () => {
  let tmp: Temp;
  before(async () => {
    tmp = await tempEnv();
  });
  after(() => tmp.cleanup());

  // Up to 75 s measured on a loaded machine (docs/development.md, test timeouts).
  test(
    'create prints the key as the last line; list never shows it; revoke takes the key itself',
    { timeout: 300_000 },
    async () => {
      const { env } = tmp;
      const created = await runCli(['keys', 'create', '--plan', 'free', '--name', 'shop'], env);
      assert.equal(created.code, 0, created.stderr);
      const lines = created.stdout.trimEnd().split('\n');
      const key = lines[lines.length - 1]!;
      assert.match(key, /^rk_live_[A-Za-z0-9]{40}$/);
      const listed = await runCli(['keys', 'list'], env);
      assert.equal(listed.code, 0);
      assert.match(listed.stdout, /free\tactive/);
      assert.ok(!listed.stdout.includes(key), 'the key is never shown again');
      const stored = await rows<{ key_hash: string; prefix: string }>(
        tmp,
        'SELECT key_hash, prefix FROM api_keys',
      );
      assert.equal(stored.length, 1);
      assert.ok(!JSON.stringify(stored).includes(key.slice(12)), 'only a hash and a short prefix are stored');
      const revoked = await runCli(['keys', 'revoke', key], env);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.match((await runCli(['keys', 'list'], env)).stdout, /free\trevoked/);
      assert.equal((await runCli(['keys', 'revoke', 'rk_live_unknown'], env)).code, 1);
      const bad = await runCli(['keys', 'create', '--plan', 'platinum'], env);
      assert.notEqual(bad.code, 0);
    },
  );
});

describe('recalls ingest --from', () => {
  // Up to 53 s measured on a loaded machine (docs/development.md, test timeouts).
  test(
    'accepts ../shared/upstream-samples as is, ignoring unknown folders and _reference',
    { timeout: 240_000 },
    async (t) => {
      const samples = sharedPath('upstream-samples');
      if (!requireShared(t, samples, 'upstream-samples')) return;
      const tmp = await tempEnv();
      const { env } = tmp;
      try {
        const first = await runCli(['ingest', '--from', samples], env);
        assert.equal(first.code, 0, first.stderr);
        assert.match(
          first.stdout,
          /us-fda-food: ok, 32 records from 1 page\(s\): 32 new, 0 amended, 0 unchanged\n/,
        );
        // Every source with real records there is ingested whole: none failed, none set aside.
        for (const id of readdirSync(samples).filter(
          (name) => !name.startsWith('_') && !name.endsWith('.md'),
        )) {
          assert.match(
            first.stdout,
            new RegExp(
              `^${id}: ok, \\d+ records from \\d+ page\\(s\\): \\d+ new, 0 amended, 0 unchanged$`,
              'm',
            ),
            id,
          );
        }
        const again = await runCli(['ingest', '--from', samples], env);
        assert.match(
          again.stdout,
          /us-fda-food: ok, 32 records from 1 page\(s\): 0 new, 0 amended, 32 unchanged/,
        );
        const report = await runCli(['report'], env);
        assert.equal(report.code, 0, report.stderr);
        assert.match(
          report.stdout,
          /## us-fda-food\nrecords: 32\nwith at least one identifier: \d+ \([\d.]+ %\)\n/,
        );
        assert.match(report.stdout, /identifiers: \d+ — .*upc\/extracted \d+/);
        assert.match(
          report.stdout,
          /## us-cpsc\n(?:.*\n){3}identifier extraction, measured \d{4}-\d{2}-\d{2}: precision 0\.\d{3} \(\d+\/\d+\), recall 0\.\d{3} \(\d+\/\d+\), records read exactly right [01]\.\d{3} \(\d+\/\d+\) on \d+ hand-labelled validation records\n/,
        );
        assert.match(report.stdout, /## us-nhtsa\n(?:.*\n){3}identifier extraction: not measured/);
        assert.match(report.stdout, /severity: medium \d+ .*serious \d+/);
        assert.equal(await count(tmp, 'SELECT count(*) n FROM revisions'), 0, 'no revision from a re-ingest');
        const [food] = await rows<{ data_as_of: string }>(
          tmp,
          "SELECT data_as_of FROM sources WHERE id = 'us-fda-food'",
        );
        assert.equal(food?.data_as_of, '2026-06-17');
      } finally {
        await tmp.cleanup();
      }
    },
  );

  test('changing one field of one record creates exactly one revision naming it', async () => {
    const tmp = await tempEnv();
    const { dir, env } = tmp;
    try {
      const mirror = join(dir, 'mirror');
      mkdirSync(join(mirror, 'us-fda-food'), { recursive: true });
      mkdirSync(join(mirror, 'xx-unknown'), { recursive: true });
      writeFileSync(join(mirror, 'xx-unknown', 'page.json'), 'not even json');
      const records = Array.from({ length: 20 }, (_, i) => fdaRecord(i));
      writeFileSync(join(mirror, 'us-fda-food', 'page-1.json'), fdaPage(records));
      assert.equal((await runCli(['ingest', '--from', mirror], env)).code, 0);
      // record 7 is Class II (index 7 % 3 = 1); make it Class I
      records[7] = { ...records[7], classification: 'Class I' };
      writeFileSync(join(mirror, 'us-fda-food', 'page-1.json'), fdaPage(records, '2026-06-24'));
      const second = await runCli(['ingest', '--from', mirror], env);
      assert.match(second.stdout, /0 new, 1 amended, 19 unchanged/);
      const revs = await rows<{
        recall_id: string;
        revision: number;
        changed_fields: string;
        data_as_of: string;
      }>(tmp, 'SELECT recall_id, revision, changed_fields, data_as_of FROM revisions');
      assert.equal(revs.length, 1);
      assert.equal(revs[0]!.revision, 2);
      assert.equal(revs[0]!.data_as_of, '2026-06-24');
      const changed = JSON.parse(revs[0]!.changed_fields);
      assert.ok('source_classification' in changed && 'severity' in changed, JSON.stringify(changed));
      assert.deepEqual(Object.keys(changed).sort(), ['severity', 'source_classification']);
    } finally {
      await tmp.cleanup();
    }
  });

  test('the same countries in another order, or repeated, are no amendment', async () => {
    const tmp = await tempEnv();
    const mirror = join(tmp.dir, 'mirror');
    mkdirSync(join(mirror, 'eu-safety-gate'), { recursive: true });
    /** A notification in the API's shape (fictional), its reacting countries named in `countries`. */
    const report = (countries: string) =>
      writeFileSync(
        join(mirror, 'eu-safety-gate', 'notification-99900001.json'),
        JSON.stringify({
          id: 99900001,
          reference: 'SR/90001/26',
          notificationType: { code: 'A12' },
          country: { key: 'PL', name: 'Poland' },
          publicationDate: '2026-03-06T12:00:00.000Z',
          product: {
            productCategory: { name: 'CLOTHING' },
            nameSpecific: 'TEST DATA Rain jacket',
            brands: [],
            versions: [{ language: { key: 'EN' }, name: "Children's hooded jacket" }],
          },
          risk: {
            riskType: [{ name: 'STRANGULATION' }],
            versions: [
              { language: { key: 'EN' }, riskDescription: 'TEST DATA. The hood has functional cords.' },
            ],
          },
          reactingCountries: countries.split(/[,;]\s*/).map((name) => ({ name })),
        }),
      );
    try {
      report('Germany, France, Austria');
      const first = await runCli(['ingest', '--from', mirror], tmp.env);
      assert.match(first.stdout, /eu-safety-gate: ok, 1 records from 1 page\(s\): 1 new/, first.stderr);
      report('Austria; France, Germany, France, Poland');
      const second = await runCli(['ingest', '--from', mirror, '--force'], tmp.env);
      assert.match(
        second.stdout,
        /eu-safety-gate: ok, 1 records from 1 page\(s\): 0 new, 0 amended, 1 unchanged/,
      );
      assert.equal(await count(tmp, 'SELECT count(*) n FROM revisions'), 0, 'no revision');
      const [stored] = await rows<{ content: string }>(tmp, 'SELECT content FROM recalls');
      assert.deepEqual(JSON.parse(stored!.content).countries, ['AT', 'DE', 'FR', 'PL']);
      report('Austria, France, Germany, Italy');
      const third = await runCli(['ingest', '--from', mirror, '--force'], tmp.env);
      assert.match(third.stdout, /0 new, 1 amended, 0 unchanged/, 'a country more is an amendment');
    } finally {
      await tmp.cleanup();
    }
  });

  test('a write that fails midway leaves nothing of its run and the previous state intact', async () => {
    const tmp = await tempEnv();
    const mirror = join(tmp.dir, 'mirror');
    mkdirSync(join(mirror, 'us-fda-food'), { recursive: true });
    const page = (records: Record<string, unknown>[], lastUpdated: string) =>
      writeFileSync(join(mirror, 'us-fda-food', 'page-1.json'), fdaPage(records, lastUpdated));
    const records = Array.from({ length: 20 }, (_, i) => fdaRecord(i));
    const snapshot = async () => ({
      recalls: await rows(tmp, 'SELECT id, revision, content_hash, last_seen_at FROM recalls ORDER BY id'),
      identifiers: await count(tmp, 'SELECT count(*) n FROM identifiers'),
      revisions: await count(tmp, 'SELECT count(*) n FROM revisions'),
      // (the source's failure is recorded, and so moves the corpus version, as it should)
      source: await rows(tmp, "SELECT data_as_of, last_success_at FROM sources WHERE id = 'us-fda-food'"),
    });
    try {
      page(records, '2026-06-17');
      assert.equal((await runCli(['ingest', '--from', mirror], tmp.env)).code, 0);
      const before = await snapshot();
      // The next run adds 5 records and amends 2; the database refuses its second revision, so
      // the run fails partway through its write, one amendment already made.
      await injectFault(tmp.database, 'revisions', 1);
      const next = [
        ...records.map((r, i) => (i === 4 || i === 7 ? { ...r, classification: 'Class I' } : r)),
        ...Array.from({ length: 5 }, (_, i) => fdaRecord(100 + i)),
      ];
      page(next, '2026-06-24');
      const failed = await runCli(['ingest', '--from', mirror, '--force'], tmp.env);
      assert.equal(failed.code, 1, failed.stdout + failed.stderr);
      assert.match(failed.stdout, /us-fda-food: failed: .*injected fault/);
      assert.deepEqual(await snapshot(), before, 'nothing of the failed run is visible');
      await removeFault(tmp.database, 'revisions');
      const retry = await runCli(['ingest', '--from', mirror, '--force'], tmp.env);
      assert.match(
        retry.stdout,
        /us-fda-food: ok, 25 records from 1 page\(s\): 5 new, 2 amended, 18 unchanged/,
      );
      assert.equal(await count(tmp, 'SELECT count(*) n FROM revisions'), 2);
    } finally {
      await tmp.cleanup();
    }
  });
});

describe('records that cannot be read', () => {
  /** A mirror of `total` openFDA food records of which the first `drifted` have a number as their reason. */
  function mirrorWith(dir: string, total: number, drifted: number, lastUpdated: string): string {
    const mirror = join(dir, `mirror-${drifted}`);
    mkdirSync(join(mirror, 'us-fda-food'), { recursive: true });
    const records = Array.from({ length: total }, (_, i) =>
      fdaRecord(i, i < drifted ? { reason_for_recall: 42 } : {}),
    );
    writeFileSync(join(mirror, 'us-fda-food', 'page-1.json'), fdaPage(records, lastUpdated));
    return mirror;
  }

  test('are set aside with their reason, in the log and the report, while the rest is ingested', async () => {
    const tmp = await tempEnv();
    try {
      const run = await runCli(['ingest', '--from', mirrorWith(tmp.dir, 10, 2, '2026-06-17')], tmp.env);
      assert.equal(run.code, 0, run.stderr);
      assert.match(
        run.stdout,
        /us-fda-food: ok, 8 records from 1 page\(s\): 8 new, 0 amended, 0 unchanged; 2 set aside/,
      );
      assert.match(run.stderr, /"msg":"records set aside"/);
      assert.match(
        run.stderr,
        /results\[0\] \(F-9000-2090\): does not match the schema at \/reason_for_recall/,
      );
      assert.equal(await count(tmp, 'SELECT count(*) n FROM recalls'), 8);
      const report = await runCli(['report'], tmp.env);
      assert.match(
        report.stdout,
        /set aside in the last run: 2\n {2}results\[0\] \(F-9000-2090\): does not match the schema at \/reason_for_recall: .*\n {2}results\[1\] \(F-9001-2090\): /,
      );
      // A later run that reads every record clears the list.
      await runCli(['ingest', '--from', mirrorWith(tmp.dir, 10, 0, '2026-06-24')], tmp.env);
      assert.match((await runCli(['report'], tmp.env)).stdout, /set aside in the last run: 0\n/);
    } finally {
      await tmp.cleanup();
    }
  });

  test('fail the source as schema drift when more than a fifth of a run cannot be read', async () => {
    const tmp = await tempEnv();
    try {
      assert.equal(
        (await runCli(['ingest', '--from', mirrorWith(tmp.dir, 10, 0, '2026-06-17')], tmp.env)).code,
        0,
      );
      const run = await runCli(['ingest', '--from', mirrorWith(tmp.dir, 10, 3, '2026-06-24')], tmp.env);
      assert.equal(run.code, 1);
      assert.match(
        run.stdout,
        /us-fda-food: failed: us-fda-food drifted: 3 of 10 records could not be read \(first: results\[0\] \(F-9000-2090\): does not match the schema at \/reason_for_recall/,
      );
      // Nothing changed: the records and the source's freshness are those of the first run.
      assert.equal(await count(tmp, 'SELECT count(*) n FROM recalls'), 10);
      assert.equal(await count(tmp, 'SELECT count(*) n FROM revisions'), 0);
      const [food] = await rows<{ data_as_of: string; consecutive_failures: number }>(
        tmp,
        "SELECT data_as_of, consecutive_failures FROM sources WHERE id = 'us-fda-food'",
      );
      assert.equal(food?.data_as_of, '2026-06-17');
      assert.equal(Number(food?.consecutive_failures), 1);
      // Exactly a fifth is still an odd record or two, not drift.
      assert.equal(
        (await runCli(['ingest', '--from', mirrorWith(tmp.dir, 10, 2, '2026-07-01')], tmp.env)).code,
        0,
      );
    } finally {
      await tmp.cleanup();
    }
  });
});

describe('recalls ingest from the agency (a local stand-in)', () => {
  let standIn: Awaited<ReturnType<typeof startOpenFdaStandIn>>;
  const records = Array.from({ length: 2600 }, (_, i) => fdaRecord(i));
  before(async () => {
    standIn = await startOpenFdaStandIn('/food/enforcement.json', records);
  });
  after(() => standIn.close());

  test('pages through date slices, rebuilds at most once a day, and uses conditional GET when forced', async () => {
    const tmp = await tempEnv();
    const { env } = tmp;
    const withUrl = { ...env, RECALLS_SOURCE_US_FDA_FOOD_URL: standIn.url };
    try {
      const first = await runCli(['ingest', '--source', 'us-fda-food'], withUrl);
      assert.equal(first.code, 0, first.stderr + first.stdout);
      assert.match(first.stdout, /us-fda-food: ok, 2600 records/);
      assert.deepEqual(standIn.unexpected, []);
      const second = await runCli(['ingest', '--source', 'us-fda-food'], withUrl);
      assert.equal(second.code, 0);
      assert.match(second.stdout, /us-fda-food: skipped: already rebuilt today/);
      const before304 = standIn.notModified;
      const forced = await runCli(['ingest', '--source', 'us-fda-food', '--force'], withUrl);
      assert.equal(forced.code, 0, forced.stderr);
      assert.match(forced.stdout, /0 new, 0 amended, 2600 unchanged/);
      assert.ok(standIn.notModified > before304, 'the unchanged pages were answered 304');
    } finally {
      await tmp.cleanup();
    }
  });

  test('a failing agency marks the source failed and leaves its records untouched', async () => {
    const tmp = await tempEnv();
    const { env } = tmp;
    try {
      assert.equal(
        (
          await runCli(['ingest', '--source', 'us-fda-food'], {
            ...env,
            RECALLS_SOURCE_US_FDA_FOOD_URL: standIn.url,
          })
        ).code,
        0,
      );
      const broken = await runCli(['ingest', '--source', 'us-fda-food', '--force'], {
        ...env,
        RECALLS_SOURCE_US_FDA_FOOD_URL: 'http://127.0.0.1:9',
        RECALLS_UPSTREAM_RETRIES: '0',
      });
      assert.equal(broken.code, 1);
      assert.match(broken.stdout, /us-fda-food: failed/);
      assert.equal(await count(tmp, 'SELECT count(*) n FROM recalls'), 2600);
      const [src] = await rows<{ consecutive_failures: number; last_error: string }>(
        tmp,
        "SELECT consecutive_failures, last_error FROM sources WHERE id='us-fda-food'",
      );
      assert.equal(src?.consecutive_failures, 1);
      assert.ok((src?.last_error.length ?? 0) > 0);
    } finally {
      await tmp.cleanup();
    }
  });

  test('two runs at once: one runs, the other says why it did not', async () => {
    const tmp = await tempEnv();
    const { env } = tmp;
    const withUrl = { ...env, RECALLS_SOURCE_US_FDA_FOOD_URL: standIn.url };
    // The agency holds its answers, so the first run is in flight, holding the lock, until released.
    const release = standIn.hold();
    try {
      assert.equal((await runCli(['keys', 'list'], env)).code, 0, 'schema created first');
      const seen = standIn.requests.length;
      const a = startCli(['ingest', '--source', 'us-fda-food'], withUrl);
      await until(
        () => standIn.requests.length > seen,
        () => `the first run to ask the agency; its output so far: ${a.output()}`,
        { timeoutMs: 15_000, intervalMs: 20 },
      );
      const b = await runCli(['ingest', '--source', 'us-fda-food'], withUrl);
      assert.equal(b.code, 75);
      assert.match(b.stderr, /Another ingest is running \(held by .+:\d+:.+ since /);
      release();
      const ra = await a.done;
      assert.equal(ra.code, 0, ra.stderr);
    } finally {
      release();
      await tmp.cleanup();
    }
  });

  // Up to 74 s measured on a loaded machine (docs/development.md, test timeouts).
  test(
    'SIGKILL mid-run leaves the database consistent and the next run completes',
    { timeout: 300_000 },
    async () => {
      const tmp = await tempEnv();
      const { dir, env } = tmp;
      const mirror = join(dir, 'mirror');
      mkdirSync(join(mirror, 'us-fda-food'), { recursive: true });
      const big = Array.from({ length: 30000 }, (_, i) => fdaRecord(i));
      for (let p = 0; p < 3; p++) {
        writeFileSync(
          join(mirror, 'us-fda-food', `page-${p + 1}.json`),
          fdaPage(big.slice(p * 10000, (p + 1) * 10000)),
        );
      }
      try {
        assert.equal((await runCli(['keys', 'list'], env)).code, 0);
        for (const delay of [300, 900, 1500, 2200, 3000]) {
          const run = startCli(['ingest', '--from', mirror, '--force'], env);
          await new Promise((r) => setTimeout(r, delay));
          run.child.kill('SIGKILL');
          await run.done;
          if (tmp.database.engine === 'sqlite') {
            const [check] = await rows<{ integrity_check: string }>(tmp, 'PRAGMA integrity_check');
            assert.equal(check?.integrity_check, 'ok');
          }
          const n = await count(tmp, 'SELECT count(*) n FROM recalls');
          assert.ok(n === 0 || n === 30000, `all or nothing, got ${n} after ${delay} ms`);
          const orphans = await count(
            tmp,
            'SELECT count(*) n FROM identifiers WHERE recall_id NOT IN (SELECT id FROM recalls)',
          );
          assert.equal(orphans, 0);
        }
        const next = await runCli(['ingest', '--from', mirror], env);
        assert.equal(next.code, 0, next.stderr);
        assert.match(next.stdout, /us-fda-food: ok, 30000 records/);
        assert.equal(await count(tmp, 'SELECT count(*) n FROM recalls'), 30000);
      } finally {
        await tmp.cleanup();
      }
    },
  );
});

describe('recalls serve', () => {
  /**
   * `serve` with its daily ingest due at once, fetching us-fda-food from a local agency that answers each
   * connection with `onConnection`; `run` gets the serve process, and everything is stopped after it.
   */
  async function withDailyIngest(
    onConnection: (socket: Socket) => void,
    env: Record<string, string>,
    run: (serve: ReturnType<typeof startCli>) => Promise<void>,
  ): Promise<void> {
    const tmp = await tempEnv();
    const agency = createServer(onConnection);
    await new Promise<void>((resolve) => agency.listen(0, '127.0.0.1', resolve));
    const { port } = agency.address() as AddressInfo;
    const serve = startCli(['serve'], {
      ...tmp.env,
      PORT: '0',
      LOG_LEVEL: 'info',
      RECALLS_INGEST_SCHEDULE: 'daily',
      RECALLS_INGEST_HOUR_UTC: '0',
      RECALLS_SOURCE_US_FDA_FOOD_URL: `http://127.0.0.1:${port}/food/enforcement.json`,
      ...env,
    });
    try {
      await listeningUrl(serve);
      await run(serve);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.done;
      agency.close();
      await tmp.cleanup();
    }
  }

  test("the daily ingest's failure of a source is logged once, by the child's log line", async () => {
    const unavailable = (socket: Socket) =>
      socket.end('HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n');
    await withDailyIngest(unavailable, { RECALLS_UPSTREAM_RETRIES: '0' }, async (serve) => {
      await until(
        () => serve.output().includes('scheduled ingest finished'),
        () => `the scheduled ingest to finish; output: ${serve.output().slice(-2000)}`,
        { timeoutMs: 120_000 },
      );
      const about = serve
        .output()
        .split('\n')
        .filter((l) => l.includes('us-fda-food') && /fail/i.test(l));
      assert.equal(about.length, 1, about.join('\n'));
      assert.match(about[0]!, /"msg":"source failed"/);
    });
  });

  test('SIGTERM stops the running ingest child too: no process remains (issue 37)', async () => {
    // An agency that takes the connection and never answers: the daily ingest child waits on it.
    const sockets = new Set<Socket>();
    const hold = (socket: Socket) => void sockets.add(socket);
    await withDailyIngest(hold, { RECALLS_UPSTREAM_TIMEOUT_MS: '600000' }, async (serve) => {
      try {
        await until(
          () => sockets.size > 0,
          () => `the ingest child to reach the agency; output: ${serve.output().slice(-2000)}`,
          { timeoutMs: 60_000 },
        );
        const pid = Number(/"childPid":(\d+)/.exec(serve.output())?.[1]);
        assert.ok(pid > 0, `the child's pid is logged: ${serve.output().slice(-2000)}`);
        serve.child.kill('SIGTERM');
        assert.equal((await serve.done).code, 0);
        assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, 'the ingest child is gone with serve');
      } finally {
        for (const socket of sockets) socket.destroy();
      }
    });
  });

  test('the run command brings the service up on SQLite and stops cleanly on SIGTERM', async () => {
    const tmp = await tempEnv();
    const { env } = tmp;
    try {
      const serve = startCli(['serve'], { ...env, PORT: '0', LOG_LEVEL: 'info' });
      const url = await listeningUrl(serve);
      const health = await fetch(`${url}/v1/health`);
      assert.equal(health.status, 200);
      assert.equal((await json<{ status: string }>(health)).status, 'unknown');
      serve.child.kill('SIGTERM');
      const result = await serve.done;
      assert.equal(result.code, 0);
    } finally {
      await tmp.cleanup();
    }
  });
});
