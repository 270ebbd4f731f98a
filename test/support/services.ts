/**
 * The local PostgreSQL and Redis that the multi-node suites need. A user's machine may have
 * neither: those tests skip with a message, unless RECALLS_REQUIRE_SERVICES=1 (CI), where a
 * missing service fails them.
 */
import { connect } from 'node:net';
import type { TestContext } from 'node:test';

export const REDIS_URL = process.env.RECALLS_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function reachable(url: string, defaultPort: number): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(u.port || defaultPort), u.hostname);
    socket.setTimeout(1000);
    socket.on('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** True when the service answers; otherwise skips the test (or fails it when required). */
export async function requireService(
  t: TestContext,
  name: 'PostgreSQL' | 'Redis',
  url: string,
): Promise<boolean> {
  if (await reachable(url, name === 'Redis' ? 6379 : 5432)) return true;
  if (process.env.RECALLS_REQUIRE_SERVICES === '1') throw new Error(`${name} at ${url} is not reachable`);
  t.skip(`${name} at ${url} is not reachable; set RECALLS_REQUIRE_SERVICES=1 to fail instead`);
  return false;
}
