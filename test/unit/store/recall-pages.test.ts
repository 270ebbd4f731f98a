/** A list page joined by the database, split into its recalls again. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jsonString } from '../../../src/domain/json-text.ts';
import { pageOfJoined } from '../../../src/store/recall-pages.ts';

/** Recalls' JSON joined as a database would, with their rows as JSON text, in the order given. */
function joined(recalls: { sortDate: string; id: string; source: string }[]) {
  const texts = recalls.map((r) => JSON.stringify({ id: r.id, title: `é ${r.id}` }));
  const rows = recalls.map((r, i) => [r.sortDate, r.id, r.source, Buffer.byteLength(texts[i]!)]);
  return { joined: Buffer.from(texts.join(',')), rows };
}

const A = { sortDate: '2026-02-01', id: 'a', source: 's1' };
const B = { sortDate: '2026-01-01', id: 'b', source: 's2' };
const C = { sortDate: '2026-01-01', id: 'c', source: 's1' };

/** The ids of a page's recalls, each parsed from its own bytes, with their positions and sources. */
const listed = (page: ReturnType<typeof pageOfJoined>) =>
  page.rows.map((r) => {
    const { id } = JSON.parse(jsonString(r.json)) as { id: string };
    assert.equal(id, r.id);
    return `${id}@${r.position.sortDate}/${r.sourceId}`;
  });

describe('a list page joined by the database', () => {
  test('is cut to its size, each recall with its position and source, and says whether more follow', () => {
    const j = joined([A, B, C]);
    const page = pageOfJoined(j.joined, JSON.stringify(j.rows), 2);
    assert.deepEqual(listed(page), ['a@2026-02-01/s1', 'b@2026-01-01/s2']);
    assert.equal(page.more, true);
  });

  test('holding fewer recalls than its size is the last page', () => {
    const j = joined([A, B]);
    const page = pageOfJoined(j.joined, JSON.stringify(j.rows), 2);
    assert.equal(page.rows.length, 2);
    assert.equal(page.more, false);
  });

  test('with no recall is empty', () => {
    for (const empty of [null, '', Buffer.alloc(0)]) {
      const page = pageOfJoined(empty, '[]', 50);
      assert.deepEqual(page, { rows: [], more: false });
    }
  });

  test('joined as text (PostgreSQL) is cut by bytes, not characters', () => {
    const j = joined([A, B, C]);
    const page = pageOfJoined(j.joined.toString('utf8'), JSON.stringify(j.rows), 2);
    assert.deepEqual(listed(page), ['a@2026-02-01/s1', 'b@2026-01-01/s2']);
  });

  test('joined out of list order is put in order before it is cut', () => {
    const j = joined([C, A, B]);
    const page = pageOfJoined(j.joined, JSON.stringify(j.rows), 2);
    assert.deepEqual(listed(page), ['a@2026-02-01/s1', 'b@2026-01-01/s2']);
    assert.equal(page.more, true);
  });

  test('whose lengths do not add up to the joined bytes is refused', () => {
    const j = joined([A, B]);
    (j.rows[1] as [string, string, string, number])[3] += 1;
    assert.throws(() => pageOfJoined(j.joined, JSON.stringify(j.rows), 2), /does not hold/);
  });
});
