/**
 * The typed client as a user installs it: `npm run build`'s output packed as package.json `files` says, installed
 * under its package name in a fresh project, where examples/client.ts is compiled by `tsc` with `strict` (and
 * the stricter `noUncheckedIndexedAccess` and `exactOptionalPropertyTypes`, module nodenext, no skipLibCheck)
 * and then run with plain `node` against a real service.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT } from '../support/cli.ts';
import { sqliteOnly } from '../support/database.ts';
import { draft, json, startService, type TestService } from '../support/service.ts';

const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/** Runs a command to its end; rejects with its output when it exits non-zero. */
function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(out)
        : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${out}${err}`)),
    );
  });
}

describe(
  'a program using the typed client, installed by package name',
  { skip: sqliteOnly('it tests the packaged client, which no engine changes') },
  () => {
    let dir: string;
    let project: string;
    before(
      async () => {
        dir = mkdtempSync(join(tmpdir(), 'recalls-client-program-'));
        // The package as `npm install <git url>` makes it: `prepare` builds dist/, then `files` picks what ships.
        const pkg = join(dir, 'recall-alert-service');
        mkdirSync(pkg);
        for (const file of ['package.json', 'README.md', '.gitignore'])
          copyFileSync(join(ROOT, file), join(pkg, file));
        await run(process.execPath, [TSC, '-p', 'tsconfig.build.json', '--outDir', join(pkg, 'dist')], ROOT);
        symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'), 'dir'); // its dependencies

        project = join(dir, 'shop');
        mkdirSync(join(project, 'node_modules/@types'), { recursive: true });
        symlinkSync(pkg, join(project, 'node_modules/recall-alert-service'), 'dir');
        symlinkSync(join(ROOT, 'node_modules/@types/node'), join(project, 'node_modules/@types/node'), 'dir');
        writeFileSync(
          join(project, 'package.json'),
          JSON.stringify({
            name: 'shop',
            private: true,
            type: 'module',
            dependencies: { 'recall-alert-service': '*' },
          }),
        );
        writeFileSync(
          join(project, 'tsconfig.json'),
          JSON.stringify({
            compilerOptions: {
              target: 'ES2022',
              module: 'nodenext',
              moduleResolution: 'nodenext',
              strict: true,
              noUncheckedIndexedAccess: true,
              exactOptionalPropertyTypes: true,
              types: ['node'],
              outDir: 'out',
              noEmitOnError: true,
            },
            files: ['main.ts'],
          }),
        );
        copyFileSync(join(ROOT, 'examples/client.ts'), join(project, 'main.ts'));
        // A build and an install: up to 102 s measured on a loaded machine (docs/development.md, test timeouts).
      },
      { timeout: 480_000 },
    );
    after(() => rmSync(dir, { recursive: true, force: true }));

    test('the package ships the client: its exports point at files that `files` packs', async () => {
      const packed = JSON.parse(
        await run(
          'npm',
          ['pack', '--dry-run', '--json', '--ignore-scripts'],
          join(dir, 'recall-alert-service'),
        ),
      ) as { files: { path: string }[] }[];
      const paths = new Set(packed[0]!.files.map((f) => f.path));
      for (const file of ['dist/client/index.js', 'dist/client/index.d.ts', 'dist/client/api-types.d.ts'])
        assert.ok(paths.has(file), `${file} is packed`);
    });

    test('type-checks under --strict with module nodenext, and runs against a real service', async () => {
      await run(process.execPath, [TSC, '-p', 'tsconfig.json'], project);

      const s: TestService = await startService();
      try {
        const gtin = { kind: 'upc' as const, value: '6926145714029', normalized: '06926145714029' };
        await s.seed([
          draft('F-1-2024', { identifiers: [{ ...gtin, confidence: 'exact' }] }),
          draft('F-2-2024', { published_date: '2024-02-01' }),
          draft('F-3-2024', { published_date: '2024-03-01' }),
        ]);
        const out = await run(
          process.execPath,
          [join(project, 'out/main.js'), s.url, await s.key(), 'upc', '692 6145 7140 29'],
          project,
        );
        const summary = JSON.parse(out);
        const listed = await json<{ data: { id: string }[] }>(
          await s.request('/v1/recalls?limit=200', { key: await s.key() }),
        );
        const ids = listed.data.map((r) => r.id);
        assert.equal(summary.firstPage.length, 2);
        assert.equal(typeof summary.nextCursor, 'string');
        assert.deepEqual(summary.walked, ids, 'the cursor walked to its end');
        assert.equal(summary.lookup.normalized, '06926145714029');
        assert.deepEqual(summary.lookup.recalls, [
          { id: summary.check.matches[0], matched: '06926145714029' },
        ]);
        assert.equal(summary.check.submittedCount, 1, 'the duplicate is checked once');
        assert.deepEqual(summary.check.rejected, ['ean:123:invalid_length']);
        assert.equal(summary.check.submittedDigestReproduced, true);
        assert.equal(summary.check.resultDigestReproduced, true);
        assert.deepEqual(summary.reread, { sameReceipt: true, notModified: true });
      } finally {
        await s.close();
      }
    });
  },
);
