#!/usr/bin/env node
// Runs *.test.ts files under test/ with Node's own test runner (Node 20 has no glob support in
// `node --test`, so the files are listed here). Arguments that do not start with `-` select
// files by path prefix or substring (`test/unit`, `cursor`); the rest go to `node --test`, e.g.
// `--test-name-pattern=cursor`. `--durations` adds a per-file timing table at the end (stderr).
// Files run two at a time: every suite uses its own port, temporary folder and database.
// A test that never ends fails instead of hanging the run (docs/development.md, "Test timeouts"):
// `--test-timeout` bounds each test and hook on Node 24, each test file as a whole on Node 20 (where
// it does not reach the file's process; there scripts/test-watchdog.js bounds each test and hook in the
// file's process and names what hangs); a `--test-timeout` given here replaces it. On Node 24 a test
// that timed out while its work goes on still keeps its file's process alive (`--test-force-exit`
// would end it, but there it stalls the runner): CI's bound on each suite (.ci/run) stops that run.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const filters = args.filter((a) => !a.startsWith('-'));
const durations = args.includes('--durations');
const flags = args.filter((a) => a.startsWith('-') && a !== '--durations');

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.test.ts') ? [path] : [];
  });
}

const files = walk(join(root, 'test'))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((p) => f.startsWith(p) || f.includes(p)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// TAP when piped (as Node 20 does by default; Node 24 would print its spec report), so that CI
// reads the same '# pass N' / '# fail N' summary lines from every Node.
const main = [
  `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
  '--test-reporter-destination=stdout',
];
const reporters = durations
  ? [
      ...main,
      `--test-reporter=${join(root, 'scripts/durations-reporter.js')}`,
      '--test-reporter-destination=stderr',
    ]
  : main;
const concurrency = flags.some((f) => f.startsWith('--test-concurrency')) ? [] : ['--test-concurrency=2'];
/** Each test and hook, where Node bounds those (a longer test sets its own `timeout`). */
const TEST_TIMEOUT_MS = 180_000;
/** Each test file, where Node bounds only whole files (Node 20; Node 22 is given this one too). */
const FILE_TIMEOUT_MS = 1_500_000;
const perTest = Number(process.versions.node.split('.')[0]) >= 24;
const timeout = flags.some((f) => f.startsWith('--test-timeout'))
  ? []
  : [`--test-timeout=${perTest ? TEST_TIMEOUT_MS : FILE_TIMEOUT_MS}`];
/** Where Node bounds only files, each test is bounded in its file's process and named when it hangs. */
const watchdog = perTest ? [] : ['--import', join(root, 'scripts/test-watchdog.js')];
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', ...watchdog, '--test', ...concurrency, ...timeout, ...reporters, ...flags, ...files],
  { cwd: root, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
