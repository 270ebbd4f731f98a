/**
 * No import cycle in src/ or bench/, type-only imports included: eslint's import-x/no-cycle follows
 * value imports only, and a knot of types is still a knot to untie.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import test from 'node:test';

const ROOT = resolve(import.meta.dirname, '../..');
const RELATIVE_IMPORT = /(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)]
    .map((m) => resolve(dirname(file), m[1]!))
    .filter((p) => existsSync(p));
}

test('no import cycle in src or bench, type-only imports included', () => {
  const files = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'bench'))];
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (file: string, path: string[]): void => {
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open')
        cycles.push(
          [...path.slice(path.indexOf(next)), file, next].map((f) => relative(ROOT, f)).join(' → '),
        );
      else if (state.get(next) === undefined) visit(next, [...path, file]);
    }
    state.set(file, 'done');
  };
  for (const file of files) if (state.get(file) === undefined) visit(file, []);
  assert.deepEqual(cycles, []);
});
