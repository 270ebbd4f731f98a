// A test reporter that prints, once the run ends, each test file's time (the sum of the duration_ms of
// its top-level tests and suites, module loading excluded), slowest first, then the slowest single
// tests (a suite's hooks are in the suite's time, not in its tests'). Used by
// `node scripts/run-tests.js --durations`, and to choose the test timeouts (docs/development.md).
import { relative } from 'node:path';

/** How many of the slowest single tests are listed. */
const SLOWEST = 15;

export default async function* durations(source) {
  const files = new Map();
  const tests = [];
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, details, nesting, name } = event.data;
    const ms = details?.duration_ms ?? 0;
    if (file === undefined) continue;
    if (nesting === 0) files.set(file, (files.get(file) ?? 0) + ms);
    if (details?.type !== 'suite') tests.push({ file, name, ms });
  }
  const total = [...files.values()].reduce((a, b) => a + b, 0);
  yield `\nper-file durations (sum of top-level duration_ms), total ${Math.round(total)} ms:\n`;
  for (const [file, ms] of [...files].sort(([, a], [, b]) => b - a))
    yield `${String(Math.round(ms)).padStart(8)}  ${relative(process.cwd(), file)}\n`;
  yield `\nslowest tests (duration_ms):\n`;
  for (const t of tests.sort((a, b) => b.ms - a.ms).slice(0, SLOWEST))
    yield `${String(Math.round(t.ms)).padStart(8)}  ${relative(process.cwd(), t.file)}: ${t.name}\n`;
}
