/**
 * Render once changes no body: every list page, single recall, lookup and revision list the service assembles
 * from stored JSON is byte for byte the answer made by reading the records' columns into objects and
 * serialising them with the routes' response schemas (test/support/object-answers.ts), over fixtures with
 * awkward text and over the real agency records in ../shared/upstream-samples. What can move without the
 * record changing (the source's agency and freshness, the seen stamps) moves in the answers too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RecallDraft } from '../../src/domain/recall.ts';
import { renderStoredRecalls } from '../../src/store/migrations/0005-rendered-recalls.ts';
import { openRawEngine } from '../support/database.ts';
import { ObjectAnswers, type AnswerShape } from '../support/object-answers.ts';
import { draft, startService, type TestService } from '../support/service.ts';
import { ingestUpstreamSamples, upstreamSamplesSkip } from '../support/upstream-samples.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Fetches `path` and asserts its body is the object-serialised answer; returns the parsed body. */
async function compare(
  s: TestService,
  reference: ObjectAnswers,
  key: string,
  path: string,
  shape: AnswerShape,
  recallId?: string,
): Promise<{ data: unknown; meta: { next_cursor?: string | null } }> {
  const response = await s.request(path, { key });
  const body = await response.text();
  assert.equal(response.status, 200, `${path}: ${body}`);
  assert.equal(response.headers.get('content-type'), JSON_TYPE, path);
  assert.equal(body, await reference.expected(shape, body, recallId), `${path}: bytes differ`);
  return JSON.parse(body) as { data: unknown; meta: { next_cursor?: string | null } };
}

/** A listed item: a recall, or a lookup's match. */
type Listed = { id: string; match?: { confidence: string } };

/** Walks a list to its end, comparing every page; returns the items listed. */
async function walk(
  s: TestService,
  reference: ObjectAnswers,
  key: string,
  path: string,
  shape: AnswerShape,
): Promise<Listed[]> {
  const items: Listed[] = [];
  let next: string | null | undefined;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page = await compare(
      s,
      reference,
      key,
      next == null ? path : `${path}${sep}cursor=${encodeURIComponent(next)}`,
      shape,
    );
    items.push(...(page.data as Listed[]));
    next = page.meta.next_cursor;
  } while (next != null);
  return items;
}

/** Every stored (kind, value) pair of these recalls, read back through GET /v1/recalls/{id}. */
async function storedIdentifiers(
  s: TestService,
  key: string,
  ids: readonly string[],
): Promise<{ kind: string; value: string }[]> {
  const seen = new Map<string, { kind: string; value: string }>();
  for (const id of ids) {
    const body = (await (await s.request(`/v1/recalls/${encodeURIComponent(id)}`, { key })).json()) as {
      data: { identifiers: { kind: string; value: string }[] };
    };
    for (const i of body.data.identifiers) seen.set(`${i.kind}\u0000${i.value}`, i);
  }
  return [...seen.values()];
}

/** Compares every answer of the corpus: list pages (whole walk, filtered, small pages), each recall, lookups. */
async function compareEverything(
  s: TestService,
  reference: ObjectAnswers,
  key: string,
  options: { lookups?: number } = {},
): Promise<{ recalls: number; lookups: number }> {
  const ids = (await walk(s, reference, key, '/v1/recalls?limit=200', 'list')).map((r) => r.id);
  assert.ok(ids.length > 0);
  await walk(s, reference, key, '/v1/recalls?limit=7&include_total=true', 'list');
  await compare(s, reference, key, '/v1/recalls?source=us-fda-food&severity=medium', 'list');
  for (const id of ids) {
    await compare(s, reference, key, `/v1/recalls/${encodeURIComponent(id)}`, 'one');
    await compare(
      s,
      reference,
      key,
      `/v1/recalls/${encodeURIComponent(id)}/revisions?limit=1`,
      'revisions',
      id,
    );
  }
  let lookups = 0;
  for (const { kind, value } of (await storedIdentifiers(s, key, ids)).slice(0, options.lookups)) {
    const path = `/v1/identifiers/${kind}/${encodeURIComponent(value)}?limit=3`;
    const probe = await s.request(path, { key });
    await probe.arrayBuffer();
    if (probe.status === 400) continue; // a value mined from prose the lookup's normaliser refuses as typed
    await walk(s, reference, key, path, 'matches');
    lookups++;
  }
  return { recalls: ids.length, lookups };
}

/** Text JSON escapes (quotes, backslash, controls, U+2028) and characters outside ASCII and the BMP. */
const AWKWARD = 'Say "hi" \\ back\nslash\ttab \u0001 \u2028 é ü 😀 </script>';

function fixtures(): { first: RecallDraft[]; amended: RecallDraft } {
  const plain = draft('F-0001-2024', {
    identifiers: [
      { kind: 'upc', value: '0 12345 67890 5', normalized: '00012345678905', confidence: 'extracted' },
      { kind: 'lot', value: 'LOT-7', normalized: 'LOT7', confidence: 'exact' },
    ],
  });
  const awkward = draft('F-0002-2024', {
    title: AWKWARD,
    summary: null,
    hazard: { category: null, text: `${AWKWARD} hazard` },
    product: { category: null, brands: ['A "brand"', 'ü', ''], models: [AWKWARD] },
    severity: null,
    source_classification: null,
    remedy: null,
    recall_date: null,
    published_date: null,
    countries: [],
    url: null,
    // One normalised lot printed two ways: a fullwidth letter (U+FF21) sorts before an astral one in the
    // engines' byte order, after it in JavaScript's code-unit order.
    identifiers: [
      { kind: 'lot', value: '\u{1F600}', normalized: 'X1', confidence: 'inferred' },
      { kind: 'lot', value: '\uFF21', normalized: 'X1', confidence: 'inferred' },
      { kind: 'upc', value: '012345678905', normalized: '00012345678905', confidence: 'exact' },
    ],
  });
  const older = draft('F-0003-2024', { published_date: '2023-05-01', recall_date: '2023-04-30' });
  // A record id with JSON escapes and non-ASCII text: the answer quotes it around the stored rendering.
  const awkwardId = draft(`R ${AWKWARD}`, { published_date: '2023-05-01', recall_date: '2023-04-30' });
  const amended = {
    ...older,
    title: `${older.title} (amended)`,
    product: { ...older.product, brands: ['Brand'] },
    identifiers: [{ kind: 'model' as const, value: 'M-1', normalized: 'M1', confidence: 'exact' as const }],
  };
  return { first: [plain, awkward, older, awkwardId], amended };
}

describe('answers assembled from stored JSON equal the object-serialised answers, byte for byte', () => {
  let s: TestService;
  let reference: ObjectAnswers;
  let key: string;
  const { first, amended } = fixtures();

  before(async () => {
    s = await startService();
    key = await s.key();
    reference = await ObjectAnswers.open(s.config.database);
    await s.seed(first, { observedAt: '2026-06-01T04:00:00.000Z', dataAsOf: '2026-05-31' });
    await s.seed([amended, ...first.slice(0, 2)], {
      observedAt: '2026-06-02T04:00:00.000Z',
      dataAsOf: '2026-06-01',
    });
    // A source never fetched successfully: its recalls' data_as_of falls back to last_seen_at.
    await s.store.ingest.apply({
      sourceId: 'us-cpsc',
      jurisdiction: 'US',
      drafts: [draft('10001', { published_date: '2025-01-01' })],
      dataAsOf: null,
      observedAt: '2026-06-02T05:00:00.000Z',
    });
  });
  after(async () => {
    await reference?.close();
    await s?.close();
  });

  test('for list pages, single recalls, revisions and lookups of the fixtures', async () => {
    const { recalls, lookups } = await compareEverything(s, reference, key);
    assert.equal(recalls, 5);
    assert.ok(lookups >= 3, `${lookups} lookups compared`);
    const revisions = await compare(
      s,
      reference,
      key,
      '/v1/recalls/us-fda-food.F-0003-2024/revisions',
      'revisions',
      'us-fda-food.F-0003-2024',
    );
    assert.equal((revisions.data as unknown[]).length, 1, 'the amendment is listed');
    const one = (await compare(s, reference, key, '/v1/recalls/us-fda-food.F-0002-2024', 'one')) as {
      data: { title: string; identifiers: { value: string }[] };
    };
    assert.equal(one.data.title, AWKWARD);
    assert.deepEqual(
      one.data.identifiers.map((i) => i.value),
      ['\uFF21', '\u{1F600}', '012345678905'],
    );
  });

  test('after the agency, the freshness and last_seen_at move with no record changed', async () => {
    await s.store.sources.register([{ id: 'us-fda-food', agency: 'Renamed "agency"', jurisdiction: 'US' }]);
    await s.seed([amended, ...first.slice(0, 2)], {
      observedAt: '2026-06-09T04:00:00.000Z',
      dataAsOf: '2026-06-08',
    });
    const one = (await compare(s, reference, key, '/v1/recalls/us-fda-food.F-0001-2024', 'one')) as {
      data: { source: { agency: string }; data_as_of: string; last_seen_at: string; revision: number };
    };
    assert.equal(one.data.source.agency, 'Renamed "agency"');
    assert.equal(one.data.data_as_of, '2026-06-08');
    assert.equal(one.data.last_seen_at, '2026-06-09T04:00:00.000Z');
    assert.equal(one.data.revision, 1);
    await compareEverything(s, reference, key);
  });

  test('after rendering again from the stored content, as migration 0005 does for rows stored before it', async () => {
    const raw = openRawEngine(s.config.database);
    try {
      await raw.db.updateTable('recalls').set({ rendered_fields: '', rendered_identifiers: '' }).execute();
      await renderStoredRecalls(raw.db as never);
    } finally {
      await raw.close();
    }
    await s.seed([amended, ...first.slice(0, 2)], {
      observedAt: '2026-06-10T04:00:00.000Z',
      dataAsOf: '2026-06-09',
    });
    await compareEverything(s, reference, key);
  });
});

describe('lookups of an identifier many recalls share equal the object-serialised answers', () => {
  let s: TestService;
  let reference: ObjectAnswers;
  let key: string;
  /** Recalls sharing one UPC, ordered in memory (≤ 200 hits) and in SQL (more), over dates with ties. */
  const shared = (upc: string, count: number, prefix: string): RecallDraft[] =>
    Array.from({ length: count }, (_, i) =>
      draft(`${prefix}-${String((i * 37) % count).padStart(3, '0')}`, {
        published_date: i % 9 === 0 ? null : `2024-0${1 + (i % 5)}-1${i % 3}`,
        identifiers: [
          // the same normalised value printed another way (sorting first), less certain: the exact one is the match
          ...(i % 4 === 0
            ? [
                {
                  kind: 'upc' as const,
                  value: `${upc.slice(0, 1)} ${upc.slice(1)}`,
                  normalized: `00${upc}`,
                  confidence: 'inferred' as const,
                },
              ]
            : []),
          { kind: 'upc', value: upc, normalized: `00${upc}`, confidence: 'exact' },
        ],
      }),
    );

  before(async () => {
    s = await startService();
    key = await s.key();
    reference = await ObjectAnswers.open(s.config.database);
    await s.seed(shared('012345678905', 150, 'IN-MEMORY'));
    await s.seed(shared('036000291452', 205, 'IN-SQL'), { sourceId: 'us-cpsc' });
  });
  after(async () => {
    await reference?.close();
    await s?.close();
  });

  for (const [upc, count] of [
    ['012345678905', 150],
    ['036000291452', 205],
  ] as const) {
    test(`for ${count} recalls, walked 40 at a time`, async () => {
      const items = await walk(s, reference, key, `/v1/identifiers/upc/${upc}?limit=40`, 'matches');
      assert.equal(items.length, count);
      assert.equal(new Set(items.map((r) => r.id)).size, count, 'each recall once');
      assert.deepEqual(
        new Set(items.map((r) => r.match?.confidence)),
        new Set(['exact']),
        'the surest match',
      );
    });
  }
});

describe(
  'answers assembled from stored JSON over the real agency records equal the object-serialised answers',
  { skip: upstreamSamplesSkip },
  () => {
    let s: TestService;
    let reference: ObjectAnswers;
    let key: string;

    before(async () => {
      s = await startService();
      key = await s.key();
      reference = await ObjectAnswers.open(s.config.database);
      assert.equal((await ingestUpstreamSamples(s)).status, 'completed');
    });
    after(async () => {
      await reference?.close();
      await s?.close();
    });

    test('for every list page, every recall and the lookup of every stored identifier', async () => {
      const { recalls, lookups } = await compareEverything(s, reference, key);
      assert.equal(recalls, await s.store.recalls.size());
      assert.ok(lookups > 50, `${lookups} lookups compared`);
    });
  },
);
