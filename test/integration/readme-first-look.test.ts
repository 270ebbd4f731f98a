/**
 * The README's first look and catalogue walkthrough, run as written. The shell blocks of README.md
 * whose fence reads `sh test:NAME` are taken from the file: `run` (`npm ci && npm start`), `demo`,
 * `first-look` and `walkthrough`. In a copy of the checkout (its files linked, `data/` and `runs/`
 * its own), with a clean environment and npm offline, the test starts the real service as `run`
 * says (`npm ci` is done: node_modules is linked), starts `demo` beside it, then runs the commands
 * of `first-look` and `walkthrough` one by one in one bash session and checks each one's exit
 * status and output.
 *
 * Two things are not as written, so that the test can run beside anything else on the machine:
 * the real service's port is PORT=<free> instead of 8080, and the demo's port 8081 is a free one
 * (`--port N` added to the demo's command, and 127.0.0.1:8081 replaced in the other blocks). The
 * real service is offline as on a machine without a network: every agency address points at a
 * closed local port, and its daily ingest starts at once (as it does after 04:00 UTC).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sourceUrlVariable } from '../../src/config.ts';
import { SOURCE_IDS } from '../../src/ingest/registry.ts';
import { SQLite, type SqliteDatabase } from '../../src/store/engines/sqlite-driver.ts';
import { ROOT } from '../support/cli.ts';
import { sqliteOnly } from '../support/database.ts';
import { until } from '../support/until.ts';

/** The shell blocks of a Markdown text whose fence reads `sh test:NAME`, by name. */
function markedBlocks(markdown: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const m of markdown.matchAll(/^```sh test:([\w-]+)\n([\s\S]*?)^```$/gm)) blocks.set(m[1]!, m[2]!);
  return blocks;
}

/** A block's commands: a line ending in `\` continues on the next; blank and comment lines dropped. */
function commandsOf(block: string): string[] {
  return block
    .split(/(?<!\\)\n/)
    .map((c) => c.trim())
    .filter((c) => c !== '' && !c.startsWith('#'));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A process started by `bash -c`, in its own process group so that npm's children stop with it. */
interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function startShell(command: string, cwd: string, env: NodeJS.ProcessEnv): Started {
  const child = spawn('bash', ['-c', command], {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function stop(started: Started | undefined): Promise<void> {
  if (started === undefined || started.child.exitCode !== null || started.child.signalCode !== null) return;
  try {
    process.kill(-started.child.pid!, 'SIGTERM');
  } catch {
    return; // already gone
  }
  await started.exited;
}

interface Ran {
  command: string;
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `commands` in one bash session, as pasted into a terminal one after the other (variables
 * exported by one are seen by the next), each one's output and status kept apart.
 */
async function runSession(commands: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran[]> {
  const out = mkdtempSync(join(tmpdir(), 'recalls-readme-out-'));
  const script = commands
    .map(
      (c, i) => `{\n${c}\n} >"${out}/${i}.out" 2>"${out}/${i}.err" </dev/null; echo $? >"${out}/${i}.status"`,
    )
    .join('\n');
  const session = startShell(script, cwd, env);
  await session.exited;
  const ran = commands.map((command, i) => ({
    command,
    status: Number(readFileSync(join(out, `${i}.status`), 'utf8')),
    stdout: readFileSync(join(out, `${i}.out`), 'utf8'),
    stderr: readFileSync(join(out, `${i}.err`), 'utf8'),
  }));
  rmSync(out, { recursive: true, force: true });
  return ran;
}

function expectSuccess(ran: Ran): void {
  assert.equal(
    ran.status,
    0,
    `${ran.command}\nexited ${ran.status}\nstdout: ${ran.stdout}\nstderr: ${ran.stderr}`,
  );
}

/** The recall id of a sample recall number. */
const sample = (number: string) => `us-fda-food.F-${number}-2099`;

describe(
  "the README's first look and catalogue walkthrough",
  { skip: sqliteOnly('the demo is SQLite') },
  () => {
    const blocks = markedBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    let dir: string;
    let real: Started | undefined;
    let demo: Started | undefined;
    let realPort: number;
    let demoPort: number;
    let firstLook: Ran[];
    let walkthrough: Ran[];

    before(async () => {
      for (const name of ['run', 'demo', 'first-look', 'walkthrough'])
        assert.ok(blocks.has(name), `README.md has no block marked sh test:${name}`);
      // A copy of the checkout: every top-level file and folder linked, but for what a run writes.
      dir = mkdtempSync(join(tmpdir(), 'recalls-readme-'));
      for (const name of readdirSync(ROOT))
        if (!['.git', 'data', 'runs', '.test-tmp'].includes(name))
          symlinkSync(join(ROOT, name), join(dir, name));
      // A clean shell: no setting of the test run (DATABASE_URL, REDIS_URL, …), and npm without a registry.
      const shellEnv: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: process.env.HOME ?? dir,
        npm_config_offline: 'true',
        npm_config_update_notifier: 'false',
        npm_config_fund: 'false',
      };

      realPort = await freePort();
      demoPort = await freePort();
      const closed = await freePort(); // nothing listens there: every agency is unreachable

      const [install, ...start] = blocks
        .get('run')!
        .trim()
        .split('&&')
        .map((s) => s.trim());
      assert.equal(install, 'npm ci', 'the run block installs first');
      const agencies = Object.fromEntries(
        SOURCE_IDS.map((id) => [sourceUrlVariable(id), `http://127.0.0.1:${closed}`]),
      );
      real = startShell(start.join(' && '), dir, {
        ...shellEnv,
        PORT: String(realPort),
        RECALLS_INGEST_HOUR_UTC: '0',
        RECALLS_UPSTREAM_RETRIES: '0',
        ...agencies,
      });
      await until(
        () => real!.output().includes('Server listening at'),
        () => `the real service to listen; its output: ${real!.output()}`,
        { timeoutMs: 60_000, intervalMs: 50 },
      );

      const demoCommands = commandsOf(blocks.get('demo')!);
      assert.equal(demoCommands.length, 1, 'the demo block is one command');
      demo = startShell(demoCommands[0]!.replace(/ demo(?= |$)/, `$& --port ${demoPort}`), dir, shellEnv);
      await until(
        () => demo!.output().includes('Serving on'),
        () => `the demo to serve; its output: ${demo!.output()}`,
        { timeoutMs: 60_000, intervalMs: 50 },
      );

      // The walkthrough goes on in the first look's terminal: one session, RECALLS_URL and RECALLS_KEY set.
      const onDemoPort = (name: string) =>
        commandsOf(blocks.get(name)!.replaceAll('127.0.0.1:8081', `127.0.0.1:${demoPort}`));
      const look = onDemoPort('first-look');
      const session = await runSession([...look, ...onDemoPort('walkthrough')], dir, shellEnv);
      firstLook = session.slice(0, look.length);
      walkthrough = session.slice(look.length);
    });

    after(async () => {
      await stop(demo);
      await stop(real);
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    test('the demo loads the fictional samples into data/demo.db and saves the key it prints', () => {
      const output = demo!.output();
      assert.match(output, /us-fda-food: ok, 12 records from 1 page\(s\): 12 new/);
      assert.match(output, new RegExp(`database: ${join(dir, 'data', 'demo.db')}`));
      const key = readFileSync(join(dir, 'data', 'demo.key'), 'utf8').trim();
      assert.match(key, /^rk_live_\w{32,}$/);
      assert.ok(output.includes(`\n${key}\n`), 'the key saved is the key printed');
    });

    test('every command of the first look succeeds, against the demo', () => {
      assert.deepEqual(
        firstLook.map((r) => r.command.split(' ')[0]),
        ['export', 'curl', 'curl', 'curl'],
      );
      for (const ran of firstLook) expectSuccess(ran);
      const [, list, lookup, check] = firstLook as [Ran, Ran, Ran, Ran];

      const recalls = JSON.parse(list.stdout) as { data: Array<{ id: string; title: string }> };
      assert.equal(recalls.data.length, 2);
      for (const r of recalls.data) assert.match(r.title, /^SAMPLE DATA – not a real recall/);

      const found = JSON.parse(lookup.stdout) as { data: Array<{ id: string; match: { kind: string } }> };
      assert.deepEqual(
        found.data.map((r) => r.id),
        [sample('9903')],
      );

      const receipt = JSON.parse(check.stdout) as {
        data: {
          label: string;
          submitted_count: number;
          match_count: number;
          matches: Array<{ recall_id: string }>;
          rejected: Array<{ kind: string; value: string }>;
        };
      };
      assert.equal(receipt.data.label, 'my shop');
      assert.equal(receipt.data.submitted_count, 1);
      assert.deepEqual(receipt.data.matches.map((m) => m.recall_id).sort(), [sample('9901'), sample('9905')]);
      assert.deepEqual(
        receipt.data.rejected.map((r) => [r.kind, r.value]),
        [['lot', 'N/A']],
      );
    });

    test('the catalogue walkthrough checks examples/catalogue.csv, lists its matches and verifies the run', () => {
      assert.deepEqual(
        walkthrough.map((r) => r.command.split(' ').slice(0, 2).join(' ')),
        ['node bin/recalls.js', 'cat runs/today/matches.csv', 'node bin/recalls.js'],
      );
      for (const ran of walkthrough) expectSuccess(ran);
      const [check, matches, verify] = walkthrough as [Ran, Ran, Ran];
      assert.match(check.stdout, /Checked 7 rows of catalogue\.csv/);
      assert.match(check.stdout, /1 identifiers could not be normalised/);

      const lines = matches.stdout.trim().split('\n');
      assert.match(lines[0]!, /^row,row_id,kind,value,normalized,recall_id,/);
      const found = lines.slice(1).map((line) => {
        const [, rowId, kind, , , recallId] = line.split(',');
        return `${rowId} ${kind} ${recallId}`;
      });
      assert.deepEqual(found.sort(), [
        `DEMO-001 gtin ${sample('9901')}`,
        `DEMO-001 gtin ${sample('9905')}`,
        `DEMO-002 gtin ${sample('9903')}`,
        `DEMO-003 gtin ${sample('9912')}`,
        `DEMO-003 lot ${sample('9912')}`,
        `DEMO-004 lot ${sample('9902')}`,
      ]);

      assert.match(verify.stdout, /verified: 1 checks of run .* \(complete\), and compared with the service/);
    });

    test('the real service, whose first daily ingest fails offline, answers and holds none of the samples', async () => {
      const health = await fetch(`http://127.0.0.1:${realPort}/v1/health`);
      assert.equal(health.status, 200);
      await until(
        () => real!.output().includes('scheduled ingest finished'),
        () => `the real service's offline ingest to finish; its output: ${real!.output().slice(-2000)}`,
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      const corpus = new SQLite(join(dir, 'data', 'recalls.corpus.db'), { readonly: true });
      const demoCorpus = new SQLite(join(dir, 'data', 'demo.corpus.db'), { readonly: true });
      try {
        const count = (db: SqliteDatabase) =>
          (db.prepare('SELECT count(*) AS n FROM recalls').get() as { n: number }).n;
        assert.equal(count(corpus), 0, 'no sample in the real database');
        assert.equal(count(demoCorpus), 12);
      } finally {
        corpus.close();
        demoCorpus.close();
      }
    });
  },
);
