import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import test from 'node:test';
import { SQLITE_DRIVER, SQLite } from '../../../../src/store/engines/sqlite-driver.ts';

const major = Number(process.versions.node.split('.')[0]);

test('the driver is better-sqlite3 13 from Node 22 on, better-sqlite3 12 on Node 20', () => {
  assert.equal(SQLITE_DRIVER, major >= 22 ? 'better-sqlite3' : 'better-sqlite3-v12');
  const db = new SQLite(':memory:');
  assert.deepEqual(db.prepare('SELECT 40 + 2 AS answer').get(), { answer: 42 });
  db.close();
});

test('statements collected as garbage, during the run and at exit, do not abort the process', () => {
  // better-sqlite3 12 on Node 24 aborts here with "Assertion failed: (env) != nullptr".
  const script = `
    const { SQLite } = await import(${JSON.stringify(new URL('../../../../src/store/engines/sqlite-driver.ts', import.meta.url).href)});
    const db = new SQLite(':memory:');
    db.exec('CREATE TABLE t (x)');
    for (let i = 0; i < 2000; i++) db.prepare('INSERT INTO t VALUES (?)').run(i);
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
    for (let i = 0; i < 2000; i++) db.prepare('SELECT count(*) FROM t WHERE x > ?').get(i);
    console.log(db.prepare('SELECT count(*) AS n FROM t').get().n);
  `;
  const child = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
    {
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  assert.equal(child.status, 0, child.stderr.slice(0, 400));
  assert.equal(child.stdout.trim(), '2000');
});
