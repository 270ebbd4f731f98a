/** Renders bench/RESULTS.md from every saved run (bench/results/*.json), each figure against its target. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { CorpusInfo } from './corpus.ts';
import type { LoadResult } from './processes.ts';

/** One row of a run: its load figures (`cpuUs` absent in runs saved before it was measured) and more. */
export interface Row extends Omit<LoadResult, 'cpuUs'> {
  name: string;
  nodes: number;
  serverP50?: number;
  serverP99?: number;
  clientP50?: number;
  clientP99?: number;
  /** The bare route's req/s measured right before this row, with the same settings (and the same bytes). */
  bareRps?: number;
  /** Size of the body the bare route served: the node's answer for this row. */
  bareBytes?: number;
  /** The same row on a node whose scale quota is unmetered (otherwise the default configuration). */
  unmetered?: { rps: number; cpuUs: number; latencyP50: number; unexpected: number };
  /**
   * The same bare route writing the service's request log line (its logger, controller and request ids),
   * measured right after the bare route: the floor of any service that logs each request by default.
   */
  loggedBareRps?: number;
  loggedBareCpuUs?: number;
  /** Server CPU time per request (user + system, µs), of the service and of the bare route. */
  cpuUs?: number;
  bareCpuUs?: number;
}

export interface IngestResult {
  engine: string;
  full: { seconds: number; records: number; rate: number; inserted: number; written: Record<string, number> };
  noChange: {
    seconds: number;
    records: number;
    rate: number;
    unchanged: number;
    written: Record<string, number>;
    contentUnchanged: boolean;
    everyLastSeenMoved: boolean;
    holds: boolean;
  };
  /** Records/s of the adapter's parse + normalise alone, and of canonical content + hash alone. */
  parts?: { parseRate: number; hashRate: number };
  corpus: { recalls: number; identifiers: number; revisions: number };
  peakRssBytes: number;
}

export interface RunResult {
  engine: 'sqlite' | 'postgres';
  corpus: string;
  corpusInfo: CorpusInfo;
  startedAt: string;
  machine: {
    cpu: string;
    cores: number;
    memoryGiB: number;
    node: string;
    platform: string;
    loadAverageAtStart: string;
  };
  settings: {
    connections: number;
    pipelining: number;
    warmupSeconds: number;
    durationSeconds: number;
    /** How the service was configured (absent in runs made before it was recorded). */
    service?: string;
  };
  command: string;
  rows: Row[];
  /** Peak RSS of the service as deployed, of the node without the answer cache, of the bare server. */
  rss: { service: number; uncached?: number; bare: number };
  ingest: IngestResult | undefined;
}

const MB = 1024 * 1024;
const f0 = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(0));
const f2 = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(2));
const judge = (ok: boolean) => (ok ? '**met**' : '**missed**');

const ratioOf = (r: Row | undefined) => (r?.bareRps === undefined ? NaN : r.rps / r.bareRps);

/** The service configuration of the headline rows. */
export const SERVICE_CONFIGURATION =
  'the default configuration, as `npm start` runs it (a `scale` key, its 1,000,000-request monthly quota metered, a fresh key per row and node; default log level, the request log written to /dev/null); "unmetered" is the same with `RECALLS_PLAN_SCALE_REQUESTS=unmetered`; loopback burst-exempt';

/** The configuration of runs saved before the harness recorded it. */
const OLD_CONFIGURATION =
  'service with LOG_LEVEL=warn, scale key with RECALLS_PLAN_SCALE_REQUESTS=unmetered, loopback burst-exempt; the bare route answering a small JSON object';

/** The logged bare route's req/s over the bare route's: the most a service with the request log can reach. */
const ratioLogged = (r: Row | undefined) =>
  r?.bareRps === undefined || r.loggedBareRps === undefined ? NaN : r.loggedBareRps / r.bareRps;

const ratioUnmetered = (r: Row | undefined) =>
  r?.bareRps === undefined || r.unmetered === undefined ? NaN : r.unmetered.rps / r.bareRps;

function table(run: RunResult): string[] {
  const out = [
    '| scenario | nodes | req/s (median) | bare route req/s, same bytes (bytes) | ratio to bare | unmetered: req/s, ratio | bare route with the request log: req/s, ratio to bare | server CPU µs/request (bare; unmetered; bare with the log) | latency p50 / p99 (ms) | server time p50 / p99 (ms, 1 connection) | client time p50 (ms, 1 connection) | unexpected answers |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of run.rows) {
    const u = r.unmetered;
    out.push(
      `| ${r.name} | ${r.nodes} | ${f0(r.rps)} | ${f0(r.bareRps)}${r.bareBytes === undefined ? '' : ` (${r.bareBytes})`} | ${ratioOf(r).toFixed(2)} | ${u === undefined ? '–' : `${f0(u.rps)}, ${ratioUnmetered(r).toFixed(2)}`} | ${r.loggedBareRps === undefined ? '–' : `${f0(r.loggedBareRps)}, ${ratioLogged(r).toFixed(2)}`} | ${f0(r.cpuUs)} (${f0(r.bareCpuUs)}; ${f0(u?.cpuUs)}${r.loggedBareCpuUs === undefined ? '' : `; ${f0(r.loggedBareCpuUs)}`}) | ${r.latencyP50} / ${r.latencyP99} | ${f2(r.serverP50)} / ${f2(r.serverP99)} | ${f2(r.clientP50)} | ${r.unexpected + (u?.unexpected ?? 0)} |`,
    );
  }
  return out;
}

/** Marks the rows measured on a node with the answer cache off (they repeat one URL). */
export const CACHE_OFF = ' (answer cache off)';

/** The lookup rows that ask for a different identifier every time (nothing repeated, nothing cached). */
export const NEW_HIT = 'lookup, hit, a new identifier each request';
export const NEW_MISS = 'lookup, miss, a new identifier each request';
export const NOT_MODIFIED = 'lookup, 304 (If-None-Match)';
export const CHECK = 'POST /v1/checks, 1000 identifiers';

/**
 * Each standing target against its figure. The ratio targets to the bare route are withdrawn: the headline
 * rows are a guard, held by serving the old and the new commit alternately (`npm run bench:ab`), and the
 * ratios stay in the table above for reference. A PostgreSQL run is judged as information only.
 */
function targets(run: RunResult): string[] {
  const get = (name: string) => run.rows.find((r) => r.name === name && r.nodes === 1);
  const judged = run.engine === 'sqlite';
  const verdict = (ok: boolean) => (judged ? judge(ok) : ok ? 'within' : 'beyond');
  const lines = ['| target | figure | verdict |', '| --- | --- | --- |'];
  const check = get(CHECK);
  if (check?.serverP50 !== undefined)
    lines.push(
      `| 1000-identifier check: median server time ≤ 3 ms | ${f2(check.serverP50)} ms (p99 ${f2(check.serverP99)} ms; client-side ${f2(check.clientP50)} ms) | ${verdict(check.serverP50 <= 3)} |`,
    );
  const p1 = get(`GET /v1/recalls page 1${CACHE_OFF}`);
  const p1000 = get(`GET /v1/recalls page 1000${CACHE_OFF}`);
  if (p1?.cpuUs !== undefined && p1000?.cpuUs !== undefined) {
    const byCpu = p1000.cpuUs / p1.cpuUs;
    lines.push(
      `| page 1000 of a walk ≤ 1.2 × page 1 | server CPU per request ${f0(p1000.cpuUs)} vs ${f0(p1.cpuUs)} µs (×${byCpu.toFixed(2)}); ` +
        `req/s ${f0(p1000.rps)} vs ${f0(p1.rps)} (time ×${(p1.rps / p1000.rps).toFixed(2)}); server time p50 ${f2(p1000.serverP50)} vs ${f2(p1.serverP50)} ms | ${verdict(byCpu <= 1.2)} |`,
    );
  }
  if (run.ingest) {
    const i = run.ingest;
    lines.push(
      `| ingest ≥ 10 000 records/s including rendering (${i.engine}) | full build ${f0(i.full.rate)}/s (${i.full.records} records in ${i.full.seconds.toFixed(1)} s); no-change re-ingest ${f0(i.noChange.rate)}/s` +
        (i.parts === undefined
          ? ''
          : `; alone: the adapter's parse + normalise ${f0(i.parts.parseRate)}/s, canonical content + hash ${f0(i.parts.hashRate)}/s`) +
        ` | ${verdict(i.full.rate >= 10_000 && i.noChange.rate >= 10_000)} |`,
    );
    const written = Object.entries(i.noChange.written)
      .map(([t, n]) => `${t} ${n}`)
      .join(', ');
    lines.push(
      `| no-change re-ingest writes no row but last_seen_at | stored content identical (digest of every column but last_seen_at), every last_seen_at moved${written === '' ? '' : `; rows written: ${written}`} | ${verdict(i.noChange.holds)} |`,
    );
  }
  lines.push(
    `| server RSS ≤ 300 MB | peak ${f0(run.rss.service / MB)} MB` +
      (run.rss.uncached === undefined
        ? ''
        : `; the node without the answer cache ${f0(run.rss.uncached / MB)} MB`) +
      ` (bare server ${f0(run.rss.bare / MB)} MB) | ${verdict(Math.max(run.rss.service, run.rss.uncached ?? 0) <= 300 * MB)} |`,
  );
  return lines;
}

/** Before/after rows: a run of the code before the performance work (results/before/), same harness. */
function comparison(run: RunResult, before: RunResult): string[] {
  const out = [
    `### Before and after`,
    '',
    `Before: ${before.command}; run at ${before.startedAt}, load average at start ${before.machine.loadAverageAtStart}.`,
    '',
    '| scenario | req/s before → now | ratio to bare before → now | server CPU µs/request before → now | client time p50 (ms, 1 connection) before → now |',
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  for (const r of run.rows.filter((x) => x.nodes === 1)) {
    const b = before.rows.find(
      (x) => x.name.replace(CACHE_OFF, '') === r.name.replace(CACHE_OFF, '') && x.nodes === 1,
    );
    if (b === undefined) continue;
    out.push(
      `| ${r.name} | ${f0(b.rps)} → ${f0(r.rps)} | ${ratioOf(b).toFixed(2)} → ${ratioOf(r).toFixed(2)} | ${f0(b.cpuUs)} → ${f0(r.cpuUs)} | ${f2(b.clientP50)} → ${f2(r.clientP50)} |`,
    );
  }
  if (before.ingest && run.ingest) {
    out.push(
      `| ingest, full build (records/s) | ${f0(before.ingest.full.rate)} → ${f0(run.ingest.full.rate)} | | | |`,
      `| ingest, no-change re-ingest (records/s) | ${f0(before.ingest.noChange.rate)} → ${f0(run.ingest.noChange.rate)} | | | |`,
    );
  }
  return out;
}

function readRuns(dir: string): RunResult[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(`${dir}/${f}`, 'utf8')) as RunResult);
}

export function renderResults(dir: string): string {
  const befores = readRuns(`${dir}/before`);
  const runs = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(`${dir}/${f}`, 'utf8')) as RunResult)
    .sort((a, b) => (a.engine === b.engine ? 0 : a.engine === 'sqlite' ? -1 : 1));
  const out: string[] = [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (bench/run.ts) from the runs saved in bench/results/; see bench/README.md for',
    'what each row does. Load generator: autocannon in the benchmark process, on loopback, the same settings',
    'for every row. req/s is the median of the per-second counts; "ratio to bare" divides by the bare',
    'Fastify JSON route measured right before that row with the same settings (the machine is shared, so',
    'its load drifts between rows). "bare route with the request log" is the same route writing the service\'s',
    'request log line, measured right after it: the most a service that logs each request can reach.',
    "Server time is the service's own `Server-Timing`",
    '(onRequest to onSend), read over sequential requests on one connection after the load row.',
    '',
  ];
  for (const run of runs) {
    const c = run.corpusInfo;
    out.push(
      `## ${run.engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, ${run.corpus} corpus`,
      '',
      `- corpus: ${c.records.toLocaleString('en')} recalls, ${c.identifiers.toLocaleString('en')} identifiers, ${c.revisions.toLocaleString('en')} revisions (generator v${c.generator}, seed ${c.seed}, built in ${c.buildSeconds.toFixed(0)} s)`,
      `- machine: ${run.machine.cpu}, ${run.machine.cores} cores, ${run.machine.memoryGiB} GiB; ${run.machine.platform}; Node ${run.machine.node}; load average at start ${run.machine.loadAverageAtStart}`,
      `- settings: ${run.settings.connections} connections, pipelining ${run.settings.pipelining}, ${run.settings.warmupSeconds} s warm-up then ${run.settings.durationSeconds} s per row; ${run.settings.service ?? OLD_CONFIGURATION}`,
      `- command: \`${run.command}\` (run at ${run.startedAt})`,
      '',
      ...table(run),
      '',
      ...targets(run),
      '',
    );
    const before = befores.find((b) => b.engine === run.engine && b.corpus === run.corpus);
    if (before !== undefined) out.push(...comparison(run, before), '');
  }
  out.push('What bounds each target, and how the headline rows are guarded: [BOUNDS.md](BOUNDS.md).');
  return `${out.join('\n')}\n`;
}
