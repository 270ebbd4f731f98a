/** Where a later run of a source starts reading: its last success, less an overlap. */

/** The overlap before a source's last success that a later run reads again (notices published late or edited, clocks apart). */
export const SINCE_MARGIN_MS = 2 * 86_400_000;

/** The start of a later run's window: the last success less SINCE_MARGIN_MS, in UTC, whole seconds. */
export function windowStart(since: Date): string {
  return `${new Date(since.getTime() - SINCE_MARGIN_MS).toISOString().slice(0, 19)}Z`;
}
