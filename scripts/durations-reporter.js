// A test reporter that prints, once the run ends, each test file's time: the sum of the
// duration_ms of its top-level tests and suites (module loading excluded), slowest first.
// Used by `node scripts/run-tests.js --durations`.
import { relative } from 'node:path';

export default async function* durations(source) {
  const files = new Map();
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0) continue;
    const { file, details } = event.data;
    if (file !== undefined) files.set(file, (files.get(file) ?? 0) + (details?.duration_ms ?? 0));
  }
  const total = [...files.values()].reduce((a, b) => a + b, 0);
  yield `\nper-file durations (sum of top-level duration_ms), total ${Math.round(total)} ms:\n`;
  for (const [file, ms] of [...files].sort(([, a], [, b]) => b - a))
    yield `${String(Math.round(ms)).padStart(8)}  ${relative(process.cwd(), file)}\n`;
}
