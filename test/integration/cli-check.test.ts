/**
 * `recalls check`, `verify` and `diff` as a shop runs them: the real command in a child process
 * against the real service on 127.0.0.1 (SQLite, or PostgreSQL with RECALLS_TEST_ENGINE=postgres).
 */
import assert from 'node:assert/strict';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { normaliseIdentifier } from '../../src/domain/identifiers/index.ts';
import type { Identifier } from '../../src/domain/recall.ts';
import { runCli, startCli } from '../support/cli.ts';
import { until } from '../support/until.ts';
import { testCatalogue, testModel, testUpc } from '../support/catalogue.ts';
import {
  draft,
  json,
  settledUsage,
  startService,
  usageReaches,
  type TestService,
} from '../support/service.ts';

const ROWS = 5000;

function identifier(kind: 'upc' | 'model', value: string): Identifier {
  const n = normaliseIdentifier(kind, value);
  if (!n.ok) throw new Error(`test identifier ${value} does not normalise`);
  return { kind, value, normalized: n.normalized, confidence: 'exact' };
}

/** A synthetic recall on the given identifiers. */
function testRecall(recordId: string, identifiers: Identifier[]) {
  return draft(recordId, { title: `TEST RECORD ${recordId}`, severity: 'high', identifiers });
}

function readJson(path: string): any {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** matches.csv as `row recall_id kind` strings, sorted. */
function matchedRows(dir: string): string[] {
  const records = parse(readFileSync(join(dir, 'matches.csv'), 'utf8'), { columns: true }) as Record<
    string,
    string
  >[];
  return records.map((r) => `${r.row} ${r.recall_id} ${r.kind}`).sort();
}

/** The key's usage of the month once every answered request is reported. */
const usage = settledUsage;

/** Replaces the byte at `offset` of `path` with a different one; returns a function that restores it. */
function flipByte(path: string, offset: number): () => void {
  const original = readFileSync(path);
  const changed = Buffer.from(original);
  changed[offset] = changed[offset] === 0x31 ? 0x32 : 0x31; // '1' ↔ '2', or any byte → '1'
  writeFileSync(path, changed);
  return () => writeFileSync(path, original);
}

describe('recalls check, verify and diff against a running service', () => {
  let s: TestService;
  let dir: string;
  let env: Record<string, string>;
  let key: string;
  const catalogue = testCatalogue(ROWS);
  let csvPath: string;
  const mapping = ['--column', 'upc=UPC', '--column', 'model=Model No', '--id-column', 'sku'];
  const check = (out: string, ...extra: string[]) =>
    runCli(['check', csvPath, '--out', out, ...mapping, ...extra], env);
  let recallIds: Record<string, string>;

  before(async () => {
    s = await startService();
    dir = mkdtempSync(join(tmpdir(), 'recalls-check-'));
    csvPath = join(dir, 'catalogue.csv');
    writeFileSync(csvPath, catalogue.csv);
    key = await s.key('scale');
    env = { RECALLS_URL: s.url, RECALLS_KEY: key };
    await s.seed([
      testRecall('TEST-A', [identifier('upc', testUpc(10))]),
      testRecall('TEST-B', [identifier('model', testModel(304))]), // products 304–306
      testRecall('TEST-C', [identifier('upc', testUpc(4321)), identifier('model', 'TM 1441')]), // 4321 twice
    ]);
    const page = await json(await s.request('/v1/recalls?limit=10', { key: await s.key('free') }));
    recallIds = Object.fromEntries(page.data.map((r: any) => [r.source.record_id, r.id]));
  });
  after(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('check writes matches.csv, each receipt as served and run.json, charging each distinct identifier once', async () => {
    const out = join(dir, 'run-1');
    const run = await check(out, '--label', 'TEST SHOP');
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      new RegExp(`Checked ${ROWS} rows of catalogue.csv: ${catalogue.distinct} distinct identifiers`),
    );

    const record = readJson(join(out, 'run.json'));
    assert.equal(record.status, 'complete');
    assert.equal(record.catalogue.rows, ROWS);
    assert.equal(record.service_url, s.url);
    assert.deepEqual(record.mapping.columns, [
      { kind: 'upc', column: 'UPC' },
      { kind: 'model', column: 'Model No' },
    ]);
    const chunks: any[] = record.chunks;
    await usageReaches(s, key, { requests: chunks.length, identifiers: catalogue.distinct });
    assert.ok(chunks.length >= Math.ceil(catalogue.distinct / 1000), `${chunks.length} chunks`);
    assert.ok(chunks.every((c) => c.sent <= 1000 && c.status === 'checked'));
    assert.deepEqual(
      chunks.map((c) => c.first_row),
      [2, ...chunks.slice(0, -1).map((c) => c.last_row + 1)],
      'consecutive row ranges from the first data row',
    );
    assert.equal(chunks.at(-1).last_row, ROWS + 1);
    assert.equal(
      chunks.reduce((n, c) => n + c.submitted_count, 0),
      catalogue.distinct,
    );
    assert.equal(
      chunks.reduce((n, c) => n + c.rejected_count, 0),
      catalogue.invalid,
    );

    // Each receipt is saved exactly as the service serves it.
    assert.deepEqual(
      readdirSync(join(out, 'receipts')).sort(),
      chunks.map((c) => `${c.check_id}.json`).sort(),
    );
    for (const c of chunks) {
      const saved = readFileSync(join(out, 'receipts', `${c.check_id}.json`), 'utf8');
      const served = await (await s.request(`/v1/checks/${c.check_id}`, { key })).text();
      assert.equal(saved, served);
      const receipt = JSON.parse(saved).data;
      assert.equal(receipt.submitted_digest, c.submitted_digest);
      assert.equal(receipt.label, `TEST SHOP (${c.chunk}/${chunks.length})`);
    }

    const { A, B, C } = { A: recallIds['TEST-A'], B: recallIds['TEST-B'], C: recallIds['TEST-C'] };
    assert.deepEqual(
      matchedRows(out),
      [
        `${catalogue.rowOf(10)} ${A} upc`,
        `${catalogue.rowOf(304)} ${B} model`,
        `${catalogue.rowOf(305)} ${B} model`,
        `${catalogue.rowOf(306)} ${B} model`,
        `${catalogue.rowOf(4321)} ${C} model`,
        `${catalogue.rowOf(4321)} ${C} upc`,
        `${catalogue.rowOf(4322)} ${C} model`,
        `${catalogue.rowOf(4323)} ${C} model`,
      ].sort(),
    );
    const lines = parse(readFileSync(join(out, 'matches.csv'), 'utf8'), { columns: true }) as Record<
      string,
      string
    >[];
    const a = lines.find((l) => l.recall_id === A)!;
    assert.deepEqual(
      { ...a, check_id: a.check_id === chunks[0].check_id },
      {
        row: '11',
        row_id: 'TEST-SKU-10',
        kind: 'upc',
        value: testUpc(10),
        normalized: `00${testUpc(10)}`,
        recall_id: A,
        title: 'TEST RECORD TEST-A',
        severity: 'high',
        recall_date: '2024-01-10',
        jurisdiction: 'US',
        url: 'https://example.test/recalls/TEST-A',
        check_id: true,
      },
    );
  });

  test('verify passes on the run and fails, naming the check, after one byte of the catalogue changes', async () => {
    const out = join(dir, 'run-1');
    const ok = await runCli(['verify', out, '--catalogue', csvPath], env);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    const chunks = readJson(join(out, 'run.json')).chunks;
    for (const c of chunks)
      assert.match(ok.stdout, new RegExp(`check ${c.check_id}, chunk ${c.chunk} .*: verified`));
    assert.match(ok.stdout, /matches.csv: as the receipts and the catalogue give it/);
    assert.match(ok.stdout, /^verified: \d+ checks .* compared with the service$/m);

    // The last digit of product 10's UPC (row 11), in the first chunk.
    const offset = catalogue.csv.indexOf(testUpc(10)) + 11;
    const restore = flipByte(csvPath, offset);
    try {
      const bad = await runCli(['verify', out, '--catalogue', csvPath], env);
      assert.equal(bad.code, 1, bad.stdout + bad.stderr);
      assert.match(bad.stdout, /catalogue catalogue.csv: NOT the catalogue of the run/);
      assert.match(
        bad.stdout,
        new RegExp(`check ${chunks[0].check_id}, chunk 1 .*: NOT verified: submitted_digest recomputed`),
      );
      assert.match(bad.stdout, new RegExp(`check ${chunks[1].check_id}, chunk 2 .*: verified`));
      assert.match(bad.stdout, /^NOT verified/m);
    } finally {
      restore();
    }
    // A byte outside every identifier column: only the catalogue's SHA-256 can tell.
    const restoreText = flipByte(csvPath, catalogue.csv.indexOf('TEST PRODUCT 2,') + 13);
    try {
      const bad = await runCli(['verify', out, '--catalogue', csvPath, '--offline'], env);
      assert.equal(bad.code, 1, bad.stdout);
      assert.match(bad.stdout, /NOT the catalogue of the run/);
    } finally {
      restoreText();
    }
  });

  test('verify fails after one byte of a saved receipt changes', async () => {
    const out = join(dir, 'run-1');
    const first = readJson(join(out, 'run.json')).chunks[0];
    const path = join(out, 'receipts', `${first.check_id}.json`);
    const text = readFileSync(path, 'utf8');
    const restore = flipByte(path, text.indexOf('TEST RECORD TEST-A') + 'TEST RECORD TEST-'.length);
    try {
      const bad = await runCli(['verify', out, '--catalogue', csvPath], env);
      assert.equal(bad.code, 1, bad.stdout + bad.stderr);
      assert.match(
        bad.stdout,
        new RegExp(`check ${first.check_id}, chunk 1 .*: NOT verified: .*changed since the run`),
      );
      assert.match(bad.stdout, /differs from the service's at data\.matches\[\d+\]\.title/);
    } finally {
      restore();
    }
    const restoreMeta = flipByte(path, text.indexOf('"count":1') + 8);
    try {
      const bad = await runCli(['verify', out, '--catalogue', csvPath, '--offline'], env);
      assert.equal(bad.code, 1, bad.stdout);
      assert.match(bad.stdout, /changed since the run/);
    } finally {
      restoreMeta();
    }
    assert.equal((await runCli(['verify', out, '--catalogue', csvPath], env)).code, 0);
  });

  test('a re-run after an answer was lost resumes: the service replays the receipt and charges nothing more', async () => {
    const out = join(dir, 'run-lost');
    cpSync(join(dir, 'run-1'), out, { recursive: true });
    // The state of a run killed after sending chunk 2 and before saving its answer.
    const record = readJson(join(out, 'run.json'));
    const lost = record.chunks[1];
    rmSync(join(out, 'receipts', `${lost.check_id}.json`));
    Object.assign(lost, { status: 'pending', check_id: null, receipt_sha256: null });
    record.status = 'partial';
    writeFileSync(join(out, 'run.json'), JSON.stringify(record));
    const before = await usage(s, key);

    const again = await check(out, '--label', 'TEST SHOP');
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /resuming run .*: 1 of \d+ chunks to check/);
    assert.match(again.stdout, /1 answered by replaying an earlier send, not charged again/);
    const resumed = readJson(join(out, 'run.json'));
    assert.equal(resumed.status, 'complete');
    assert.equal(resumed.chunks[1].check_id, readJson(join(dir, 'run-1', 'run.json')).chunks[1].check_id);
    assert.equal(resumed.chunks[1].replayed, true);
    assert.equal(
      readFileSync(join(out, 'matches.csv'), 'utf8'),
      readFileSync(join(dir, 'run-1', 'matches.csv'), 'utf8'),
    );
    assert.deepEqual(await usage(s, key), before, 'a replay is not charged');

    const done = await check(out, '--label', 'TEST SHOP');
    assert.equal(done.code, 0);
    assert.match(done.stdout, /already holds this run, complete; nothing to do/);
    const other = await check(out, '--label', 'ANOTHER LABEL');
    assert.equal(other.code, 2);
    assert.match(other.stderr, /holds another run: another --label/);
  });

  test('diff reports a recall ingested between two runs, per row, as text and JSON', async () => {
    await s.seed([testRecall('TEST-D', [identifier('upc', testUpc(2501))])], { sourceId: 'us-cpsc' });
    const out = join(dir, 'run-2');
    const run = await check(out, '--label', 'TEST SHOP');
    assert.equal(run.code, 0, run.stderr);

    const text = await runCli(['diff', join(dir, 'run-1'), out], env);
    assert.equal(text.code, 1, text.stdout + text.stderr);
    assert.match(text.stdout, /rows paired by row id/);
    assert.match(
      text.stdout,
      /^Matched now and not before:\n\+ row 2502 \(TEST-SKU-2501\): \S+ "TEST RECORD TEST-D" \[high, US, 2024-01-10\] via upc \d{12} /m,
    );
    assert.match(text.stdout, /1 recall match\(es\) new, 0 gone\./);

    const asJson = await runCli(['diff', join(dir, 'run-1'), out, '--json'], env);
    assert.equal(asJson.code, 1);
    const d = JSON.parse(asJson.stdout);
    assert.equal(d.keyed_by, 'row_id');
    assert.deepEqual(d.removed, []);
    assert.deepEqual(
      d.added.map((c: any) => [c.row, c.row_id, c.title, c.matched_on]),
      [
        [
          2502,
          'TEST-SKU-2501',
          'TEST RECORD TEST-D',
          [{ kind: 'upc', value: testUpc(2501), normalized: `00${testUpc(2501)}` }],
        ],
      ],
    );
    const reverse = JSON.parse((await runCli(['diff', out, join(dir, 'run-1'), '--json'], env)).stdout);
    assert.deepEqual(reverse.added, []);
    assert.equal(reverse.removed.length, 1);

    const same = await runCli(['diff', join(dir, 'run-1'), join(dir, 'run-lost')], env);
    assert.equal(same.code, 0, same.stdout + same.stderr);
    assert.match(same.stdout, /0 recall match\(es\) new, 0 gone\./);
  });

  test('reads JSON lines (by --format) with a kind column; rows are line numbers', async () => {
    const path = join(dir, 'catalogue.txt');
    writeFileSync(
      path,
      [
        { sku: 'J-1', kind: 'model', code: 'TM 2' },
        {},
        { sku: 'J-3', kind: 'UPC', code: Number(testUpc(10)) },
        { sku: 'J-4', kind: 'lot', code: null },
      ]
        .map((o) => JSON.stringify(o))
        .join('\n'),
    );
    const out = join(dir, 'run-jsonl');
    const args = [
      '--format',
      'jsonl',
      '--kind-column',
      'kind',
      '--value-column',
      'code',
      '--id-column',
      'sku',
    ];
    const run = await runCli(['check', path, '--out', out, ...args], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Checked 4 rows of catalogue.txt: 2 distinct identifiers in 1 checks/);
    const lines = parse(readFileSync(join(out, 'matches.csv'), 'utf8'), { columns: true }) as Record<
      string,
      string
    >[];
    assert.deepEqual(
      lines.map((l) => [l.row, l.row_id, l.kind, l.value, l.recall_id]),
      [['3', 'J-3', 'upc', String(Number(testUpc(10))), recallIds['TEST-A']]],
    );
    assert.equal((await runCli(['verify', out, '--catalogue', path], env)).code, 0);
  });

  // About 30 commands: up to 99 s measured on a loaded machine (docs/development.md, test timeouts).
  test(
    'bad arguments and catalogues get a clear message and exit 2, and nothing is sent or written',
    { timeout: 400_000 },
    async () => {
      const before = await usage(s, key);
      const out = join(dir, 'never');
      const cases: [string[], RegExp][] = [
        [['check', csvPath, ...mapping], /required option '--out <dir>'/],
        [['check', csvPath, '--out', out, '--column', 'sku=UPC'], /unknown kind "sku"/],
        [['check', csvPath, '--out', out], /name the identifier columns/],
        [
          ['check', csvPath, '--out', out, '--column', 'upc=Barcode'],
          /no column "Barcode" in the header; its columns are: "sku", "Description", "UPC", "Model No"/,
        ],
        [['check', csvPath, '--out', out, ...mapping, '--format', 'xlsx'], /argument 'xlsx' is invalid/],
        [['check', csvPath, '--out', dir, ...mapping], /is not empty and holds no run.json/],
        [['verify', join(dir, 'nowhere'), '--catalogue', csvPath], /holds no run.json/],
        [
          ['verify', join(dir, 'run-1'), '--catalogue', join(dir, 'missing.csv')],
          /missing.csv does not exist/,
        ],
        [['diff', join(dir, 'run-1')], /missing required argument 'new_dir'/],
      ];
      for (const [args, message] of cases) {
        const r = await runCli(args, env);
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, message, args.join(' '));
      }
      const noKey = await runCli(['check', csvPath, '--out', out, ...mapping], {
        RECALLS_URL: s.url,
        RECALLS_KEY: '',
      });
      assert.equal(noKey.code, 2);
      assert.match(noKey.stderr, /no API key: pass --key or set RECALLS_KEY/);

      const broken = join(dir, 'broken.csv');
      writeFileSync(broken, 'sku,UPC\nA,123\nB,"456\nC,789\n');
      const malformed = await runCli(['check', broken, '--out', out, '--column', 'upc=UPC'], env);
      assert.equal(malformed.code, 2);
      assert.match(
        malformed.stderr,
        /broken.csv: malformed CSV: row 3 opens a quote that is never closed; nothing was sent/,
      );
      const ragged = join(dir, 'ragged.csv');
      writeFileSync(ragged, 'sku,UPC\nA,123\nB,456,extra\n');
      const r = await runCli(['check', ragged, '--out', out, '--column', 'upc=UPC'], env);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /expect 2, got 3 on line 3/);
      assert.equal(existsSync(out), false, 'nothing written');
      assert.deepEqual(await usage(s, key), before, 'nothing sent');
    },
  );
});

describe('recalls check when the monthly quota runs out midway', () => {
  let s: TestService;
  let dir: string;
  let now = new Date('2026-06-30T23:00:00Z');
  let recallId: string;

  before(async () => {
    s = await startService({ env: { RECALLS_PLAN_SCALE_IDENTIFIERS: '2000' }, clock: () => now });
    dir = mkdtempSync(join(tmpdir(), 'recalls-quota-'));
    await s.seed([testRecall('TEST-Q', [identifier('upc', testUpc(2100))])]);
    const page = await json(await s.request('/v1/recalls', { key: await s.key('free') }));
    recallId = page.data[0].id;
  });
  after(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a refused key stops the run saying to give a valid key; a service not answering is named by its address', async () => {
    mkdirSync(join(dir, 'in-key'), { recursive: true });
    const csv = join(dir, 'in-key', 'upcs.csv');
    writeFileSync(csv, ['UPC', testUpc(1)].join('\n'));
    const args = ['check', csv, '--out', join(dir, 'run-key'), '--column', 'upc=UPC'];
    const refused = await runCli(args, { RECALLS_URL: s.url, RECALLS_KEY: 'rk_live_notakey' });
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /Stopped: the service refused the key \(401 /);
    assert.match(refused.stderr, /Give a valid key \(--key or RECALLS_KEY/);
    assert.doesNotMatch(refused.stderr, /Run the same command again to resume/);

    // A port nothing listens on: the first wait before a retry names the address and the setting.
    const nowhere = 'http://127.0.0.1:9';
    const run = startCli([...args.slice(0, 3), join(dir, 'run-nowhere'), ...args.slice(4)], {
      RECALLS_URL: nowhere,
      RECALLS_KEY: 'rk_live_notakey',
    });
    try {
      await until(
        () => run.errors().includes(`no answer from ${nowhere} (--url or RECALLS_URL): waiting`),
        () => `the address to be named; stderr: ${run.errors()}`,
        { timeoutMs: 20_000 },
      );
    } finally {
      run.child.kill('SIGKILL');
      await run.done;
    }
  });

  test('a 402 stops the run saying which rows were checked; it resumes once the quota allows and completes', async () => {
    mkdirSync(join(dir, 'in'));
    const csv = join(dir, 'in', 'upcs.csv');
    writeFileSync(csv, ['UPC', ...Array.from({ length: 2500 }, (_, i) => testUpc(i + 1))].join('\n'));
    const key = await s.key('scale');
    const env = { RECALLS_URL: s.url, RECALLS_KEY: key };
    const out = join(dir, 'run');
    const args = ['check', csv, '--out', out, '--column', 'upc=UPC'];

    const stopped = await runCli(args, env);
    assert.equal(stopped.code, 3, stopped.stderr);
    assert.match(
      stopped.stderr,
      /Stopped: the key's monthly quota is exhausted \(402 \/problems\/quota-exceeded: /,
    );
    // Consecutive chunks are named as one range, however many a large catalogue has.
    assert.match(stopped.stderr, /Checked 2 of 3 chunks: 1–2 \(rows 2–2001\)\./);
    assert.match(stopped.stderr, /Not checked: 3 \(rows 2002–2501\)\./);
    const partial = readJson(join(out, 'run.json'));
    assert.equal(partial.status, 'partial');
    assert.equal(partial.stopped.reason, 'quota_exceeded');
    assert.equal(partial.stopped.status, 402);
    assert.deepEqual(
      partial.chunks.map((c: any) => c.status),
      ['checked', 'checked', 'pending'],
    );
    assert.equal(readdirSync(join(out, 'receipts')).length, 2);
    assert.deepEqual(matchedRows(out), [], 'product 2100 is in the unchecked rows');
    const offline = await runCli(['verify', out, '--catalogue', csv, '--offline'], env);
    assert.equal(offline.code, 0, offline.stdout);
    assert.match(offline.stdout, /chunk 3 \(rows 2002–2501\): not checked \(the run is partial\)/);
    const diff = await runCli(['diff', out, out], env);
    assert.equal(diff.code, 2);
    assert.match(diff.stderr, /is a partial run \(rows 2002–2501 not checked\)/);

    now = new Date('2026-07-01T00:30:00Z');
    const resumed = await runCli(args, env);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /resuming run .*: 1 of 3 chunks to check/);
    const complete = readJson(join(out, 'run.json'));
    assert.equal(complete.status, 'complete');
    assert.equal(complete.stopped, null);
    assert.deepEqual(matchedRows(out), [`2101 ${recallId} upc`]);
    assert.deepEqual(await usage(s, key, '2026-06'), { requests: 2, identifiers: 2000 });
    // chunks 1 and 2 not sent again
    await usageReaches(s, key, { requests: 1, identifiers: 500 }, '2026-07');
    assert.deepEqual(await usage(s, key, '2026-07'), { requests: 1, identifiers: 500 });
  });
});
