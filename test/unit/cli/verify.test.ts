/**
 * `recalls verify --offline` on run folders changed in one thing at a time, each change consistent with
 * everything else (a receipt rewritten has its new SHA-256 in run.json), so that each check of verify must
 * find its own problem: no other check trips first. The command as a shop runs it is in cli-check.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EXIT } from '../../../src/cli/exit-codes.ts';
import { runFiles } from '../../../src/cli/catalogue/run-record.ts';
import { runVerifyCommand } from '../../../src/cli/catalogue/verify.ts';
import { testUpc } from '../../support/catalogue.ts';
import {
  changeReceipt,
  changeRun,
  readRun,
  writeRunFolder,
  type RunFolder,
} from '../../support/run-folder.ts';

/** Four rows in two chunks of two; TEST-1 matches row 2, TEST-3 row 4. */
const SPEC = {
  rows: [1, 2, 3, 4].map((n) => [`TEST-SKU-${n}`, testUpc(n)] as const),
  recalls: [
    ['us-fda-food.TEST-1', testUpc(1)],
    ['us-fda-food.TEST-3', testUpc(3)],
  ] as const,
  chunkSize: 2,
};

async function verify(f: RunFolder): Promise<{ code: number; lines: string[]; failed: string[] }> {
  const lines: string[] = [];
  const code = await runVerifyCommand(f.dir, { catalogue: f.catalogue, offline: true }, (l) => lines.push(l));
  return { code, lines, failed: lines.filter((l) => /NOT/.test(l) && !/^NOT verified: /.test(l)) };
}

describe('recalls verify, one change at a time', () => {
  let root: string;
  let n = 0;
  const fresh = () => writeRunFolder(root, `run-${++n}`, SPEC);
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'recalls-verify-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('a run as written is verified, each check and matches.csv', async () => {
    const { code, lines, failed } = await verify(fresh());
    assert.deepEqual(failed, []);
    assert.equal(code, EXIT.ok, lines.join('\n'));
    assert.equal(lines.filter((l) => /^check chk_\S+, chunk \d .*: verified$/.test(l)).length, 2);
    assert.ok(lines.includes('matches.csv: as the receipts and the catalogue give it'));
    assert.match(lines.at(-1)!, /^verified: 2 checks of run \S+ \(complete\), offline/);
  });

  test("a result_digest that is not its matches' digest, in a receipt whose SHA-256 run.json holds", async () => {
    const f = fresh();
    changeReceipt(f, 1, (data) => {
      data.result_digest = '0'.repeat(64);
    });
    const { code, lines, failed } = await verify(f);
    assert.equal(code, EXIT.failed, `verified:\n${lines.join('\n')}`);
    assert.equal(failed.length, 1, failed.join('\n'));
    assert.match(
      failed[0]!,
      /^check chk_run-\d+_1, chunk 1 \(rows 2–3\): NOT verified: result_digest over the receipt's 1 matches is [0-9a-f]{64}, the receipt says 0{64}$/,
    );
  });

  test('a result_digest that is not the digest of no matches, in a receipt that matched nothing', async () => {
    // Only TEST-1 is recalled: the second chunk (rows 4–5) matches nothing.
    const f = writeRunFolder(root, `run-${++n}`, { ...SPEC, recalls: SPEC.recalls.slice(0, 1) });
    changeReceipt(f, 2, (data) => {
      data.result_digest = '0'.repeat(64);
    });
    const { code, lines, failed } = await verify(f);
    assert.equal(code, EXIT.failed, `verified:\n${lines.join('\n')}`);
    assert.equal(failed.length, 1, failed.join('\n'));
    assert.match(
      failed[0]!,
      /^check chk_run-\d+_2, chunk 2 \(rows 4–5\): NOT verified: result_digest over the receipt's 0 matches is [0-9a-f]{64}, the receipt says 0{64}$/,
    );
  });

  test("a submitted_digest the catalogue's rows do not give, the same in run.json and the receipt", async () => {
    const f = fresh();
    const other = '1'.repeat(64);
    changeReceipt(f, 2, (data) => {
      data.submitted_digest = other;
    });
    changeRun(f, (run) => {
      run.chunks[1]!.submitted_digest = other;
    });
    const { code, lines, failed } = await verify(f);
    assert.equal(code, EXIT.failed, `verified:\n${lines.join('\n')}`);
    assert.equal(failed.length, 1, failed.join('\n'));
    assert.match(
      failed[0]!,
      /^check chk_run-\d+_2, chunk 2 \(rows 4–5\): NOT verified: submitted_digest recomputed from the catalogue's rows 4–5 is [0-9a-f]{64}, the run recorded 1{64}$/,
    );
  });

  test('a match_count that is not the number of matches', async () => {
    const f = fresh();
    changeReceipt(f, 2, (data) => {
      data.match_count = 2;
    });
    const { failed } = await verify(f);
    assert.equal(failed.length, 1, failed.join('\n'));
    assert.match(failed[0]!, /chunk 2 .*: NOT verified: match_count is 2 for 1 matches$/);
  });

  test('a receipt whose SHA-256 is not the one in run.json', async () => {
    const f = fresh();
    const path = runFiles(f.dir).receipt(readRun(f).chunks[0]!.check_id!);
    writeFileSync(path, readFileSync(path, 'utf8').replace('"label":null', '"label":"changed"'));
    const { failed } = await verify(f);
    assert.equal(failed.length, 1, failed.join('\n'));
    assert.match(failed[0]!, /chunk 1 .*: NOT verified: chk_\S+\.json changed since the run/);
  });

  test('matches.csv that is not what the receipts and the catalogue give', async () => {
    const f = fresh();
    const path = runFiles(f.dir).matches;
    writeFileSync(path, readFileSync(path, 'utf8').replace('TEST RECORD us-fda-food.TEST-3', 'TEST RECORD'));
    const { failed } = await verify(f);
    assert.deepEqual(failed, ['matches.csv: NOT what the receipts and the catalogue give']);
  });

  test('a catalogue other than the run read', async () => {
    const f = fresh();
    writeFileSync(f.catalogue, readFileSync(f.catalogue, 'utf8').replace('TEST-SKU-4', 'TEST-SKU-9'));
    const { failed } = await verify(f);
    assert.equal(failed.length, 1, failed.join('\n'));
    assert.match(failed[0]!, /: NOT the catalogue of the run: SHA-256 [0-9a-f]{64}, run.json records/);
  });
});
