#!/usr/bin/env node
// Runs *.test.ts files under test/ with Node's own test runner (Node 20 has no glob support in
// `node --test`, so the files are listed here). Arguments that do not start with `-` select
// files by path prefix or substring (`test/unit`, `cursor`); the rest go to `node --test`, e.g.
// `--test-name-pattern=cursor`. `--durations` adds a per-file timing table at the end (stderr).
// Files run two at a time: every suite uses its own port, temporary folder and database.
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
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', ...concurrency, ...reporters, ...flags, ...files],
  { cwd: root, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
