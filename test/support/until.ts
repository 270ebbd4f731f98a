/**
 * Waiting on a condition instead of sleeping: polls until it holds, and fails with a message
 * saying what was awaited once the deadline passes, so a test never hangs on a loop.
 */

/** Polls `condition` every `intervalMs` until it returns true; throws after `timeoutMs`. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  describe: () => string,
  { timeoutMs = 10_000, intervalMs = 10 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`still waiting after ${timeoutMs} ms: ${describe()}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Polls `read` until it returns a value that is not undefined; throws after `timeoutMs`. */
export async function eventually<T>(
  read: () => T | undefined | Promise<T | undefined>,
  describe: () => string,
  options?: { timeoutMs?: number; intervalMs?: number },
): Promise<T> {
  let value: T | undefined;
  await until(async () => (value = await read()) !== undefined, describe, options);
  return value!;
}
