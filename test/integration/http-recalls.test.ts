import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Identifier, RecallDraft } from '../../src/domain/recall.ts';
import { draft, json, startService, type TestService } from '../support/service.ts';

/** 157 recalls over many dates, some sharing a date, some undated. */
function corpus(): RecallDraft[] {
  const out: RecallDraft[] = [];
  for (let i = 0; i < 157; i++) {
    const undated = i % 13 === 0;
    const day = String((i % 28) + 1).padStart(2, '0');
    const month = String((i % 12) + 1).padStart(2, '0');
    out.push(
      draft(`R-${String(i).padStart(4, '0')}`, {
        published_date: undated ? null : `20${20 + (i % 5)}-${month}-${day}`,
        recall_date: undated ? null : `20${20 + (i % 5)}-${month}-01`,
        severity: (['serious', 'medium', 'low'] as const)[i % 3]!,
        hazard: { category: i % 2 === 0 ? 'undeclared_allergen' : 'microbial_contamination', text: 'text' },
        remedy: i % 4 === 0 ? 'refund' : 'unknown',
      }),
    );
  }
  return out;
}

describe('GET /v1/recalls', () => {
  let s: TestService;
  let key: string;
  before(async () => {
    s = await startService();
    key = await s.key();
    await s.seed(corpus());
  });
  after(() => s.close());

  test('answers the envelope with meta count, limit, next_cursor, data_as_of and attribution', async () => {
    const r = await s.request('/v1/recalls?limit=5', { key });
    assert.equal(r.status, 200);
    const body = await json(r);
    assert.equal(body.data.length, 5);
    assert.equal(body.meta.count, 5);
    assert.equal(body.meta.limit, 5);
    assert.equal(typeof body.meta.next_cursor, 'string');
    assert.equal(body.meta.data_as_of, '2026-06-17');
    assert.ok(Array.isArray(body.meta.attribution) && body.meta.attribution.length === 1);
    assert.equal(body.meta.total, undefined);
    assert.equal(body.data[0].identifiers, undefined, 'lists carry no identifiers');
    assert.equal(body.data[0].revision, 1);
  });

  test('walks every record exactly once in newest-first order, undated last, with any page size', async () => {
    for (const limit of [1, 7, 50, 200]) {
      const seen: { id: string; published_date: string | null }[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const q: string =
          cursor === null ? `limit=${limit}` : `limit=${limit}&cursor=${encodeURIComponent(cursor)}`;
        const body = await json(await s.request(`/v1/recalls?${q}`, { key }));
        seen.push(...body.data);
        cursor = body.meta.next_cursor;
        pages++;
        assert.ok(pages < 200, 'walk ends');
      } while (cursor !== null);
      assert.equal(seen.length, 157, `limit ${limit}: no gaps`);
      assert.equal(new Set(seen.map((r) => r.id)).size, 157, `limit ${limit}: no duplicates`);
      const firstUndated = seen.findIndex((r) => r.published_date === null);
      assert.ok(
        seen.slice(firstUndated).every((r) => r.published_date === null),
        'undated records come last',
      );
      for (let i = 1; i < firstUndated; i++) {
        const a = seen[i - 1]!;
        const b = seen[i]!;
        assert.ok(
          a.published_date! > b.published_date! || (a.published_date === b.published_date && a.id < b.id),
          'order',
        );
      }
    }
  });

  test('include_total counts every matching record; filters restrict the walk', async () => {
    const all = await json(await s.request('/v1/recalls?include_total=true&limit=1', { key }));
    assert.equal(all.meta.total, 157);
    const serious = await json(
      await s.request('/v1/recalls?severity=serious&include_total=true&limit=200', { key }),
    );
    assert.equal(serious.meta.total, 53);
    assert.ok(serious.data.every((r: { severity: string }) => r.severity === 'serious'));
    const refund = await json(
      await s.request('/v1/recalls?remedy=refund&hazard_category=undeclared_allergen&include_total=true', {
        key,
      }),
    );
    assert.equal(refund.meta.total, 40);
    const dated = await json(
      await s.request('/v1/recalls?from=2022-01-01&to=2022-12-31&include_total=true&limit=200', { key }),
    );
    assert.ok(
      dated.data.every(
        (r: { recall_date: string }) => r.recall_date >= '2022-01-01' && r.recall_date <= '2022-12-31',
      ),
    );
    assert.ok(dated.meta.total > 0);
    const us = await json(
      await s.request('/v1/recalls?jurisdiction=US&source=us-fda-food&include_total=true', { key }),
    );
    assert.equal(us.meta.total, 157);
    const none = await json(await s.request('/v1/recalls?jurisdiction=CA&include_total=true', { key }));
    assert.equal(none.meta.total, 0);
    assert.equal(none.meta.next_cursor, null);
    assert.equal(none.meta.attribution, undefined, 'attribution omitted when empty');
  });

  test('rejects an unknown query parameter with 400 naming it and listing the supported ones', async () => {
    const r = await s.request('/v1/recalls?colour=red', { key });
    assert.equal(r.status, 400);
    assert.equal(r.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    const p = await json(r);
    assert.equal(p.type, '/problems/invalid-parameter');
    assert.equal(p.parameter, 'colour');
    assert.match(
      p.detail,
      /jurisdiction.*source.*hazard_category.*severity.*remedy.*from.*to.*limit.*cursor.*include_total/,
    );
    assert.equal(p.instance, '/v1/recalls');
  });

  for (const [query, parameter] of [
    ['severity=high&severity=low', 'severity'],
    ['severity=catastrophic', 'severity'],
    ['remedy=pray', 'remedy'],
    ['hazard_category=boredom', 'hazard_category'],
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=2.5', 'limit'],
    ['from=2024-02-30', 'from'],
    ['to=20240101', 'to'],
    ['from=2024-05-01&to=2024-01-01', 'from'],
    ['include_total=yes', 'include_total'],
    ['include_total=1', 'include_total'],
    ['source=nowhere', 'source'],
  ] as const) {
    test(`rejects ${query} with 400 invalid-parameter naming ${parameter}`, async () => {
      const r = await s.request(`/v1/recalls?${query}`, { key });
      assert.equal(r.status, 400);
      const p = await json(r);
      assert.equal(p.type, '/problems/invalid-parameter');
      assert.equal(p.parameter, parameter);
      assert.equal(p.status, 400);
      assert.ok(p.title && p.detail);
    });
  }

  test('refuses a cursor that was altered, is garbage, or belongs to other filters or endpoints', async () => {
    const first = await json(await s.request('/v1/recalls?limit=3&severity=low', { key }));
    const cursor: string = first.meta.next_cursor;
    const tampered = cursor.slice(0, -3) + (cursor.endsWith('AAA') ? 'BBB' : 'AAA');
    for (const q of [
      `severity=low&cursor=${encodeURIComponent(tampered)}`,
      'cursor=not-a-cursor',
      `severity=high&cursor=${encodeURIComponent(cursor)}`,
    ]) {
      const r = await s.request(`/v1/recalls?${q}`, { key });
      assert.equal(r.status, 400, q);
      assert.equal((await json(r)).type, '/problems/invalid-cursor');
    }
    const id = first.data[0].id;
    const rev = await s.request(`/v1/recalls/${id}/revisions?cursor=${encodeURIComponent(cursor)}`, { key });
    assert.equal((await json(rev)).type, '/problems/invalid-cursor');
    // limit may change between pages
    const ok = await s.request(
      `/v1/recalls?severity=low&limit=10&include_total=true&cursor=${encodeURIComponent(cursor)}`,
      { key },
    );
    assert.equal(ok.status, 200);
  });

  test('answers 304 to If-None-Match on an unchanged corpus and a new ETag after a change', async () => {
    const r1 = await s.request('/v1/recalls?limit=2', { key });
    const etag = r1.headers.get('etag');
    assert.match(etag ?? '', /^W\/".+"$/);
    const r2 = await s.request('/v1/recalls?limit=2', { key, headers: { 'if-none-match': etag! } });
    assert.equal(r2.status, 304);
    assert.equal(await r2.text(), '');
    const other = await s.request('/v1/recalls?limit=3', { key, headers: { 'if-none-match': etag! } });
    assert.equal(other.status, 200, 'another request has another tag');
    await s.seed([draft('R-NEW', { published_date: '2030-01-01' })], { sourceId: 'us-fda-food' });
    const r3 = await s.request('/v1/recalls?limit=2', { key, headers: { 'if-none-match': etag! } });
    assert.equal(r3.status, 200);
    assert.notEqual(r3.headers.get('etag'), etag);
  });
});

describe('GET /v1/recalls/{id} and revisions', () => {
  let s: TestService;
  let key: string;
  before(async () => {
    s = await startService();
    key = await s.key();
  });
  after(() => s.close());

  test('returns one recall with every identifier, and 404 for an unknown id', async () => {
    await s.seed([
      draft('F-0001-2024', {
        identifiers: [
          { kind: 'upc', value: '0 50428 54100 5', normalized: '00050428541005', confidence: 'extracted' },
          { kind: 'lot', value: 'Lot 21096', normalized: '21096', confidence: 'inferred' },
        ],
      }),
    ]);
    const r = await s.request('/v1/recalls/us-fda-food.F-0001-2024', { key });
    assert.equal(r.status, 200);
    const body = await json(r);
    assert.equal(body.data.id, 'us-fda-food.F-0001-2024');
    assert.deepEqual(body.data.source, {
      id: 'us-fda-food',
      record_id: 'F-0001-2024',
      agency: 'U.S. Food and Drug Administration',
      jurisdiction: 'US',
    });
    assert.equal(body.data.identifiers.length, 2);
    assert.equal(body.meta.count, 1);
    assert.equal(body.meta.data_as_of, '2026-06-17');
    const missing = await s.request('/v1/recalls/us-fda-food.nope', { key });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('etag'), null, 'an error carries no ETag');
    assert.equal((await json(missing)).type, '/problems/not-found');
    const missingRevs = await s.request('/v1/recalls/us-fda-food.nope/revisions', { key });
    assert.equal(missingRevs.status, 404);
  });

  test('an unchanged re-observation adds no revision; one changed field adds exactly one', async () => {
    const base = draft('F-0002-2024');
    await s.seed([base], { observedAt: '2026-01-01T00:00:00.000Z' });
    await s.seed([base], { observedAt: '2026-01-02T00:00:00.000Z' });
    let body = await json(await s.request('/v1/recalls/us-fda-food.F-0002-2024/revisions', { key }));
    assert.deepEqual(body.data, []);
    let recall = (await json(await s.request('/v1/recalls/us-fda-food.F-0002-2024', { key }))).data;
    assert.equal(recall.revision, 1);
    assert.equal(recall.first_seen_at, '2026-01-01T00:00:00.000Z');
    assert.equal(recall.last_seen_at, '2026-01-02T00:00:00.000Z');

    await s.seed([{ ...base, hazard: { ...base.hazard, text: 'Contains undeclared milk and soy.' } }], {
      observedAt: '2026-01-03T00:00:00.000Z',
      dataAsOf: '2026-01-02',
    });
    body = await json(await s.request('/v1/recalls/us-fda-food.F-0002-2024/revisions', { key }));
    assert.equal(body.data.length, 1);
    assert.deepEqual(body.data[0], {
      revision: 2,
      observed_at: '2026-01-03T00:00:00.000Z',
      changed_fields: {
        'hazard.text': { from: 'Contains undeclared milk.', to: 'Contains undeclared milk and soy.' },
      },
      data_as_of: '2026-01-02',
    });
    recall = (await json(await s.request('/v1/recalls/us-fda-food.F-0002-2024', { key }))).data;
    assert.equal(recall.revision, 2);

    await s.seed([
      {
        ...base,
        hazard: { ...base.hazard, text: 'Contains undeclared milk and soy.' },
        severity: 'serious',
        identifiers: [{ kind: 'lot', value: 'L1', normalized: 'L1', confidence: 'inferred' }],
      },
    ]);
    body = await json(await s.request('/v1/recalls/us-fda-food.F-0002-2024/revisions?limit=1', { key }));
    assert.equal(body.data.length, 1);
    assert.equal(body.data[0].revision, 2);
    const next = await json(
      await s.request(
        `/v1/recalls/us-fda-food.F-0002-2024/revisions?limit=1&cursor=${encodeURIComponent(body.meta.next_cursor)}`,
        { key },
      ),
    );
    assert.equal(next.data[0].revision, 3);
    assert.deepEqual(Object.keys(next.data[0].changed_fields).sort(), ['identifiers', 'severity']);
    assert.deepEqual(next.data[0].changed_fields.identifiers.to, [
      { kind: 'lot', value: 'L1', normalized: 'L1', confidence: 'inferred' },
    ]);
    assert.equal(next.meta.next_cursor, null);
  });
});

describe('records over time', () => {
  test('the same countries or identifiers in another order, or repeated, are no amendment', async () => {
    const s = await startService();
    try {
      const key = await s.key();
      const upc: Identifier = {
        kind: 'upc',
        value: '0 50428 54100 5',
        normalized: '00050428541005',
        confidence: 'extracted',
      };
      const lot: Identifier = {
        kind: 'lot',
        value: 'Lot 21096',
        normalized: '21096',
        confidence: 'inferred',
      };
      const observe = (countries: string[], identifiers: Identifier[]) =>
        s.seed([draft('F-0007-2024', { countries, identifiers })]);
      await observe(['US', 'CA', 'MX'], [upc, lot]);
      await observe(['MX', 'CA', 'US', 'CA'], [lot, upc, lot]);
      const recall = (await json(await s.request('/v1/recalls/us-fda-food.F-0007-2024', { key }))).data;
      assert.equal(recall.revision, 1);
      assert.deepEqual(recall.countries, ['CA', 'MX', 'US']);
      const revisions = await json(await s.request('/v1/recalls/us-fda-food.F-0007-2024/revisions', { key }));
      assert.deepEqual(revisions.data, []);
      await observe(['CA', 'US'], [upc, lot]);
      const amended = (await json(await s.request('/v1/recalls/us-fda-food.F-0007-2024/revisions', { key })))
        .data;
      assert.deepEqual(
        amended.map((r: { changed_fields: object }) => r.changed_fields),
        [{ countries: { from: ['CA', 'MX', 'US'], to: ['CA', 'US'] } }],
      );
    } finally {
      await s.close();
    }
  });

  test('meta.data_as_of is null before any source was fetched', async () => {
    const s = await startService();
    try {
      const key = await s.key();
      const body = await json(await s.request('/v1/recalls', { key }));
      assert.deepEqual(body.data, []);
      assert.equal(body.meta.data_as_of, null);
      assert.equal(body.meta.next_cursor, null);
    } finally {
      await s.close();
    }
  });

  test('a record that disappears upstream is kept, and its last_seen_at stops moving', async () => {
    const s = await startService();
    try {
      const key = await s.key();
      await s.seed([draft('A-1'), draft('A-2')], { observedAt: '2026-02-01T00:00:00.000Z' });
      await s.seed([draft('A-1')], { observedAt: '2026-02-02T00:00:00.000Z' });
      const gone = (await json(await s.request('/v1/recalls/us-fda-food.A-2', { key }))).data;
      assert.equal(gone.last_seen_at, '2026-02-01T00:00:00.000Z');
      assert.equal(gone.revision, 1);
      const kept = (await json(await s.request('/v1/recalls/us-fda-food.A-1', { key }))).data;
      assert.equal(kept.last_seen_at, '2026-02-02T00:00:00.000Z');
    } finally {
      await s.close();
    }
  });

  test('an identifier lookup walks its matches with a cursor, without duplicates or gaps', async () => {
    const s = await startService();
    try {
      const key = await s.key();
      const lot = {
        kind: 'lot' as const,
        value: 'Lot 7788',
        normalized: '7788',
        confidence: 'inferred' as const,
      };
      await s.seed(
        Array.from({ length: 23 }, (_, i) =>
          draft(`L-${i}`, {
            published_date: i % 5 === 0 ? null : `2024-01-${String((i % 9) + 1).padStart(2, '0')}`,
            identifiers: [lot],
          }),
        ),
      );
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const q: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
        const body = await json(await s.request(`/v1/identifiers/batch/7788?limit=4${q}`, { key }));
        ids.push(...body.data.map((r: { id: string }) => r.id));
        cursor = body.meta.next_cursor;
        assert.ok(ids.length <= 23, 'walk ends');
      } while (cursor !== null);
      assert.equal(ids.length, 23);
      assert.equal(new Set(ids).size, 23);
      const first = await json(await s.request('/v1/identifiers/lot/7788?limit=4', { key }));
      const r = await s.request(
        `/v1/identifiers/lot/7789?cursor=${encodeURIComponent(first.meta.next_cursor)}`,
        { key },
      );
      assert.equal((await json(r)).type, '/problems/invalid-cursor', 'a cursor belongs to its identifier');
    } finally {
      await s.close();
    }
  });
});
