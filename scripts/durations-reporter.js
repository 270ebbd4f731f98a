// A test reporter that prints, once the run ends, each test file's wall time (from the runner
// taking the file off its queue to its last result) and the sum of its top-level tests' duration_ms, slowest
// first. Used by `node scripts/run-tests.js --durations`.
import { relative } from 'node:path';
import { performance } from 'node:perf_hooks';

export default async function* durations(source) {
  const files = new Map();
  for await (const event of source) {
    const file = event.data?.file;
    if (file === undefined) continue;
    const now = performance.now();
    // The runner queues every file at once; a file starts when it is taken off the queue.
    if (event.type === 'test:enqueue' && event.data.name === file) continue;
    let f = files.get(file);
    if (f === undefined) files.set(file, (f = { first: now, last: now, tests: 0 }));
    f.last = now;
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0)
      f.tests += event.data.details?.duration_ms ?? 0;
  }
  const rows = [...files].sort(([, a], [, b]) => b.last - b.first - (a.last - a.first));
  yield '\nper-file durations (wall ms, sum of top-level duration_ms):\n';
  for (const [file, f] of rows) {
    yield `${String(Math.round(f.last - f.first)).padStart(8)} ${String(Math.round(f.tests)).padStart(8)}  ${relative(process.cwd(), file)}\n`;
  }
}
