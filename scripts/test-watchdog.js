// Loaded into each test file's process (`--import`) where Node bounds only whole files (Node 20, 22): a test
// still running TEST_WATCHDOG_MS after it started is named on stderr and its file's process exits with status
// 1, so the run fails within minutes saying which test hung, instead of after the file's bound naming the file.
// Each test and hook has its own bound on Node 24 (`--test-timeout`, scripts/run-tests.js).
// RECALLS_TEST_WATCHDOG_MS replaces the figure (a test of this file sets it low).
import { afterEach, beforeEach } from 'node:test';

/** Longer than the longest bound a test sets itself (docs/development.md, "Test timeouts"). */
const TEST_WATCHDOG_MS = Number(process.env.RECALLS_TEST_WATCHDOG_MS) || 600_000;

const timers = new Map();

beforeEach((t) => {
  const file = process.argv[1] ?? 'a test file';
  const timer = setTimeout(() => {
    process.stderr.write(
      `\ntest "${t.name}" in ${file} did not end within ${TEST_WATCHDOG_MS} ms: its file's process is stopped\n`,
    );
    process.exit(1);
  }, TEST_WATCHDOG_MS);
  timer.unref();
  timers.set(t, timer);
});

afterEach((t) => {
  clearTimeout(timers.get(t));
  timers.delete(t);
});
