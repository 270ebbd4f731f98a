import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../../src/store/database.ts';
import { listeningUrl, runCli, startCli } from '../support/cli.ts';
import { until } from '../support/until.ts';
import { createTestDatabase, openRawEngine } from '../support/database.ts';
import { draft, json, startService, usageReaches, type TestService } from '../support/service.ts';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** A POST whose headers are sent line by line as given (fetch joins a repeated header). */
function postRaw(
  url: string,
  headers: Record<string, string | string[]>,
  body: string,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/v1/checks`, { method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** `n` LOT identifiers, distinct. */
const lots = (n: number) => Array.from({ length: n }, (_, i) => ({ kind: 'lot', value: `LOT${i}` }));

describe('POST /v1/checks and receipts', () => {
  let s: TestService;
  let key: string;
  before(async () => {
    s = await startService();
    key = await s.key('growth');
    await s.seed([
      draft('F-1000-2024', {
        title: 'Cheese biscuits',
        severity: 'medium',
        identifiers: [
          { kind: 'ean', value: '6926145714029', normalized: '06926145714029', confidence: 'extracted' },
          { kind: 'lot', value: 'Lot 21096', normalized: '21096', confidence: 'inferred' },
        ],
      }),
      draft('F-1001-2024', {
        identifiers: [
          { kind: 'upc', value: '6926145714029', normalized: '06926145714029', confidence: 'extracted' },
        ],
      }),
      draft('D-1002-2024', {
        identifiers: [
          { kind: 'ndc', value: 'NDC 0143-1473-01', normalized: '00143147301', confidence: 'exact' },
        ],
      }),
    ]);
  });
  after(() => s.close());

  test('matches across barcode forms, rejects what cannot be normalised, and digests what was checked', async () => {
    const body = {
      label: 'nightly catalogue',
      identifiers: [
        { kind: 'UPC', value: '06926145714029' },
        { kind: 'gtin', value: '6926145714029' },
        { kind: 'gtin', value: '06926145714029' },
        { kind: 'batch', value: '21-096' },
        { kind: 'ndc', value: '0143-1473' },
        { kind: 'upc', value: '012345678905' },
        { kind: 'upc', value: '7501031311308' },
        { kind: 'ndc', value: '0071015523' },
        { kind: 'isbn', value: '123' },
        { kind: 'lot', value: 'N/A' },
      ],
    };
    const r = await s.request('/v1/checks', { key, body });
    assert.equal(r.status, 201);
    const { data, meta } = await json(r);
    assert.match(data.check_id, /^chk_[A-Za-z0-9]{24}$/);
    assert.equal(data.label, 'nightly catalogue');
    assert.equal(data.submitted_count, 5, 'gtin duplicates checked once');
    assert.deepEqual(
      data.rejected.map((x: { reason: string }) => x.reason),
      ['invalid_check_digit', 'ambiguous', 'unknown_kind', 'empty'],
    );
    assert.equal(data.rejected_count, 4);
    const pairs = [
      'upc:06926145714029',
      'gtin:06926145714029',
      'batch:21096',
      'ndc:001431473',
      'upc:00012345678905',
    ];
    assert.equal(data.submitted_digest, sha256([...pairs].sort().join('\n')));
    const matched = data.matches.map(
      (m: { matched_on: { kind: string }; recall_id: string }) => `${m.matched_on.kind}>${m.recall_id}`,
    );
    assert.deepEqual(matched.sort(), [
      'batch>us-fda-food.F-1000-2024',
      'gtin>us-fda-food.F-1000-2024',
      'gtin>us-fda-food.F-1001-2024',
      'ndc>us-fda-food.D-1002-2024',
      'upc>us-fda-food.F-1000-2024',
      'upc>us-fda-food.F-1001-2024',
    ]);
    assert.equal(data.match_count, 6);
    const ids = ['us-fda-food.D-1002-2024', 'us-fda-food.F-1000-2024', 'us-fda-food.F-1001-2024'];
    assert.equal(data.result_digest, sha256(ids.join('\n')));
    const m = data.matches.find((x: { recall_id: string }) => x.recall_id === 'us-fda-food.F-1000-2024');
    assert.equal(m.revision_at_check, 1);
    assert.equal(m.title, 'Cheese biscuits');
    assert.equal(m.severity, 'medium');
    assert.equal(m.jurisdiction, 'US');
    assert.equal(data.corpus_size, 3);
    assert.equal(data.corpus_as_of, '2026-06-17');
    assert.equal(meta.count, 1);
    assert.equal(meta.data_as_of, '2026-06-17');
    assert.ok(meta.attribution.length === 1);
  });

  test('a receipt keeps the revision at check time after the recall is amended, and the database refuses to change it', async () => {
    const r = await s.request('/v1/checks', {
      key,
      body: { identifiers: [{ kind: 'lot', value: '21096' }] },
    });
    const { data } = await json(r);
    assert.equal(data.matches[0].revision_at_check, 1);
    await s.seed([
      draft('F-1000-2024', {
        title: 'Cheese biscuits (amended)',
        severity: 'serious',
        identifiers: [{ kind: 'lot', value: 'Lot 21096', normalized: '21096', confidence: 'inferred' }],
      }),
    ]);
    const again = await json(await s.request(`/v1/checks/${data.check_id}`, { key }));
    assert.deepEqual(again.data, data, 'the receipt is as it was');
    const fresh = await json(
      await s.request('/v1/checks', { key, body: { identifiers: [{ kind: 'lot', value: '21096' }] } }),
    );
    assert.equal(fresh.data.matches[0].revision_at_check, 2);
    assert.notEqual(fresh.data.check_id, data.check_id);
    assert.equal(fresh.data.result_digest, data.result_digest, 'equal findings, equal digest');

    const raw = openRawEngine(s.config.database);
    const { sql } = await import('kysely');
    await assert.rejects(sql`UPDATE checks SET label = 'x'`.execute(raw.db), /immutable/);
    await assert.rejects(sql`DELETE FROM checks`.execute(raw.db), /immutable/);
    await raw.close();
    assert.equal((await json(await s.request(`/v1/checks/${data.check_id}`, { key }))).data.label, null);
  });

  test('lists only the calling key’s receipts, newest first, without matches, with a cursor', async () => {
    const other = await s.key('growth');
    const mine: string[] = [];
    for (let i = 0; i < 3; i++) {
      mine.push(
        (
          await json(
            await s.request('/v1/checks', {
              key: other,
              body: { label: `n${i}`, identifiers: [{ kind: 'lot', value: 'AB12' }] },
            }),
          )
        ).data.check_id,
      );
    }
    const page1 = await json(await s.request('/v1/checks?limit=2', { key: other }));
    assert.deepEqual(
      page1.data.map((c: { check_id: string }) => c.check_id),
      [mine[2], mine[1]],
    );
    assert.equal(page1.data[0].matches, undefined);
    const page2 = await json(
      await s.request(`/v1/checks?limit=2&cursor=${encodeURIComponent(page1.meta.next_cursor)}`, {
        key: other,
      }),
    );
    assert.deepEqual(
      page2.data.map((c: { check_id: string }) => c.check_id),
      [mine[0]],
    );
    assert.equal(page2.meta.next_cursor, null);
    const foreign = await s.request(`/v1/checks/${mine[0]}`, { key });
    assert.equal(foreign.status, 404, "another key's receipt is not found");
    assert.equal((await json(foreign)).type, '/problems/not-found');
    const firstKeyList = await json(await s.request('/v1/checks?limit=200', { key }));
    assert.ok(firstKeyList.data.every((c: { check_id: string }) => !mine.includes(c.check_id)));
    // ETag on a key's list changes when the key adds a receipt
    const before1 = await s.request('/v1/checks', { key: other });
    const tag = before1.headers.get('etag')!;
    assert.equal(
      (await s.request('/v1/checks', { key: other, headers: { 'if-none-match': tag } })).status,
      304,
    );
    await s.request('/v1/checks', { key: other, body: { identifiers: [{ kind: 'lot', value: 'AB12' }] } });
    assert.equal(
      (await s.request('/v1/checks', { key: other, headers: { 'if-none-match': tag } })).status,
      200,
    );
  });

  test('Idempotency-Key replays the original receipt uncharged and refuses a different body', async () => {
    const k = await s.key('free');
    const body = {
      identifiers: [
        { kind: 'upc', value: '6926145714029' },
        { kind: 'lot', value: 'ZZ99' },
      ],
    };
    const headers = { 'idempotency-key': 'order-2026-11-22' };
    const first = await s.request('/v1/checks', { key: k, body, headers });
    assert.equal(first.status, 201);
    const a = await json(first);
    await usageReaches(s, k, { requests: 1, identifiers: 2 });
    const second = await s.request('/v1/checks', { key: k, body, headers });
    assert.equal(second.status, 201);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal((await json(second)).data.check_id, a.data.check_id);
    // the replay's unit is freed once it has been answered: a request answered afterwards is the second
    assert.equal((await s.request('/v1/checks', { key: k })).status, 200);
    await usageReaches(s, k, { requests: 2, identifiers: 2 });
    const conflict = await s.request('/v1/checks', {
      key: k,
      body: { identifiers: [{ kind: 'lot', value: 'OTHER' }] },
      headers,
    });
    assert.equal(conflict.status, 400);
    assert.equal((await json(conflict)).parameter, 'Idempotency-Key');
    const bad = await s.request('/v1/checks', {
      key: k,
      body,
      headers: { 'idempotency-key': 'x'.repeat(256) },
    });
    assert.equal((await json(bad)).parameter, 'Idempotency-Key');
  });

  test('ten concurrent checks with one Idempotency-Key record one receipt, charged once; the others replay it', async () => {
    // 1000 identifiers each on a free key (5000 a month): ten charges would not even fit
    const k = await s.key('free');
    const body = { identifiers: lots(1000) };
    const headers = { 'idempotency-key': 'concurrent-batch' };
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => s.request('/v1/checks', { key: k, body, headers })),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(10).fill(201),
    );
    const bodies = await Promise.all(answers.map((a) => json(a)));
    assert.equal(new Set(bodies.map((b) => b.data.check_id)).size, 1, 'one receipt');
    assert.equal(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true').length, 9);
    for (const b of bodies) assert.deepEqual(b, bodies[0], 'each replay is the same body');
    const list = await json(await s.request('/v1/checks', { key: k }));
    assert.equal(list.data.length, 1);
    await usageReaches(s, k, { requests: 2, identifiers: 1000 }); // the check once, and the list
  });

  test('Idempotency-Key sent twice is 400 naming it, whatever the two values', async () => {
    const k = await s.key('free');
    const body = JSON.stringify({ identifiers: [{ kind: 'lot', value: 'AB12' }] });
    for (const twice of [
      ['a', 'b'],
      ['same', 'same'],
    ]) {
      const r = await postRaw(
        s.url,
        { authorization: `Bearer ${k}`, 'content-type': 'application/json', 'idempotency-key': twice },
        body,
      );
      assert.equal(r.status, 400);
      assert.equal(r.body.type, '/problems/invalid-parameter');
      assert.equal(r.body.parameter, 'Idempotency-Key');
    }
    const once = await postRaw(
      s.url,
      { authorization: `Bearer ${k}`, 'content-type': 'application/json', 'idempotency-key': 'a, b' },
      body,
    );
    assert.equal(once.status, 201, 'one header whose value holds a comma is one key');
    assert.equal((await json(await s.request('/v1/checks', { key: k }))).data.length, 1);
  });

  test('a value that NFKC expands past 512 characters is rejected unread (invalid_length): the 1 MiB attack is cheap', async () => {
    // U+FDFA becomes 18 characters under NFKC: 339 of them are 6102 once normalised
    const attack = {
      identifiers: Array.from({ length: 1000 }, () => ({ kind: 'lot', value: '\ufdfa'.repeat(339) })),
    };
    assert.ok(JSON.stringify(attack).length > 1000 * 339);
    const r = await s.request('/v1/checks', { key, body: attack });
    assert.equal(r.status, 201);
    const { data } = await json(r);
    assert.equal(data.submitted_count, 0);
    assert.equal(data.rejected_count, 1000);
    assert.ok(data.rejected.every((x: { reason: string }) => x.reason === 'invalid_length'));
    assert.equal(data.rejected[0].value, `${'\ufdfa'.repeat(63)}…`, 'kept shortened');
  });

  test("a rejected value is kept shortened to 64 characters, so a receipt's size is bounded", async () => {
    const k = await s.key('growth');
    const identifiers = [
      { kind: 'k'.repeat(32), value: 'v'.repeat(512) },
      { kind: 'upc', value: `${'x'.repeat(62)}\u{1F600}tail` },
      { kind: 'isbn', value: 'x'.repeat(64) },
    ];
    const created = await json(await s.request('/v1/checks', { key: k, body: { identifiers } }));
    assert.deepEqual(
      created.data.rejected.map((x: { kind: string; value: string }) => [x.kind, x.value]),
      [
        ['k'.repeat(32), `${'v'.repeat(63)}…`],
        ['upc', `${'x'.repeat(62)}…`], // the pair at 63-64 is not split
        ['isbn', 'x'.repeat(64)],
      ],
    );
    const read = await json(await s.request(`/v1/checks/${created.data.check_id}`, { key: k }));
    assert.deepEqual(read.data, created.data, 'stored as acknowledged');
    // the largest receipt of rejected items: 1000 of the longest kind and value
    const worst = Array.from({ length: 1000 }, (_, i) => ({
      kind: `${'k'.repeat(28)}${1000 + i}`,
      value: 'v'.repeat(512),
    }));
    assert.equal((await s.request('/v1/checks', { key: k, body: { identifiers: worst } })).status, 201);
    const list = await s.request('/v1/checks?limit=1', { key: k });
    const bytes = Buffer.byteLength(await list.text());
    assert.ok(bytes < 150_000, `a listed receipt of 1000 rejected items is ${bytes} bytes`);
  });

  for (const [name, rawBody, parameter] of [
    ['not JSON', '{"identifiers": [', 'body'],
    ['an array', '[]', 'body'],
    ['a string', '"hello"', 'body'],
    ['null', 'null', 'body'],
    ['no identifiers', '{"label":"x"}', 'identifiers'],
    ['empty identifiers', '{"identifiers":[]}', 'identifiers'],
    ['identifiers not an array', '{"identifiers":{"kind":"upc"}}', 'identifiers'],
    ['an item that is not an object', '{"identifiers":["upc:123"]}', 'identifiers[0]'],
    [
      'a numeric value',
      '{"identifiers":[{"kind":"upc","value":"012345678905"},{"kind":"upc","value":12}]}',
      'identifiers[1].value',
    ],
    ['a missing kind', '{"identifiers":[{"value":"x"}]}', 'identifiers[0].kind'],
    ['an unknown item field', '{"identifiers":[{"kind":"upc","value":"x","qty":2}]}', 'identifiers[0].qty'],
    ['an unknown top-level field', '{"identifiers":[{"kind":"upc","value":"x"}],"mode":"fast"}', 'mode'],
    [
      'a long label',
      JSON.stringify({ label: 'x'.repeat(201), identifiers: [{ kind: 'upc', value: 'x' }] }),
      'label',
    ],
    ['a numeric label', '{"label":5,"identifiers":[{"kind":"upc","value":"x"}]}', 'label'],
    [
      'a kind over 32 characters',
      JSON.stringify({ identifiers: [{ kind: 'k'.repeat(33), value: 'AB12' }] }),
      'identifiers[0].kind',
    ],
    [
      'a value over 512 characters',
      JSON.stringify({
        identifiers: [
          { kind: 'lot', value: 'AB12' },
          { kind: 'lot', value: 'v'.repeat(513) },
        ],
      }),
      'identifiers[1].value',
    ],
    [
      'a label with a lone surrogate',
      '{"label":"order \\ud83d","identifiers":[{"kind":"lot","value":"AB12"}]}',
      'label',
    ],
    [
      'a value with a lone surrogate',
      '{"identifiers":[{"kind":"lot","value":"AB\\udc00"}]}',
      'identifiers[0].value',
    ],
    [
      'a kind with a lone surrogate',
      '{"identifiers":[{"kind":"lot\\ud800","value":"AB12"}]}',
      'identifiers[0].kind',
    ],
    [
      '1001 identifiers',
      JSON.stringify({ identifiers: Array.from({ length: 1001 }, () => ({ kind: 'lot', value: 'AB' })) }),
      'identifiers',
    ],
  ] as const) {
    test(`refuses a body with ${name} with 400 naming ${parameter}, recording and charging nothing`, async () => {
      const k = await s.key('free');
      const r = await s.request('/v1/checks', {
        key: k,
        rawBody,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(r.status, 400);
      const p = await json(r);
      assert.equal(p.type, '/problems/invalid-parameter');
      assert.equal(p.parameter, parameter);
      const list = await json(await s.request('/v1/checks', { key: k }));
      assert.equal(list.data.length, 0);
      await usageReaches(s, k, { requests: 1, identifiers: 0 }); // only the list was charged
    });
  }

  test('accepts exactly 1000 identifiers', async () => {
    const identifiers = Array.from({ length: 1000 }, (_, i) => ({ kind: 'lot', value: `LOT${i}` }));
    const r = await s.request('/v1/checks', { key, body: { identifiers } });
    assert.equal(r.status, 201);
    assert.equal((await json(r)).data.submitted_count, 1000);
  });
});

describe('GET /v1/identifiers/{kind}/{value}', () => {
  let s: TestService;
  let key: string;
  before(async () => {
    s = await startService();
    key = await s.key();
    await s.seed([
      draft('F-1-2024', {
        identifiers: [
          { kind: 'gtin', value: '(01)00012000007897', normalized: '00012000007897', confidence: 'exact' },
        ],
      }),
      draft('D-2-2024', {
        identifiers: [{ kind: 'ndc', value: '0143-1473-01', normalized: '00143147301', confidence: 'exact' }],
      }),
      draft('D-3-2024', {
        identifiers: [
          { kind: 'ndc', value: '0143-1473-02', normalized: '00143147302', confidence: 'extracted' },
        ],
      }),
    ]);
  });
  after(() => s.close());

  test('finds a UPC-E, UPC-A or EAN-13 against the GTIN stored, naming the stored identifier', async () => {
    for (const [kind, value] of [
      ['upc', '01278907'],
      ['UPC', '012000007897'],
      ['ean', '0012000007897'],
      ['gtin', '00012000007897'],
    ]) {
      const r = await s.request(`/v1/identifiers/${kind}/${encodeURIComponent(value!)}`, { key });
      assert.equal(r.status, 200, `${kind} ${value}`);
      const body = await json(r);
      assert.equal(body.data.length, 1);
      assert.deepEqual(body.data[0].match, {
        kind: 'gtin',
        normalized: '00012000007897',
        confidence: 'exact',
      });
      assert.equal(body.data[0].id, 'us-fda-food.F-1-2024');
      assert.equal(body.meta.limit, 50);
      assert.equal(body.meta.next_cursor, null);
    }
  });

  test('a product NDC finds every package; a package NDC finds only itself', async () => {
    const product = await json(await s.request('/v1/identifiers/ndc/0143-1473', { key }));
    assert.deepEqual(product.data.map((r: { id: string }) => r.id).sort(), [
      'us-fda-food.D-2-2024',
      'us-fda-food.D-3-2024',
    ]);
    const pkg = await json(await s.request('/v1/identifiers/ndc/00143-1473-01', { key }));
    assert.deepEqual(
      pkg.data.map((r: { id: string }) => r.id),
      ['us-fda-food.D-2-2024'],
    );
  });

  test('a valid value matching nothing is 200 with no data; bad kinds and values are 400 naming them', async () => {
    const none = await s.request('/v1/identifiers/upc/036000291452', { key });
    assert.equal(none.status, 200);
    assert.deepEqual((await json(none)).data, []);
    const kind = await json(await s.request('/v1/identifiers/isbn/123', { key }));
    assert.equal(kind.parameter, 'kind');
    const value = await json(await s.request('/v1/identifiers/upc/036000291453', { key }));
    assert.equal(value.parameter, 'value');
    assert.match(value.detail, /check digit/);
    const ambiguous = await json(await s.request('/v1/identifiers/ndc/0071015523', { key }));
    assert.equal(ambiguous.parameter, 'value');
    assert.match(ambiguous.detail, /ambiguous/);
  });
});

describe('one Idempotency-Key on two API processes sharing one database', () => {
  test('concurrent checks across the processes record one receipt, charged once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recalls-idem-'));
    const db = await createTestDatabase(dir);
    const env = { DATABASE_URL: db.url, RECALLS_ARCHIVE_DIR: join(dir, 'archive') };
    const nodes: ReturnType<typeof startCli>[] = [];
    try {
      assert.equal((await runCli(['migrate'], env)).code, 0);
      const store = await openStore(db.database);
      const key = (await store.keys.create('free', 'idempotency', new Date())).key;
      const id = (await store.keys.findByKey(key))!.id;
      nodes.push(startCli(['serve'], { ...env, PORT: '0', LOG_LEVEL: 'info' }));
      nodes.push(startCli(['serve'], { ...env, PORT: '0', LOG_LEVEL: 'info' }));
      const urls = await Promise.all(nodes.map((n) => listeningUrl(n)));
      const body = JSON.stringify({ identifiers: lots(1000) });
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          postRaw(
            urls[i % 2]!,
            {
              authorization: `Bearer ${key}`,
              'content-type': 'application/json',
              'idempotency-key': 'two-nodes',
            },
            body,
          ),
        ),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        Array(12).fill(201),
      );
      assert.equal(new Set(answers.map((a) => a.body.data.check_id)).size, 1, 'one receipt');
      const month = new Date().toISOString().slice(0, 7);
      let usage = await store.usage.get(id, month);
      // the replays' reservations are given back once answered
      await until(
        async () => (usage = await store.usage.get(id, month)).requests === 1,
        () => JSON.stringify(usage),
      );
      assert.deepEqual(usage, { requests: 1, identifiers: 1000 });
      assert.equal((await store.checks.list(id, 50)).rows.length, 1);
      await store.close();
    } finally {
      for (const n of nodes) n.child.kill('SIGKILL');
      await Promise.all(nodes.map((n) => n.done));
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
