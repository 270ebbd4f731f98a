import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UpstreamError } from '../../../../../src/ingest/errors.ts';
import type { FetchContext, PageFetcher, RawPage } from '../../../../../src/ingest/source.ts';
import { fetchOpenFdaEnforcement, openFdaSliceUrl } from '../../../../../src/ingest/sources/openfda/fetch.ts';
import { usFdaFood } from '../../../../../src/ingest/sources/us-fda-food/index.ts';

const BASE = 'https://openfda.test';

type Answer = { total: number; count: number } | 404 | 500;

/**
 * A PageFetcher over an in-memory map of URL → answer. It records every URL requested and
 * fails the test on a URL it was not given, so no request goes unanswered or unnoticed.
 */
function fakeFetcher(answers: Map<string, Answer>): PageFetcher & { requested: string[] } {
  const requested: string[] = [];
  return {
    requested,
    async get(url) {
      requested.push(url);
      const answer = answers.get(url);
      if (answer === undefined) throw new Error(`unexpected request: ${url}`);
      if (answer === 404 || answer === 500) {
        throw new UpstreamError('http_status', `HTTP ${answer}`, { url, status: answer });
      }
      const skip = Number(new URL(url).searchParams.get('skip'));
      const results = Array.from({ length: answer.count }, (_, i) => ({
        recall_number: `F-${skip + i}-2099`,
      }));
      const body = {
        meta: { last_updated: '2099-01-01', results: { skip, limit: 1000, total: answer.total } },
        results,
      };
      return { status: 200, body: Buffer.from(JSON.stringify(body)) };
    },
  };
}

function url(from: string, to: string, skip: number, base = BASE): string {
  return `${base}/food/enforcement.json?search=report_date:[${from}+TO+${to}]&limit=1000&skip=${skip}`;
}

/** Answers for a slice of `total` records: full pages of 1000, then the remainder. */
function slice(answers: Map<string, Answer>, from: string, to: string, total: number): string[] {
  const urls: string[] = [];
  for (let skip = 0; skip < total; skip += 1000) {
    const u = url(from, to, skip);
    answers.set(u, { total, count: Math.min(1000, total - skip) });
    urls.push(u);
  }
  return urls;
}

async function collect(pages: AsyncIterable<RawPage>): Promise<RawPage[]> {
  const out: RawPage[] = [];
  for await (const p of pages) out.push(p);
  return out;
}

function ctx(fetcher: PageFetcher, now: string, baseUrl = BASE): FetchContext {
  return { baseUrl, fetcher, now: new Date(now), since: null };
}

test('builds the report_date slice address openFDA expects', () => {
  assert.equal(
    openFdaSliceUrl(
      'https://api.fda.gov/',
      'drug',
      new Date('2019-01-01T00:00:00Z'),
      new Date('2019-12-31T00:00:00Z'),
      2000,
    ),
    'https://api.fda.gov/drug/enforcement.json?search=report_date:[20190101+TO+20191231]&limit=1000&skip=2000',
  );
});

test('reads one yearly slice per year from 2004 to the current year, stepping skip by 1000', async () => {
  const answers = new Map<string, Answer>();
  const expected = [
    ...slice(answers, '20040101', '20041231', 2500),
    url('20050101', '20051231', 0),
    ...slice(answers, '20060101', '20061231', 1000),
  ];
  answers.set(url('20050101', '20051231', 0), 404); // openFDA NOT_FOUND: an empty year
  const fetcher = fakeFetcher(answers);
  const pages = await collect(fetchOpenFdaEnforcement(ctx(fetcher, '2006-03-15T12:00:00Z'), 'food'));

  assert.deepEqual(fetcher.requested, expected);
  assert.deepEqual(
    pages.map((p) => [p.name, p.url]),
    [
      ['page-0001.json', url('20040101', '20041231', 0)],
      ['page-0002.json', url('20040101', '20041231', 1000)],
      ['page-0003.json', url('20040101', '20041231', 2000)],
      ['page-0004.json', url('20060101', '20061231', 0)],
    ],
  );
  // bodies are yielded exactly as served
  const last = JSON.parse(pages[2]!.body.toString('utf8')) as { results: unknown[] };
  assert.equal(last.results.length, 500);
});

test('splits a slice whose total exceeds 26000 into two halves by date, recursively', async () => {
  const answers = new Map<string, Answer>();
  // 2004 (a leap year): 30000 records, more than skip (25000) + limit (1000) can reach.
  answers.set(url('20040101', '20041231', 0), { total: 30000, count: 1000 });
  // First half 2004-01-01..2004-07-01: 26001, split again at 2004-04-01.
  answers.set(url('20040101', '20040701', 0), { total: 26001, count: 1000 });
  const firstQuarter = slice(answers, '20040101', '20040401', 1200);
  const secondQuarter = slice(answers, '20040402', '20040701', 300);
  // Second half: exactly 26000, still reachable (last page at skip 25000), so not split.
  const secondHalf = slice(answers, '20040702', '20041231', 26000);
  const fetcher = fakeFetcher(answers);
  const pages = await collect(fetchOpenFdaEnforcement(ctx(fetcher, '2004-12-01T00:00:00Z'), 'food'));

  assert.deepEqual(fetcher.requested, [
    url('20040101', '20041231', 0),
    url('20040101', '20040701', 0),
    ...firstQuarter,
    ...secondQuarter,
    ...secondHalf,
  ]);
  assert.equal(secondHalf.at(-1), url('20040702', '20041231', 25000));
  // the oversized first pages are not yielded; every other page is, numbered in order
  assert.equal(pages.length, firstQuarter.length + secondQuarter.length + secondHalf.length);
  assert.deepEqual(
    pages.map((p) => p.url),
    [...firstQuarter, ...secondQuarter, ...secondHalf],
  );
  assert.equal(pages.at(-1)?.name, `page-${String(pages.length).padStart(4, '0')}.json`);
});

test('treats a 404 on a later page as the end of the slice', async () => {
  const answers = new Map<string, Answer>();
  answers.set(url('20040101', '20041231', 0), { total: 2500, count: 1000 });
  answers.set(url('20040101', '20041231', 1000), 404); // records went away between two requests
  const fetcher = fakeFetcher(answers);
  const pages = await collect(fetchOpenFdaEnforcement(ctx(fetcher, '2004-06-01T00:00:00Z'), 'food'));
  assert.equal(pages.length, 1);
  assert.deepEqual(fetcher.requested, [url('20040101', '20041231', 0), url('20040101', '20041231', 1000)]);
});

test('lets any other upstream failure through', async () => {
  const answers = new Map<string, Answer>();
  answers.set(url('20040101', '20041231', 0), 500);
  const fetcher = fakeFetcher(answers);
  await assert.rejects(
    collect(fetchOpenFdaEnforcement(ctx(fetcher, '2004-06-01T00:00:00Z'), 'food')),
    (e: unknown) => e instanceof UpstreamError && e.failure === 'http_status' && e.details.status === 500,
  );
});

test('fails with a format error when a page has drifted', async () => {
  const fetcher: PageFetcher = {
    async get() {
      return { status: 200, body: Buffer.from(JSON.stringify({ meta: {}, results: 'none' })) };
    },
  };
  await assert.rejects(
    collect(fetchOpenFdaEnforcement(ctx(fetcher, '2004-06-01T00:00:00Z'), 'food')),
    (e: unknown) =>
      e instanceof UpstreamError &&
      e.failure === 'format' &&
      e.details.url === url('20040101', '20041231', 0),
  );
});

test('uses the configured base address, without a doubled slash', async () => {
  const answers = new Map<string, Answer>();
  answers.set(url('20040101', '20041231', 0, 'http://127.0.0.1:9/mirror'), { total: 1, count: 1 });
  const fetcher = fakeFetcher(answers);
  const pages = await collect(
    usFdaFood.fetch(ctx(fetcher, '2004-01-01T00:00:00Z', 'http://127.0.0.1:9/mirror/')),
  );
  assert.equal(pages.length, 1);
  assert.equal(usFdaFood.parse(pages[0]!).drafts[0]?.recordId, 'F-0-2099');
});
