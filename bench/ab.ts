/**
 * `npm run bench:ab -- OLD NEW [--corpus 200k] [--rounds 3] [--rows a,b] [--ingest]`: the old and the
 * new commit served alternately on one machine in one run, each on its own copy of the same synthetic
 * SQLite corpus, in the default configuration (`recalls serve`, every plan metered, the default log
 * level). Each ref is checked out in a worktree under $TMPDIR/recalls-ab/ (`.` is this working tree,
 * edits included); each builds its corpus with its own generator, so a schema change between the two
 * is no obstacle; each is compiled (`npm run build`) and served from dist/. Every round measures every
 * row on both, back to back in alternating order, with a fresh key per row and node. Prints, per row,
 * the server's CPU time per request and req/s for each round, the means, the spread (the largest
 * difference between two rounds of one commit) and each round's difference (free of the drift between
 * rounds); a mean difference within the spread is no difference unless every round agrees on its sign.
 * `--rows` keeps the rows whose names contain one of the words; `--ingest` also runs the ingest
 * benchmark (`bench/ingest.ts`, an openFDA mirror) of each alternately.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SQLite } from './lib/drivers.ts';
import { parseSize, sizeLabel, type CorpusInfo } from './lib/corpus.ts';
import { ensureOpenFdaMirror } from './lib/openfda-mirror.ts';
import { BENCH_DIR, ROOT } from './lib/paths.ts';
import {
  load,
  walkTo,
  startProcess,
  stop,
  withKey,
  type LoadSettings,
  type Proc,
  type Scenario,
} from './lib/processes.ts';
import { CACHE_OFF, CHECK, NEW_HIT, NEW_MISS, NOT_MODIFIED } from './lib/report.ts';
import { Rng } from './lib/synthetic.ts';
import { gs1CheckDigit } from '../src/domain/identifiers/gs1-check-digits.ts';
import { corpusPathOf } from '../src/store/engines/sqlite-files.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    corpus: { type: 'string', default: '200k' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    ingest: { type: 'boolean', default: false },
    rows: { type: 'string' },
    'ingest-records': { type: 'string', default: '200000' },
  },
});
if (positionals.length !== 2) {
  process.stderr.write('usage: npm run bench:ab -- OLD NEW [--corpus 200k] [--rounds 3] [--ingest]\n');
  process.exit(2);
}
const records = parseSize(values.corpus!);
const ROUNDS = Number(values.rounds);
const SETTINGS: LoadSettings = {
  connections: Number(values.connections),
  warmupSeconds: Number(values.warmup),
  durationSeconds: Number(values.duration),
};
const log = (m: string) => process.stderr.write(`${m}\n`);
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

/** One side of the comparison: a checkout with its corpus, and its nodes once started. */
interface Side {
  label: string;
  dir: string;
  corpus: CorpusInfo;
  cached?: Proc;
  uncached?: Proc;
}

/** The checkout of `ref`: this working tree for `.`, else a detached worktree with this tree's packages. */
function checkout(ref: string): { label: string; dir: string } {
  if (ref === '.') return { label: `${git('rev-parse', '--short', 'HEAD')}+tree`, dir: ROOT };
  const sha = git('rev-parse', '--verify', `${ref}^{commit}`);
  const dir = join(tmpdir(), 'recalls-ab', sha.slice(0, 12));
  if (!existsSync(dir)) {
    git('worktree', 'add', '--detach', dir, sha);
    const sameLock =
      spawnSync('git', ['diff', '--quiet', sha, '--', 'package-lock.json'], { cwd: ROOT }).status === 0;
    if (sameLock) execFileSync('cp', ['-al', `${ROOT}/node_modules`, `${dir}/node_modules`]);
    else execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  }
  return { label: sha.slice(0, 7), dir };
}

/** Compiles the checkout (`npm run build`), so that `recalls serve` runs dist/ as an installed one does. */
function build(dir: string): void {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: dir, stdio: 'inherit' });
}

/** Builds (or reuses) the checkout's own corpus with its own generator, and reads its description. */
function corpusOf(dir: string): CorpusInfo {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'bench/generate.ts', '--corpus', sizeLabel(records), '--engine', 'sqlite'],
    { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (r.status !== 0) throw new Error(`building the corpus in ${dir} failed`);
  return JSON.parse(
    readFileSync(`${dir}/bench/corpus/sqlite-${sizeLabel(records)}.json`, 'utf8'),
  ) as CorpusInfo;
}

function issueKey(side: Side): string {
  const r = spawnSync(
    process.execPath,
    ['bin/recalls.js', 'keys', 'create', '--plan', 'scale', '--name', 'ab'],
    {
      cwd: side.dir,
      env: { ...process.env, DATABASE_URL: side.corpus.location, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(`keys create failed in ${side.dir}: ${r.stderr}`);
  return r.stdout.trim().split('\n').pop()!;
}

function serve(side: Side, name: string, env: Record<string, string> = {}): Promise<Proc> {
  return startProcess({
    args: ['bin/recalls.js', 'serve'],
    env: {
      DATABASE_URL: side.corpus.location,
      RECALLS_INGEST_SCHEDULE: 'off',
      RECALLS_BURST_EXEMPT: '127.0.0.1',
      ...env,
    },
    probe: '/v1/health',
    cwd: side.dir,
    logDir: `${BENCH_DIR}/corpus/logs`,
    logName: `ab-${side.label}-${name}`,
    discardStdout: true,
  });
}

/** The file holding the identifiers table: the corpus file beside the service file, where there is one. */
function identifiersFile(info: CorpusInfo): string {
  const corpus = corpusPathOf(info.location);
  return existsSync(corpus) ? corpus : info.location;
}

/** The rows' requests, drawn from the corpus as `run.ts` draws them (the same seeds). */
function scenarios(info: CorpusInfo): Scenario[] {
  type Row = { kind: string; value: string; recall_id: string };
  const db = new SQLite(identifiersFile(info), { readonly: true });
  const sample = db
    .prepare(
      "SELECT i.kind, i.value, i.recall_id FROM identifiers i WHERE i.kind IN ('upc', 'ean', 'gtin', 'model', 'lot', 'ndc', 'batch') AND i.normalized NOT LIKE '%*' AND i.normalized NOT LIKE '%..%' AND i.recall_id IN (SELECT id FROM recalls WHERE sort_date > '2020' ORDER BY id LIMIT 400 OFFSET 5000)",
    )
    .all() as Row[];
  const pool = (
    db
      .prepare(
        "SELECT kind, value FROM identifiers WHERE rowid % 32 = 7 AND kind IN ('upc', 'ean', 'gtin', 'model', 'lot', 'ndc', 'batch') AND normalized NOT LIKE '%*' AND normalized NOT LIKE '%..%'",
      )
      .all() as Row[]
  ).map((r) => `/v1/identifiers/${r.kind}/${encodeURIComponent(r.value)}`);
  db.close();
  const hit = sample.find((r) => r.kind === 'upc') ?? sample[0]!;
  const rng = new Rng(99);
  const gtin = () => {
    const b = `0${rng.digits(10)}`;
    return `${b}${gs1CheckDigit(b)}`;
  };
  const hitPath = `/v1/identifiers/${hit.kind}/${encodeURIComponent(hit.value)}`;
  const check = JSON.stringify({
    label: 'bench',
    identifiers: [
      ...sample.slice(0, 100).map((r) => ({ kind: r.kind, value: r.value })),
      ...Array.from({ length: 900 }, (_, i) =>
        i % 2 === 0 ? { kind: 'lot', value: `ZZ${rng.digits(6)}Q` } : { kind: 'upc', value: gtin() },
      ),
    ],
  });
  let turn = 0;
  return [
    { name: 'lookup, hit', path: hitPath, expect: 200 },
    { name: NEW_HIT, path: hitPath, nextPath: () => pool[turn++ % pool.length]!, expect: 200 },
    { name: NEW_MISS, path: hitPath, nextPath: () => `/v1/identifiers/upc/${gtin()}`, expect: 200 },
    { name: NOT_MODIFIED, path: hitPath, conditional: true, expect: 304 },
    { name: `GET /v1/recalls page 1${CACHE_OFF}`, path: '/v1/recalls', expect: 200 },
    { name: `GET /v1/recalls page 1000${CACHE_OFF}`, path: '', expect: 200 },
    { name: `GET /v1/recalls/{id}${CACHE_OFF}`, path: `/v1/recalls/${hit.recall_id}`, expect: 200 },
    { name: CHECK, path: '/v1/checks', method: 'POST', body: check, expect: 201 },
  ];
}

interface Sample {
  cpuUs: number;
  rps: number;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const spreadOf = (xs: number[]) => Math.max(...xs) - Math.min(...xs);

/** The markdown table of a row set: per commit the rounds and the mean; the difference against the spread. */
function table(names: string[], sides: Side[], results: Map<string, Sample[][]>, unit: keyof Sample): string {
  const fmt = (x: number) => x.toFixed(0);
  const lines = [
    `| row | ${sides.map((s) => `${s.label} rounds`).join(' | ')} | ${sides.map((s) => `${s.label} mean`).join(' | ')} | new − old | spread | new − old per round | verdict |`,
    `| --- | ${sides.map(() => '---').join(' | ')} | ${sides.map(() => '---:').join(' | ')} | ---: | ---: | ---: | --- |`,
  ];
  for (const name of names) {
    const per = results.get(name)!.map((samples) => samples.map((s) => s[unit]));
    const means = per.map(mean);
    const diff = means[1]! - means[0]!;
    const spread = Math.max(...per.map(spreadOf));
    const better = unit === 'cpuUs' ? diff < 0 : diff > 0;
    // Each round serves both back to back, so a round's difference is free of the drift between rounds.
    const paired = per[1]!.map((x, i) => x - per[0]![i]!);
    const sameSign = paired.every((d) => d > 0) || paired.every((d) => d < 0);
    const verdict =
      Math.abs(diff) > spread
        ? better
          ? 'new better'
          : 'new worse'
        : sameSign
          ? `within the spread; ${better ? 'better' : 'worse'} in every round`
          : 'within the spread';
    const signed = (x: number) => `${x >= 0 ? '+' : ''}${fmt(x)}`;
    lines.push(
      `| ${name} | ${per.map((xs) => xs.map(fmt).join(', ')).join(' | ')} | ${means.map(fmt).join(' | ')} | ${signed(diff)} (${((diff / means[0]!) * 100).toFixed(1)} %) | ${fmt(spread)} | ${paired.map(signed).join(', ')} | ${verdict} |`,
    );
  }
  return lines.join('\n');
}

/** Reads a corpus's files once, so that the OS cache holds both corpora before the first row. */
function warmCache(info: CorpusInfo): void {
  const buffer = Buffer.allocUnsafe(8 << 20);
  for (const file of [info.location, corpusPathOf(info.location)].flatMap((f) => [f, `${f}-wal`])) {
    if (!existsSync(file)) continue;
    const fd = openSync(file, 'r');
    while (readSync(fd, buffer, 0, buffer.length, null) > 0);
    closeSync(fd);
  }
}

async function serveRows(sides: Side[]): Promise<void> {
  const only = values.rows?.split(',').map((r) => r.trim().toLowerCase());
  const rows = scenarios(sides[1]!.corpus).filter(
    (r) => only === undefined || only.some((o) => r.name.toLowerCase().includes(o)),
  );
  for (const side of sides) warmCache(side.corpus);
  for (const side of sides) {
    side.cached = await serve(side, 'cached');
    side.uncached = await serve(side, 'uncached', { RECALLS_ANSWER_CACHE_MB: '0' });
  }
  const pageOf = new Map<Side, string>();
  for (const side of sides) pageOf.set(side, await walkTo(side.uncached!.url, issueKey(side), 1000));
  log(
    `${sizeLabel(records)} SQLite corpus, ${ROUNDS} rounds, ${SETTINGS.connections} connections, ` +
      `${SETTINGS.warmupSeconds} s warm-up, ${SETTINGS.durationSeconds} s measured per row and commit`,
  );
  const results = new Map<string, Sample[][]>(rows.map((r) => [r.name, sides.map(() => [])]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, row] of rows.entries()) {
      const order = (round + i) % 2 === 0 ? [0, 1] : [1, 0];
      for (const k of order) {
        const side = sides[k]!;
        const node = row.name.endsWith(CACHE_OFF) ? side.uncached! : side.cached!;
        const base = row.path === '' ? { ...row, path: pageOf.get(side)! } : row;
        const s = await withKey(base, node, issueKey(side));
        const m = await load([node], s, SETTINGS);
        if (m.unexpected > 0)
          throw new Error(`${side.label} ${row.name}: ${m.unexpected} unexpected answers`);
        results.get(row.name)![k]!.push({ cpuUs: m.cpuUs, rps: m.rps });
        log(
          `  round ${round + 1} ${side.label.padEnd(12)} ${row.name.padEnd(44)} ${m.cpuUs.toFixed(0)} µs/req, ${m.rps.toFixed(0)} req/s`,
        );
      }
    }
  }
  for (const side of sides) {
    await stop(side.cached!);
    await stop(side.uncached!);
  }
  const names = rows.map((r) => r.name);
  process.stdout.write(
    `\n### Server CPU per request (µs, lower is better)\n\n${table(names, sides, results, 'cpuUs')}\n` +
      `\n### Requests per second (higher is better)\n\n${table(names, sides, results, 'rps')}\n`,
  );
}

/** The ingest benchmark of each checkout, alternately, into a fresh SQLite file each time. */
function ingestRows(sides: Side[]): void {
  const n = Number(values['ingest-records']);
  const mirror = ensureOpenFdaMirror(`${BENCH_DIR}/corpus/mirror-${sizeLabel(n)}`, n);
  const results = new Map<string, Sample[][]>([['ingest, full build (records/s)', sides.map(() => [])]]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const k of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const side = sides[k]!;
      const database = `/tmp/recalls-ab-ingest-${process.pid}.db`;
      const r = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'bench/ingest.ts', '--database', database, '--from', mirror],
        { cwd: side.dir, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn' }, maxBuffer: 1 << 26 },
      );
      spawnSync('sh', ['-c', `rm -f ${database}*`]);
      if (r.status !== 0) throw new Error(`ingest benchmark failed in ${side.dir}: ${r.stderr}`);
      const result = JSON.parse(r.stdout.trim().split('\n').pop()!) as { full: { rate: number } };
      results.get('ingest, full build (records/s)')![k]!.push({ cpuUs: 0, rps: result.full.rate });
      log(`  round ${round + 1} ${side.label.padEnd(12)} ingest ${result.full.rate.toFixed(0)} records/s`);
    }
  }
  process.stdout.write(
    `\n### Ingest (higher is better)\n\n${table([...results.keys()], sides, results, 'rps')}\n`,
  );
}

const sides: Side[] = positionals.map((ref) => {
  const { label, dir } = checkout(ref);
  log(`${ref}: ${label} in ${dir}`);
  build(dir);
  return { label, dir, corpus: corpusOf(dir) };
});
await serveRows(sides);
if (values.ingest) ingestRows(sides);
