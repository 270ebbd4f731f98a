import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jsonString } from '../../../src/domain/json-text.ts';
import { pageOfJoined, type JoinedRow } from '../../../src/store/joined-recalls.ts';

/** Three recalls' JSON joined as a database would, with their rows, in the order given. */
function joined(recalls: { sortDate: string; id: string; source: string }[]): {
  joined: Buffer;
  rows: JoinedRow[];
} {
  const texts = recalls.map((r) => JSON.stringify({ id: r.id, title: `é ${r.id}` }));
  return {
    joined: Buffer.from(texts.join(',')),
    rows: recalls.map((r, i) => [r.sortDate, r.id, r.source, Buffer.byteLength(texts[i]!)]),
  };
}

const A = { sortDate: '2026-02-01', id: 'a', source: 's1' };
const B = { sortDate: '2026-01-01', id: 'b', source: 's2' };
const C = { sortDate: '2026-01-01', id: 'c', source: 's1' };

const ids = (json: Parameters<typeof jsonString>[0]) =>
  (JSON.parse(jsonString(json)) as { id: string }[]).map((r) => r.id);

describe('a list page joined by the database', () => {
  test('is cut to its size, with the last position, its sources and whether more follow', () => {
    const j = joined([A, B, C]);
    const page = pageOfJoined(j.joined, j.rows, 2);
    assert.deepEqual(ids(page.json), ['a', 'b']);
    assert.equal(page.count, 2);
    assert.deepEqual(page.last, { sortDate: '2026-01-01', id: 'b' });
    assert.deepEqual(page.sourceIds, ['s1', 's2']);
    assert.equal(page.more, true);
  });

  test('holding fewer recalls than its size is the last page', () => {
    const j = joined([A, B]);
    const page = pageOfJoined(j.joined, j.rows, 2);
    assert.deepEqual(ids(page.json), ['a', 'b']);
    assert.equal(page.more, false);
  });

  test('with no recall is an empty array', () => {
    for (const empty of [null, '', Buffer.alloc(0)]) {
      const page = pageOfJoined(empty, [], 50);
      assert.equal(jsonString(page.json), '[]');
      assert.equal(page.count, 0);
      assert.equal(page.last, undefined);
      assert.equal(page.more, false);
    }
  });

  test('joined as text (PostgreSQL) is cut by bytes, not characters', () => {
    const j = joined([A, B, C]);
    const page = pageOfJoined(j.joined.toString('utf8'), j.rows, 2);
    assert.deepEqual(ids(page.json), ['a', 'b']);
  });

  test('joined out of list order is put in order before it is cut', () => {
    const j = joined([C, A, B]);
    const page = pageOfJoined(j.joined, j.rows, 2);
    assert.deepEqual(ids(page.json), ['a', 'b']);
    assert.deepEqual(page.last, { sortDate: '2026-01-01', id: 'b' });
    assert.deepEqual(page.sourceIds, ['s1', 's2']);
    assert.equal(page.more, true);
  });

  test('whose lengths do not add up to the joined bytes is refused', () => {
    const j = joined([A, B]);
    j.rows[1]![3] += 1;
    assert.throws(() => pageOfJoined(j.joined, j.rows, 2), /does not hold/);
  });
});
