/**
 * `recalls diff` on two run folders whose catalogues differ in one thing: rows moved and a row inserted.
 * With a row id in both runs, a row is the same row wherever it moved; without, its number is all there is.
 * The command as a shop runs it is in cli-check.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { diffRuns, type RowChange } from '../../../src/cli/catalogue/diff.ts';
import { testUpc } from '../../support/catalogue.ts';
import { writeRunFolder } from '../../support/run-folder.ts';

const A = 'us-fda-food.TEST-A';
const C = 'us-fda-food.TEST-C';
const NEW = 'us-fda-food.TEST-NEW';
const row = (n: number) => [`TEST-SKU-${n}`, testUpc(n)] as const;
/** Both runs' matches: A on product 1, C on product 3; the new run's NEW on product 9. */
const recalls = [
  [A, testUpc(1)],
  [C, testUpc(3)],
  [NEW, testUpc(9)],
] as const;
/** Products 1, 2, 3 on rows 2, 3, 4. */
const OLD_ROWS = [row(1), row(2), row(3)];
/** Product 9 inserted first, the others in reverse order: 9, 3, 2, 1 on rows 2–5. */
const NEW_ROWS = [row(9), row(3), row(2), row(1)];

const brief = (changes: RowChange[]) => changes.map((c) => [c.row, c.row_id, c.recall_id]);

describe('recalls diff pairs rows', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'recalls-diff-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('by row id when both runs have one: moved rows are unchanged, the inserted row is new', () => {
    const old = writeRunFolder(root, 'old', { rows: OLD_ROWS, recalls });
    const now = writeRunFolder(root, 'new', { rows: NEW_ROWS, recalls });
    const d = diffRuns(old.dir, now.dir);
    assert.equal(d.keyed_by, 'row_id');
    assert.deepEqual(
      { added: brief(d.added), removed: brief(d.removed) },
      { added: [[2, 'TEST-SKU-9', NEW]], removed: [] },
    );
    const back = diffRuns(now.dir, old.dir);
    assert.deepEqual(
      { added: brief(back.added), removed: brief(back.removed) },
      { added: [], removed: [[2, 'TEST-SKU-9', NEW]] },
    );
  });

  test('by row number when a run has no row id: a moved match is gone from one row and new on another', () => {
    const old = writeRunFolder(root, 'old-numbered', { rows: OLD_ROWS, recalls, idColumn: false });
    const now = writeRunFolder(root, 'new-numbered', { rows: NEW_ROWS, recalls });
    const d = diffRuns(old.dir, now.dir);
    assert.equal(d.keyed_by, 'row');
    assert.deepEqual(brief(d.added), [
      [2, 'TEST-SKU-9', NEW],
      [3, 'TEST-SKU-3', C],
      [5, 'TEST-SKU-1', A],
    ]);
    assert.deepEqual(brief(d.removed), [
      [2, null, A],
      [4, null, C],
    ]);
  });
});
