/**
 * Corpus-backed answers are kept per corpus version: a repeated request gets the bytes made the
 * first time (after every gate, and counted like any answer), and a new corpus version is
 * answered afresh.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { openRawEngine } from '../support/database.ts';
import { draft, json, startService, usageReaches, type TestService } from '../support/service.ts';

const LOOKUP = '/v1/identifiers/lot/4242';

describe('answers kept per corpus version', () => {
  let s: TestService;
  before(async () => {
    s = await startService({ env: { RECALLS_PLAN_FREE_REQUESTS: '6' } });
    await s.seed([
      draft('F-1-2024', {
        title: 'First title',
        identifiers: [{ kind: 'lot', value: 'Lot 4242', normalized: '4242', confidence: 'inferred' }],
      }),
    ]);
  });
  after(() => s.close());

  test('a repeated request is answered with the same bytes until the corpus version moves', async () => {
    const key = await s.key('growth');
    const first = await s.request(LOOKUP, { key });
    const body = await first.text();
    assert.equal(first.status, 200);
    assert.equal(JSON.parse(body).data[0].title, 'First title');

    // Changed under the store without moving the corpus version: what is answered is what was
    // made at this version, so the change is not seen (the ETag promises the same).
    const raw = openRawEngine(s.config.database);
    try {
      // the title as its column and as the stored rendering answers are assembled from
      await sql`UPDATE recalls SET title = 'Changed behind the version',
        rendered_fields = replace(rendered_fields, '"First title"', '"Changed behind the version"')`.execute(
        raw.db,
      );
    } finally {
      await raw.close();
    }
    const again = await s.request(LOOKUP, { key });
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('content-type'), first.headers.get('content-type'));
    assert.equal(again.headers.get('etag'), first.headers.get('etag'));
    assert.equal(await again.text(), body, 'the same bytes');
    // another URL at the same version is made afresh
    const other = await json(await s.request(`${LOOKUP}?limit=5`, { key }));
    assert.equal(other.data[0].title, 'Changed behind the version');

    // A new observation moves the version: the answer is made again.
    await s.seed([
      draft('F-1-2024', {
        title: 'Amended title',
        identifiers: [{ kind: 'lot', value: 'Lot 4242', normalized: '4242', confidence: 'inferred' }],
      }),
    ]);
    const fresh = await s.request(LOOKUP, { key });
    assert.notEqual(fresh.headers.get('etag'), first.headers.get('etag'));
    assert.equal((await json(fresh)).data[0].title, 'Amended title');
  });

  test("one key's receipts are never answered to another key that GETs the same URL", async () => {
    const mine = await s.key('growth');
    const theirs = await s.key('growth');
    const check = await s.request('/v1/checks', {
      key: mine,
      body: { label: 'mine', identifiers: [{ kind: 'lot', value: '4242' }] },
    });
    assert.equal(check.status, 201);
    const id = (await json(check)).data.check_id as string;
    for (const url of ['/v1/checks', '/v1/checks?limit=5', `/v1/checks/${id}`]) {
      const own = await s.request(url, { key: mine });
      assert.equal(own.status, 200, url);
      const body = await own.text();
      assert.match(body, new RegExp(id), url);
      assert.equal(await (await s.request(url, { key: mine })).text(), body, `${url} again, for its key`);
      // The other key, after the owner's answer was made (and could be kept), and with the owner's tag.
      for (const headers of [{}, { 'if-none-match': own.headers.get('etag')! }] as Record<string, string>[]) {
        const other = await s.request(url, { key: theirs, headers });
        const seen = `${url} for another key${'if-none-match' in headers ? " with the owner's tag" : ''}`;
        if (url.endsWith(id)) {
          assert.equal(other.status, 404, seen);
          assert.equal((await json(other)).type, '/problems/not-found', seen);
        } else {
          assert.equal(other.status, 200, seen);
          assert.deepEqual((await json(other)).data, [], seen);
        }
      }
    }
  });

  test('a kept answer still passes every gate and counts against the quota', async () => {
    const key = await s.key('free');
    const warm = await s.request(LOOKUP, { key: await s.key('growth') });
    assert.equal(warm.status, 200);
    const codes: number[] = [];
    for (let i = 0; i < 7; i++) codes.push((await s.request(LOOKUP, { key })).status);
    assert.deepEqual(codes, [200, 200, 200, 200, 200, 200, 402]);
    await usageReaches(s, key, { requests: 6, identifiers: 0 });

    assert.equal((await s.request(LOOKUP)).status, 401, 'no key');
    assert.equal((await s.request(`${LOOKUP}?bogus=1`, { key })).status, 400, 'unknown parameter');
    const revokedKey = await s.key('growth');
    assert.equal((await s.request(LOOKUP, { key: revokedKey })).status, 200);
    await s.store.keys.revoke(revokedKey, new Date());
    const refused = await s.request(LOOKUP, { key: revokedKey });
    assert.equal(refused.status, 403);
    assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/);
  });
});
