/**
 * The shared assertion of the adapters' set-aside tests: a page with unreadable records among
 * readable ones gives the readable ones, and sets each unreadable one aside, in page order, at
 * its place and for its reason.
 */
import assert from 'node:assert/strict';
import type { ParsedPage } from '../../src/ingest/source.ts';

/** One unreadable record: why it is unreadable, the record, its reported place, what its reason says. */
export type BadRecord = readonly [why: string, record: unknown, place: string, reason?: RegExp];

/** Asserts that `parsed` kept exactly the records `kept` (by record id) and set aside every one of `bad`. */
export function assertSetAside(
  parsed: Pick<ParsedPage, 'drafts' | 'setAside'>,
  kept: readonly string[],
  bad: readonly BadRecord[],
): void {
  assert.deepEqual(
    parsed.drafts.map((d) => d.recordId),
    kept,
  );
  assert.deepEqual(
    parsed.setAside.map((s) => s.record),
    bad.map(([, , place]) => place),
  );
  bad.forEach(([why, , , reason], i) => {
    if (reason !== undefined) assert.match(parsed.setAside[i]!.reason, reason, why);
  });
}
