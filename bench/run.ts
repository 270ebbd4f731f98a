/**
 * `npm run bench [-- --corpus 2m|200k --engine sqlite|postgres]`: builds (or reuses) the
 * synthetic corpus, starts the service (`recalls serve`, one or two nodes) and a bare Fastify
 * server as separate processes, drives each scenario with autocannon from this process, runs the
 * ingest benchmark, and writes bench/results/<engine>-<corpus>.json and bench/RESULTS.md.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { SQLite, pgClient } from './lib/drivers.ts';
import { parseSize, sizeLabel, type CorpusInfo, type Engine } from './lib/corpus.ts';
import { ensureOpenFdaMirror } from './lib/openfda-mirror.ts';
import { BENCH_DIR, BIN, ROOT } from './lib/paths.ts';
import {
  CACHE_OFF,
  CHECK,
  NEW_HIT,
  NEW_MISS,
  NOT_MODIFIED,
  renderResults,
  SERVICE_CONFIGURATION,
  type Row,
  type RunResult,
} from './lib/report.ts';
import { Rng } from './lib/synthetic.ts';
import { gs1CheckDigit } from '../src/domain/identifiers/gs1-check-digits.ts';
import { ensureCorpus } from './generate.ts';
import { corpusPathOf } from '../src/store/engines/sqlite-files.ts';
import {
  fetchOnce,
  load,
  peakRss,
  startProcess,
  stop,
  walkTo,
  withKey,
  type LoadSettings,
  type Proc,
  type Scenario,
} from './lib/processes.ts';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string', default: '2m' },
    engine: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    'ingest-records': { type: 'string', default: '200000' },
    'skip-ingest': { type: 'boolean', default: false },
    rebuild: { type: 'boolean', default: false },
    'render-only': { type: 'boolean', default: false },
  },
});
const engine = values.engine as Engine;
if (engine !== 'sqlite' && engine !== 'postgres') throw new Error('--engine sqlite|postgres');
const records = parseSize(values.corpus!);
const DURATION = Number(values.duration);
const WARMUP = Number(values.warmup);
const CONNECTIONS = Number(values.connections);
const log = (m: string) => process.stderr.write(`${m}\n`);

/** A server process of this checkout, its log in bench/corpus/logs/<logName>.log. */
const start = (
  args: string[],
  env: Record<string, string>,
  probe: string,
  logName: string,
  discardStdout = false,
) =>
  startProcess({ args, env, probe, cwd: ROOT, logDir: `${BENCH_DIR}/corpus/logs`, logName, discardStdout });

/** Sequential requests (one connection) reading the service's Server-Timing: time inside the server. */
async function serverTimes(url: string, s: Scenario, n: number) {
  const server: number[] = [];
  const client: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await fetchOnce(url, s);
    await r.arrayBuffer();
    client.push(performance.now() - t0);
    const m = /dur=([\d.]+)/.exec(r.headers.get('server-timing') ?? '');
    if (m) server.push(Number(m[1]));
  }
  const q = (xs: number[], p: number) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
  };
  return {
    serverP50: q(server, 0.5),
    serverP99: q(server, 0.99),
    clientP50: q(client, 0.5),
    clientP99: q(client, 0.99),
  };
}

/** What a node answered: set on the bare server so that its route serves the same bytes. */
interface Answer {
  status: number;
  type: string;
  body: string;
}

async function answerOf(url: string, s: Scenario, path: string): Promise<Answer> {
  const r = await fetchOnce(url, s, path);
  return {
    status: r.status,
    type: r.headers.get('content-type') ?? 'application/json',
    body: await r.text(),
  };
}

/**
 * The row's answer as the node gives it; for a row asking something new each time, the median-sized of 21
 * answers. The bare server is set to serve exactly these bytes.
 */
async function captureAnswer(url: string, s: Scenario): Promise<Answer> {
  if (s.nextPath === undefined) return answerOf(url, s, s.path);
  const answers: Answer[] = [];
  for (let i = 0; i < 21; i++) answers.push(await answerOf(url, s, s.nextPath()));
  return answers.sort((a, b) => a.body.length - b.body.length)[10]!;
}

/** The nodes one row is measured on: the default configuration, and the same with the quota unmetered. */
interface Target {
  metered: Proc;
  unmetered?: Proc;
}

/** How every row is loaded. */
const SETTINGS: LoadSettings = { connections: CONNECTIONS, warmupSeconds: WARMUP, durationSeconds: DURATION };

/** The bare routes a row is measured against: without any log, and with the service's request log line. */
interface Bare {
  plain: Proc;
  logged: Proc;
}

/** Sets a bare server's route to serve `answer`. */
async function serveOnBare(bare: Proc, answer: Answer): Promise<void> {
  const set = await fetch(`${bare.url}/answer`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(answer),
  });
  if (!set.ok) throw new Error(`bare server refused the answer: ${set.status}`);
}

/**
 * One row: the bare route serving the bytes the node answers for this row, the same route writing the
 * service's request log line, then the scenario on the node in its default configuration, then on the node
 * with the quota unmetered, back to back with the same settings, so that the ratios compare runs made under
 * the same conditions (other load on the machine drifts).
 */
async function measure(
  targets: Target[],
  scenario: Scenario,
  withTimes: boolean,
  keys: RowKeys,
  bare?: Bare,
): Promise<Row> {
  const metered = targets.map((t) => t.metered);
  const s = await withKey(scenario, metered[0]!, keys.metered);
  const floors: Pick<Row, 'bareRps' | 'bareCpuUs' | 'bareBytes' | 'loggedBareRps' | 'loggedBareCpuUs'> = {};
  if (bare !== undefined) {
    const answer = await captureAnswer(metered[0]!.url, s);
    floors.bareBytes = Buffer.byteLength(answer.body);
    const onBare = { ...s, path: '/bare', nextPath: undefined };
    await serveOnBare(bare.plain, answer);
    const b = await load([bare.plain], onBare, SETTINGS);
    floors.bareRps = b.rps;
    floors.bareCpuUs = b.cpuUs;
    await serveOnBare(bare.logged, answer);
    const l = await load([bare.logged], onBare, SETTINGS);
    floors.loggedBareRps = l.rps;
    floors.loggedBareCpuUs = l.cpuUs;
  }
  const m = await load(metered, s, SETTINGS);
  const row: Row = { name: s.name, nodes: metered.length, ...m, ...floors };
  const { bareRps, bareBytes } = floors;
  const unmetered = targets.map((t) => t.unmetered).filter((t) => t !== undefined);
  if (unmetered.length === targets.length) {
    const u = await load(unmetered, await withKey(scenario, unmetered[0]!, keys.unmetered), SETTINGS);
    row.unmetered = { rps: u.rps, cpuUs: u.cpuUs, latencyP50: u.latencyP50, unexpected: u.unexpected };
  }
  if (withTimes) Object.assign(row, await serverTimes(metered[0]!.url, s, s.method === 'POST' ? 100 : 300));
  log(
    `  ${s.name.padEnd(34)} ${row.rps.toFixed(0).padStart(7)} req/s  p50 ${row.latencyP50} ms  p99 ${row.latencyP99} ms` +
      (bareRps === undefined
        ? ''
        : `  bare ${bareRps.toFixed(0)} req/s, ${bareBytes} B (ratio ${(row.rps / bareRps).toFixed(2)}` +
          (row.unmetered === undefined ? '' : `, unmetered ${(row.unmetered.rps / bareRps).toFixed(2)}`) +
          `; bare with the request log ${(floors.loggedBareRps! / bareRps).toFixed(2)}` +
          ')') +
      `  cpu ${row.cpuUs!.toFixed(0)} us/req (bare ${row.bareCpuUs?.toFixed(0)})` +
      (row.serverP50 === undefined ? '' : `  server p50 ${row.serverP50.toFixed(2)} ms`) +
      (row.unexpected > 0 ? `  (${row.unexpected} unexpected answers)` : ''),
  );
  return row;
}

/** About 300 000 stored identifiers drawn evenly from the whole table (not its first rows). */
const POOL_QUERY =
  engine === 'sqlite'
    ? "SELECT kind, value, recall_id FROM identifiers WHERE rowid % 32 = 7 AND kind IN ('upc', 'ean', 'gtin', 'model', 'lot', 'ndc', 'batch')"
    : "SELECT kind, value, recall_id FROM identifiers TABLESAMPLE SYSTEM (3) REPEATABLE (7) WHERE kind IN ('upc', 'ean', 'gtin', 'model', 'lot', 'ndc', 'batch')";

/**
 * Reads the whole corpus once so that the operating system's cache holds it, as it does on a
 * server that has been answering for a while (this machine's memory fits a 2 M corpus): the
 * rows then measure the service, not which pages an earlier run happened to leave cached.
 */
async function warmCache(info: CorpusInfo): Promise<void> {
  const t0 = performance.now();
  let bytes = 0;
  if (engine === 'sqlite') {
    const buffer = Buffer.allocUnsafe(8 << 20);
    const corpus = corpusPathOf(info.location);
    for (const file of [info.location, `${info.location}-wal`, corpus, `${corpus}-wal`]) {
      if (!existsSync(file)) continue;
      const fd = openSync(file, 'r');
      for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0;) bytes += n;
      closeSync(fd);
    }
  } else {
    const client = pgClient(info.location);
    await client.connect();
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_prewarm');
    const { rows } = await client.query<{ blocks: string }>(
      "SELECT sum(pg_prewarm(c.oid::regclass, 'read')) AS blocks FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i')",
    );
    await client.end();
    bytes = Number(rows[0]?.blocks ?? 0) * 8192;
  }
  log(
    `read the corpus once into the OS cache: ${(bytes / 2 ** 30).toFixed(1)} GiB in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
}

/** Identifier rows read from the corpus itself. */
async function corpusRows(info: CorpusInfo, query: string) {
  type IdentifierRow = { kind: string; value: string; recall_id: string };
  if (engine === 'sqlite') {
    const db = new SQLite(corpusPathOf(info.location), { readonly: true });
    const rows = db.prepare(query).all() as IdentifierRow[];
    db.close();
    return rows;
  }
  const client = pgClient(info.location);
  await client.connect();
  const rows = (await client.query(query)).rows as IdentifierRow[];
  await client.end();
  return rows;
}

/** Identifiers to look up and check, read from the corpus itself. */
async function fixtures(info: CorpusInfo) {
  const query =
    "SELECT i.kind, i.value, i.recall_id FROM identifiers i WHERE i.kind IN ('upc', 'ean', 'gtin', 'model', 'lot', 'ndc', 'batch') AND i.recall_id IN (SELECT id FROM recalls WHERE sort_date > '2020' ORDER BY id LIMIT 400 OFFSET 5000)";
  const rows = await corpusRows(info, query);
  const hit = rows.find((r) => r.kind === 'upc') ?? rows[0]!;
  const rng = new Rng(99);
  const missBody = `0${rng.digits(10)}`;
  const miss = `${missBody}${gs1CheckDigit(missBody)}`;
  const hits = rows.slice(0, 100).map((r) => ({ kind: r.kind, value: r.value }));
  const misses = Array.from({ length: 1000 - hits.length }, (_, i) =>
    i % 2 === 0
      ? { kind: 'lot', value: `ZZ${rng.digits(6)}Q` }
      : (() => {
          const b = `0${rng.digits(10)}`;
          return { kind: 'upc', value: `${b}${gs1CheckDigit(b)}` };
        })(),
  );
  // A different identifier for every request: ~300 000 stored identifiers in turn, and fresh
  // random GTINs, so that no answer is repeated within a row.
  const pool = (await corpusRows(info, POOL_QUERY)).map(
    (r) => `/v1/identifiers/${r.kind}/${encodeURIComponent(r.value)}`,
  );
  let turn = 0;
  return {
    nextHit: () => pool[turn++ % pool.length]!,
    nextMiss: () => {
      const b = `0${rng.digits(10)}`;
      return `/v1/identifiers/upc/${b}${gs1CheckDigit(b)}`;
    },
    hitPath: `/v1/identifiers/${hit.kind}/${encodeURIComponent(hit.value)}`,
    missPath: `/v1/identifiers/upc/${miss}`,
    recallId: hit.recall_id,
    check: JSON.stringify({ label: 'bench', identifiers: [...hits, ...misses] }),
  };
}

/**
 * A row's keys: one for the default node, another for the unmetered one. Unmetered usage is still counted,
 * so one key shared by both would spend the default node's 1,000,000 requests over the two runs of a row.
 */
interface RowKeys {
  metered: string;
  unmetered: string;
}

function rowKeys(databaseUrl: string): RowKeys {
  return { metered: issueKey(databaseUrl), unmetered: issueKey(databaseUrl) };
}

function issueKey(databaseUrl: string): string {
  const r = spawnSync(process.execPath, [BIN, 'keys', 'create', '--plan', 'scale', '--name', 'bench'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`keys create failed: ${r.stderr}`);
  return r.stdout.trim().split('\n').pop()!;
}

async function ingestBench(): Promise<RunResult['ingest']> {
  const n = Number(values['ingest-records']);
  const mirror = ensureOpenFdaMirror(`${BENCH_DIR}/corpus/mirror-${sizeLabel(n)}`, n);
  let database: string;
  let cleanup = async () => {};
  if (engine === 'sqlite') {
    database = `/tmp/recalls-bench-ingest-${process.pid}.db`;
    cleanup = async () => {
      for (const file of [database, corpusPathOf(database)])
        for (const s of ['', '-wal', '-shm']) spawnSync('rm', ['-f', `${file}${s}`]);
    };
  } else {
    const admin = pgClient(adminUrl());
    await admin.connect();
    await admin.query('DROP DATABASE IF EXISTS recalls_bench_ingest WITH (FORCE)');
    await admin.query('CREATE DATABASE recalls_bench_ingest');
    await admin.end();
    const u = new URL(adminUrl());
    u.pathname = '/recalls_bench_ingest';
    database = u.toString();
  }
  log(`ingest: ${n} openFDA records through the pipeline (full build, then no-change re-ingest)…`);
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', `${BENCH_DIR}/ingest.ts`, '--database', database, '--from', mirror],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, LOG_LEVEL: 'warn' },
      maxBuffer: 1 << 26,
    },
  );
  await cleanup();
  if (r.status !== 0) throw new Error(`ingest benchmark failed: ${r.stderr}`);
  const result = JSON.parse(r.stdout.trim().split('\n').pop()!) as NonNullable<RunResult['ingest']>;
  log(
    `  full build ${result.full.rate.toFixed(0)} records/s, no-change re-ingest ${result.noChange.rate.toFixed(0)} records/s, ` +
      `no row but last_seen_at written: ${result.noChange.holds}`,
  );
  return result;
}

function adminUrl(): string {
  return process.env.RECALLS_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

async function main(): Promise<void> {
  const started = new Date();
  const info = await ensureCorpus(engine, records, values.rebuild);
  await warmCache(info);
  const databaseUrl = info.location;
  const walkKey = issueKey(databaseUrl);
  // The default configuration, as `npm start` runs it: every plan metered (the scale key's 1,000,000
  // requests a month), the default log level; and the same with the scale quota unmetered, reported beside.
  const defaults = {
    DATABASE_URL: databaseUrl,
    RECALLS_INGEST_SCHEDULE: 'off',
    RECALLS_BURST_EXEMPT: '127.0.0.1',
    ...(engine === 'postgres' ? { REDIS_URL: 'redis://127.0.0.1:6379/6' } : {}),
  };
  const unmeteredEnv = { ...defaults, RECALLS_PLAN_SCALE_REQUESTS: 'unmetered' };
  const uncachedEnv = { RECALLS_ANSWER_CACHE_MB: '0' };
  const bareArgs = ['--import', 'tsx', `${BENCH_DIR}/bare-server.ts`];
  const bare: Bare = {
    plain: await start(bareArgs, {}, '/bare', 'bare'),
    // Its request log written to /dev/null, as the service's is.
    logged: await start(bareArgs, { BARE_REQUEST_LOG: '1' }, '/bare', 'bare-logged', true),
  };
  const serve = (env: Record<string, string>, name: string) =>
    start([BIN, 'serve'], env, '/v1/health', name, true);
  const service: Target = {
    metered: await serve(defaults, 'service-1'),
    unmetered: await serve(unmeteredEnv, 'service-unmetered'),
  };
  const f = await fixtures(info);
  log(`walking to page 1000 of GET /v1/recalls…`);
  const page1000 = await walkTo(service.metered.url, walkKey, 1000);

  const scenarios: Scenario[] = [
    { name: 'lookup, hit', path: f.hitPath, expect: 200 },
    { name: 'lookup, miss', path: f.missPath, expect: 200 },
    { name: NEW_HIT, path: f.hitPath, nextPath: f.nextHit, expect: 200 },
    { name: NEW_MISS, path: f.missPath, nextPath: f.nextMiss, expect: 200 },
    { name: NOT_MODIFIED, path: f.hitPath, conditional: true, expect: 304 },
    // These repeat one URL, which a node answers from its answer cache after the first time: run
    // them on a node without it, so that they measure the query (and the walk's depth).
    { name: `GET /v1/recalls page 1${CACHE_OFF}`, path: '/v1/recalls', expect: 200 },
    { name: `GET /v1/recalls page 1000${CACHE_OFF}`, path: page1000, expect: 200 },
    { name: `GET /v1/recalls/{id}${CACHE_OFF}`, path: `/v1/recalls/${f.recallId}`, expect: 200 },
    { name: CHECK, path: '/v1/checks', method: 'POST', body: f.check, expect: 201 },
  ];
  log(
    `${engine} ${sizeLabel(records)}: ${CONNECTIONS} connections, ${WARMUP} s warm-up, ${DURATION} s measured per row`,
  );
  const uncached: Target = {
    metered: await serve({ ...defaults, ...uncachedEnv }, 'service-uncached'),
    unmetered: await serve({ ...unmeteredEnv, ...uncachedEnv }, 'service-unmetered-uncached'),
  };
  const rows: Row[] = [];
  for (const s of scenarios)
    rows.push(
      await measure([s.name.endsWith(CACHE_OFF) ? uncached : service], s, true, rowKeys(databaseUrl), bare),
    );
  const rss = {
    service: Math.max(peakRss(service.metered), peakRss(service.unmetered!)),
    uncached: Math.max(peakRss(uncached.metered), peakRss(uncached.unmetered!)),
    bare: peakRss(bare.plain),
  };
  await stop(uncached.metered);
  await stop(uncached.unmetered!);

  if (engine === 'postgres') {
    const second: Target = {
      metered: await serve(defaults, 'service-2'),
      unmetered: await serve(unmeteredEnv, 'service-unmetered-2'),
    };
    for (const s of scenarios.filter((x) => x.name.startsWith('lookup, ') || x.name.startsWith('POST')))
      rows.push(await measure([service, second], s, false, rowKeys(databaseUrl), bare));
    rss.service = Math.max(rss.service, peakRss(second.metered), peakRss(second.unmetered!));
    await stop(second.metered);
    await stop(second.unmetered!);
  }
  await stop(service.metered);
  await stop(service.unmetered!);
  await stop(bare.plain);
  await stop(bare.logged);

  const ingest = values['skip-ingest'] ? undefined : await ingestBench();

  const result: RunResult = {
    engine,
    corpus: sizeLabel(records),
    corpusInfo: info,
    startedAt: started.toISOString(),
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      loadAverageAtStart: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
    },
    settings: {
      connections: CONNECTIONS,
      pipelining: 1,
      warmupSeconds: WARMUP,
      durationSeconds: DURATION,
      service: SERVICE_CONFIGURATION,
    },
    command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
    rows,
    rss,
    ingest,
  };
  mkdirSync(`${BENCH_DIR}/results`, { recursive: true });
  // Written in the project's Prettier style, so that `npm run check` passes with them committed.
  const style = (await resolveConfig(`${BENCH_DIR}/RESULTS.md`)) ?? {};
  const resultFile = `${BENCH_DIR}/results/${engine}-${sizeLabel(records)}.json`;
  writeFileSync(resultFile, await format(JSON.stringify(result), { ...style, parser: 'json' }));
  process.stdout.write(await render());
}

/** Writes RESULTS.md from the saved runs (and BOUNDS.md) in the project's Prettier style. */
async function render(): Promise<string> {
  const style = (await resolveConfig(`${BENCH_DIR}/RESULTS.md`)) ?? {};
  const markdown = await format(renderResults(`${BENCH_DIR}/results`), { ...style, parser: 'markdown' });
  writeFileSync(`${BENCH_DIR}/RESULTS.md`, markdown);
  return markdown;
}

if (values['render-only']) await render();
else await main();
