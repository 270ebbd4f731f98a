/**
 * A small file system of a test's own, to fill or make read-only: a tmpfs mounted in a fresh temporary folder.
 * Mounting needs root (or CAP_SYS_ADMIN): `skip` says so where it cannot, for the suite's `skip` option.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './until.ts';

export interface SmallDisk {
  /** The temporary folder that holds the mount point (and anything else the test keeps off the small disk). */
  root: string;
  /** Where the tmpfs is mounted. */
  path: string;
  /** Why the tmpfs could not be mounted, or false. */
  skip: string | false;
  /** Unmounts it and removes the temporary folder. */
  remove(): void;
}

/** Mounts a tmpfs with `options` (`size=24m`, and `uid=`… for another user) in a new folder named after `name`. */
export function smallDisk(name: string, options: string): SmallDisk {
  const root = mkdtempSync(join(tmpdir(), `recalls-${name}-`));
  const path = join(root, 'fs');
  mkdirSync(path);
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', path], { encoding: 'utf8' });
  return {
    root,
    path,
    skip:
      mount.status === 0
        ? false
        : `cannot mount a tmpfs here: ${(mount.stderr || String(mount.error)).trim()}`,
    remove() {
      spawnSync('umount', [path]);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Fills the file system of `path` with a file there, until it refuses (ENOSPC). */
export function fill(path: string): void {
  const fd = openSync(path, 'w');
  try {
    for (const size of [1024 * 1024, 4096]) {
      // a megabyte at a time, then the last partial megabyte a page at a time
      const chunk = Buffer.alloc(size);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** A serving node as a full-disk test drives it. */
export interface ServingNode {
  /** One check of a new identifier. */
  check(): Promise<Response>;
  /** Its admin listener's `/readyz`. */
  readyz(): Promise<{ status: number; body: { status: string; reason?: string } }>;
  /** Its log so far. */
  output(): string;
}

/**
 * Fills the small disk at `path` under a serving node and holds it to what an operator is told
 * (docs/metrics.md): checks go on until one cannot be written (what is left of a page or a WAL may hold a
 * receipt or more; at most `tries`), that one a 500 `/problems/internal`; `/readyz` is 503 with a `reason`
 * matching `reason`, the log names `logged`. Once space is back a check is recorded and `/readyz` is 200
 * again, without a restart.
 */
export async function fullThenFreed(
  node: ServingNode,
  { path, tries, reason, logged }: { path: string; tries: number; reason: RegExp; logged: RegExp },
): Promise<void> {
  assert.equal((await node.check()).status, 201);
  assert.deepEqual((await node.readyz()).body, { status: 'ready' });
  const filler = join(path, 'filler');
  try {
    fill(filler);
    let failed: Response | undefined;
    for (let i = 0; i < tries && failed === undefined; i++) {
      const res = await node.check();
      if (res.status !== 201) failed = res;
      else await res.arrayBuffer();
    }
    assert.ok(failed !== undefined, `a check failed within ${tries} once the disk was full`);
    assert.equal(failed.status, 500);
    assert.equal(((await failed.json()) as { type: string }).type, '/problems/internal');
    const notReady = await node.readyz();
    assert.equal(notReady.status, 503);
    assert.match(notReady.body.reason ?? '', reason);
    // The log is written asynchronously: wait for its line.
    await until(
      () => logged.test(node.output()),
      () => `the log names the cause; it has: ${node.output()}`,
      { timeoutMs: 10_000, intervalMs: 50 },
    );
  } finally {
    rmSync(filler, { force: true });
  }
  const again = await node.check();
  assert.equal(again.status, 201, await again.clone().text());
  // not ready for STORAGE_FAILURE_MS after the last failed write, then ready: no restart
  await until(
    async () => (await node.readyz()).status === 200,
    () => 'ready again',
    { timeoutMs: 60_000, intervalMs: 250 },
  );
}
