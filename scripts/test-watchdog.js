// Loaded into each test file's process (`--import`) where Node bounds only whole files (Node 20, 22): when no
// test has started or ended for TEST_WATCHDOG_MS, the test still running is named on stderr (or, with none
// running, the before or after hook that follows the last test to end) and its file's process exits with
// status 1, so the run fails within minutes saying what hung, instead of after the file's bound naming the file.
// Each test and hook has its own bound on Node 24 (`--test-timeout`, scripts/run-tests.js).
// RECALLS_TEST_WATCHDOG_MS replaces the figure (a test of this file sets it low).
import { afterEach, beforeEach } from 'node:test';

/** Longer than the longest bound a test sets itself (docs/development.md, "Test timeouts"). */
const TEST_WATCHDOG_MS = Number(process.env.RECALLS_TEST_WATCHDOG_MS) || 600_000;

const file = process.argv[1] ?? 'a test file';
/** The tests started and not yet ended. */
const running = new Set();
let lastEnded;
let timer;

function stop() {
  const what =
    running.size > 0
      ? `test "${[...running].map((t) => t.name).join('", "')}"`
      : lastEnded === undefined
        ? 'a before hook (no test had started)'
        : `a hook after test "${lastEnded}"`;
  process.stderr.write(
    `\n${what} in ${file} did not end within ${TEST_WATCHDOG_MS} ms: its file's process is stopped\n`,
  );
  process.exit(1);
}

/** Starts the bound again: a test started or ended. */
function arm() {
  clearTimeout(timer);
  timer = setTimeout(stop, TEST_WATCHDOG_MS);
  timer.unref();
}

arm();

beforeEach((t) => {
  running.add(t);
  arm();
});

afterEach((t) => {
  running.delete(t);
  lastEnded = t.name;
  arm();
});
