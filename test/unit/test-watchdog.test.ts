/**
 * scripts/test-watchdog.js, which scripts/run-tests.js loads into each test file's process where Node bounds
 * only whole files (Node 20, 22): a test or hook that never ends stops its file's process, naming it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `fixture` under the watchdog with a bound of 1 s; resolves with its exit code and output. */
async function underWatchdog(fixture: string): Promise<{ code: number | null; output: string }> {
  const run = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', './scripts/test-watchdog.js', '--test', '--test-reporter=tap', fixture],
    {
      cwd: ROOT,
      // NODE_TEST_CONTEXT would make the child a part of this run rather than a run of its own
      env: { ...process.env, NODE_TEST_CONTEXT: undefined, RECALLS_TEST_WATCHDOG_MS: '1000' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // a watchdog that misses the hang must fail this test, not leave the fixture running
      signal: AbortSignal.timeout(60_000),
      killSignal: 'SIGKILL',
    },
  );
  let output = '';
  run.stdout.on('data', (d: Buffer) => (output += d.toString()));
  run.stderr.on('data', (d: Buffer) => (output += d.toString()));
  run.on('error', () => {}); // the abort; its code shows below
  const [code] = (await once(run, 'close')) as [number | null];
  return { code, output };
}

test(
  'a hung test fails its file, named on stderr, once past the watchdog',
  { timeout: 120_000 },
  async () => {
    const { code, output } = await underWatchdog('test/fixtures/hung-test/hangs.ts');
    assert.notEqual(code, 0, output);
    assert.match(output, /test "never ends" in \S*hangs\.ts did not end within 1000 ms/);
    assert.match(output, /^\s*ok \d+ - ends$/m, 'the test before it passed');
  },
);

test('a hung after hook fails its file, named by the test before it', { timeout: 120_000 }, async () => {
  const { code, output } = await underWatchdog('test/fixtures/hung-hook/hangs.ts');
  assert.notEqual(code, 0, output);
  assert.match(output, /a hook after test "ends" in \S*hangs\.ts did not end within 1000 ms/);
});
