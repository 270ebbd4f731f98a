/**
 * scripts/test-watchdog.js, which scripts/run-tests.js loads into each test file's process where Node bounds
 * only whole files (Node 20, 22): a test that never ends stops its file's process, naming the test.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test(
  'a hung test fails its file, named on stderr, once past the watchdog',
  { timeout: 120_000 },
  async () => {
    const run = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--import',
        './scripts/test-watchdog.js',
        '--test',
        '--test-reporter=tap',
        'test/fixtures/hung-test/hangs.ts',
      ],
      {
        cwd: ROOT,
        // NODE_TEST_CONTEXT would make the child a part of this run rather than a run of its own
        env: { ...process.env, NODE_TEST_CONTEXT: undefined, RECALLS_TEST_WATCHDOG_MS: '1000' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    run.stdout.on('data', (d: Buffer) => (output += d.toString()));
    run.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const [code] = (await once(run, 'close')) as [number | null];
    assert.notEqual(code, 0, output);
    assert.match(output, /test "never ends" in \S*hangs\.ts did not end within 1000 ms/);
    assert.match(output, /^\s*ok \d+ - ends$/m, 'the test before it passed');
  },
);
