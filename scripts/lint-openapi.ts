/**
 * `npm run lint:openapi`: lints the OpenAPI document the service serves with Redocly CLI (an independent
 * validator) under redocly.yaml, and fails on any error or warning. The document is dumped to a temporary file
 * (scripts/openapi-document.ts); nothing is written to the tree.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatDocument, openApiDocument } from './openapi-document.ts';

interface RedoclyReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
}

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'recalls-openapi-lint-'));
try {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, formatDocument(await openApiDocument()));
  const run = spawnSync(
    join(root, 'node_modules/.bin/redocly'),
    ['lint', '--config', join(root, 'redocly.yaml'), '--format', 'json', '--max-problems', '1000', file],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  let report: RedoclyReport;
  try {
    report = JSON.parse(run.stdout) as RedoclyReport;
  } catch {
    process.stderr.write(run.stdout + run.stderr);
    throw new Error(`redocly lint gave no report (exit ${run.status})`);
  }
  for (const p of report.problems)
    console.log(`${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`);
  const { errors, warnings, ignored } = report.totals;
  console.log(`redocly lint (OpenAPI document): ${errors} errors, ${warnings} warnings, ${ignored} ignored`);
  if (errors + warnings > 0) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
