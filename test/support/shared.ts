/**
 * Access to the shared specification folder (`../shared` beside the checkout), which holds
 * test vectors. A user's clone has no `../shared`: tests that need it skip with a message,
 * unless `RECALLS_REQUIRE_SHARED=1`, in which case a missing file fails the test (for CI).
 */
import { existsSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The environment variable that turns a missing shared file from a skip into a failure. */
export const REQUIRE_SHARED_ENV = 'RECALLS_REQUIRE_SHARED';

/** The shared folder: `../shared` relative to the repository root (this file is in test/support). */
const SHARED_ROOT = new URL('../../../shared/', import.meta.url);

/** Whether missing shared files must fail rather than skip (`RECALLS_REQUIRE_SHARED=1`). */
export function sharedRequired(): boolean {
  return process.env[REQUIRE_SHARED_ENV] === '1';
}

/**
 * The absolute path of a file in the shared folder (`sharedPath('spec', 'identifier-vectors.json')`),
 * or undefined when it does not exist.
 */
export function sharedPath(...parts: string[]): string | undefined {
  const url = new URL(parts.map(encodeURIComponent).join('/'), SHARED_ROOT);
  const path = fileURLToPath(url);
  return existsSync(path) ? path : undefined;
}

/**
 * Guards a test that needs a shared file. Returns true when `path` exists, so the test goes
 * on. Otherwise skips the test with a message naming the file, or, when
 * `RECALLS_REQUIRE_SHARED=1`, fails it by throwing.
 */
export function requireShared(t: TestContext, path: string | undefined, name: string): path is string {
  if (path !== undefined) return true;
  const where = fileURLToPath(new URL(name, SHARED_ROOT));
  if (sharedRequired()) {
    throw new Error(`shared file ${where} is missing and ${REQUIRE_SHARED_ENV}=1 requires it`);
  }
  t.skip(
    `shared file ${where} not found (no ../shared beside this checkout); set ${REQUIRE_SHARED_ENV}=1 to fail instead`,
  );
  return false;
}
