#!/usr/bin/env node
// Runs every *.test.ts file under test/ with Node's own test runner (Node 20 has no glob
// support in `node --test`, so the files are listed here). Extra arguments are passed on,
// e.g. `npm test -- --test-name-pattern=cursor` or a path filter `npm test -- test/unit`.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const filters = args.filter((a) => !a.startsWith('-'));
const flags = args.filter((a) => a.startsWith('-'));

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
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=1', ...flags, ...files],
  { cwd: root, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
