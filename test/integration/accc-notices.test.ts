/**
 * The ACCC adapter against a local stand-in for productsafety.gov.au that serves the real feed
 * (../shared/upstream-samples) and notice pages at its items' link paths (the two real excerpts, and
 * fictional pages in their markup), through the real pipeline on the test engine: pages read, archived
 * beside the feed and asked again only for new or changed entries; a page that fails keeps the item and
 * is asked again; an empty channel fails the run and changes nothing.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { describeOutcome } from '../../src/cli/operator/report.ts';
import { recallId } from '../../src/domain/recall.ts';
import { createArchive } from '../../src/ingest/archive.ts';
import { createUpstreamClient } from '../../src/ingest/http-client.ts';
import { runIngest, type SourceOutcome } from '../../src/ingest/pipeline.ts';
import { SOURCE_ADAPTERS } from '../../src/ingest/registry.ts';
import { ACCC_FEED_PATH } from '../../src/ingest/sources/au-accc/index.ts';
import { parseRecallFeed } from '../../src/ingest/sources/au-accc/schema.ts';
import { fictionalNotice } from '../support/accc-notice.ts';
import { json, startService, type TestService } from '../support/service.ts';
import { sharedPath, sharedRequired } from '../support/shared.ts';

const FEED = sharedPath('upstream-samples', 'au-accc', 'psa_recall-fetched-2026-08-31-first7.xml');
const REF = (name: string) => sharedPath('upstream-samples', '_reference', name);
const SOURCE = 'au-accc';

/** The stand-in: the feed and each notice path answer what the test sets; every request is logged. */
async function standIn() {
  const answers = new Map<string, { status: number; body: string | Buffer }>();
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const a = answers.get(req.url ?? '') ?? { status: 404, body: 'not found' };
    res.writeHead(a.status, { 'content-type': 'text/html' }).end(a.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answers,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe(
  `${SOURCE}: notice pages and empty channels, against a local stand-in`,
  {
    skip:
      FEED === undefined && !sharedRequired() ? 'no ../shared/upstream-samples beside this checkout' : false,
  },
  () => {
    let s: TestService;
    let agency: Awaited<ReturnType<typeof standIn>>;
    let key: string;
    let clock = Date.parse('2026-09-01T00:00:00Z');
    const feed = FEED === undefined ? Buffer.alloc(0) : readFileSync(FEED);
    const items = FEED === undefined ? [] : parseRecallFeed(feed).items;
    const path = (i: number) => new URL(items[i]!.link).pathname;

    const run = async (): Promise<SourceOutcome> => {
      clock += 86_400_000;
      const result = await runIngest(
        {
          store: s.store,
          adapters: SOURCE_ADAPTERS,
          archive: createArchive(join(s.dir, 'accc-archive')),
          client: createUpstreamClient({ timeoutMs: 5_000, retries: 0 }),
          sourceUrls: { [SOURCE]: agency.base },
          now: () => new Date(clock),
        },
        // Prepared on the worker thread, as ~100 real notice pages (8 MB) are: companions cross to it.
        { sourceIds: [SOURCE], force: true, prepareInWorkerFrom: 0 },
      );
      assert.equal(result.status, 'completed');
      return result.status === 'completed' ? result.sources[0]! : ({} as SourceOutcome);
    };
    const recall = async (recordId: string) => {
      const r = await s.request(`/v1/recalls/${recallId(SOURCE, recordId)}`, { key });
      return r.status === 200 ? (await json(r)).data : undefined;
    };
    const count = async () =>
      (await json(await s.request(`/v1/recalls?source=${SOURCE}&limit=100`, { key }))).data.length;

    before(async () => {
      assert.ok(FEED, 'RECALLS_REQUIRE_SHARED=1 but the real ACCC feed is missing');
      s = await startService();
      key = await s.key();
      agency = await standIn();
    });
    after(async () => {
      await agency?.close();
      await s?.close();
    });

    test('reads each notice page, archives it beside the feed, keeps a failed one out and asks for it again', async () => {
      agency.answers.set(ACCC_FEED_PATH, { status: 200, body: feed });
      agency.answers.set(path(0), {
        status: 200,
        body: readFileSync(REF('accc-notice-page-0-fields.html')!),
      });
      agency.answers.set(path(1), {
        status: 200,
        body: readFileSync(REF('accc-notice-page-1-fields.html')!),
      });
      agency.answers.set(path(2), { status: 503, body: 'Service Unavailable' });
      for (let i = 3; i < 7; i++)
        agency.answers.set(path(i), {
          status: 200,
          body: fictionalNotice({ pra: `2026/9900${i}`, brand: 'TEST DATA' }),
        });

      const first = await run();
      assert.equal(first.status, 'ok', first.reason);
      assert.equal(first.records, 7);
      assert.deepEqual(
        first.skippedPages?.map((p) => p.url),
        [agency.base + path(2)],
      );
      assert.match(first.skippedPages![0]!.reason, /503/);
      assert.match(
        describeOutcome(first),
        /1 page\(s\) not read, .* asked for again next run: http:\/\/127\.0\.0\.1:\d+\/search-consumer-product-recalls\/husqvarna/,
      );
      assert.equal(await count(), 7);
      const runs = readdirSync(join(s.dir, 'accc-archive', SOURCE)).filter((f) => !f.endsWith('.json'));
      assert.equal(runs.length, 1);
      const files = readdirSync(join(s.dir, 'accc-archive', SOURCE, runs[0]!)).sort();
      assert.equal(files.length, 7, 'the feed and six notice pages');
      assert.ok(files.includes(`notice-${items[0]!.guid}.html`));
      assert.deepEqual(
        readFileSync(join(s.dir, 'accc-archive', SOURCE, runs[0]!, `notice-${items[1]!.guid}.html`)),
        readFileSync(REF('accc-notice-page-1-fields.html')!),
        'archived as served',
      );

      const triumph = await recall('2026/21039');
      assert.equal(triumph.source.record_id, '2026/21039');
      assert.deepEqual(triumph.product.brands, ['Triumph Motorcycles']);
      // The three EAN/UPC pairs the Yoyo page prints under "Other identifying numbers".
      for (const [kind, value] of [
        ['ean', '5055300413055'],
        ['upc', '813371022959'],
        ['ean', '5055300413062'],
        ['upc', '813371022966'],
        ['ean', '5055300413406'],
        ['upc', '813371024922'],
      ]) {
        const found = await json(await s.request(`/v1/identifiers/${kind}/${value}`, { key }));
        assert.deepEqual(
          found.data.map((r: { id: string; match: { confidence: string } }) => [r.id, r.match.confidence]),
          [[recallId(SOURCE, '2026/21040'), 'extracted']],
          `${kind} ${value}`,
        );
      }
      const failed = await recall(items[2]!.guid!);
      assert.deepEqual(
        [failed.title, failed.product.brands],
        [items[2]!.title, []],
        'kept as the feed gives it',
      );

      // The same feed: only the failed page is asked for again; it reads now, and its record keeps its id.
      agency.requests.length = 0;
      agency.answers.set(path(2), {
        status: 200,
        body: fictionalNotice({ pra: '2026/99002', brand: 'TEST DATA Husq' }),
      });
      const second = await run();
      assert.equal(second.status, 'ok', second.reason);
      assert.equal(second.skippedPages, undefined);
      assert.deepEqual(agency.requests, [ACCC_FEED_PATH, path(2)]);
      assert.deepEqual([second.inserted, second.amended, second.unchanged], [0, 1, 6]);
      const retried = await recall(items[2]!.guid!);
      assert.deepEqual(
        [retried.source.record_id, retried.product.brands, retried.revision],
        [items[2]!.guid, ['TEST DATA Husq'], 2],
      );
      assert.equal(await recall('2026/99002'), undefined, 'no second record under the PRA number');

      // A changed entry whose page now fails: asked for, the page read before kept, the failure reported.
      agency.requests.length = 0;
      const changed = feed
        .toString('utf8')
        .replace('Basco BFO-15671 oil filter for diesel engines', 'Basco BFO-15671 oil filter (updated)');
      agency.answers.set(ACCC_FEED_PATH, { status: 200, body: changed });
      agency.answers.set(path(0), { status: 500, body: 'error' });
      const third = await run();
      assert.equal(third.status, 'ok', third.reason);
      assert.deepEqual(agency.requests, [ACCC_FEED_PATH, path(0)]);
      assert.match(third.skippedPages?.[0]?.reason ?? '', /500.*the page read before is kept/);
      const kept = await recall('2026/21039');
      assert.deepEqual(
        [kept.title, kept.product.brands],
        ['Basco BFO-15671 oil filter (updated)', ['Triumph Motorcycles']],
      );
      assert.equal(await count(), 7);

      // And asked for again by the next run.
      agency.requests.length = 0;
      await run();
      assert.deepEqual(agency.requests, [ACCC_FEED_PATH, path(0)]);
    });

    test('after 5 notice pages fail in a row no more are asked; the pages read before are kept and unchanged ones read from the archive', async () => {
      // Items 0–5 changed, their pages failing; item 6 unchanged.
      let changed = feed.toString('utf8');
      for (let i = 0; i < 6; i++) {
        changed = changed.replace(`<title>${items[i]!.title}`, `<title>${items[i]!.title} (updated)`);
        agency.answers.set(path(i), { status: 503, body: 'Service Unavailable' });
      }
      agency.answers.set(ACCC_FEED_PATH, { status: 200, body: changed });
      agency.requests.length = 0;
      const outcome = await run();
      assert.equal(outcome.status, 'ok', outcome.reason);
      assert.deepEqual(agency.requests, [ACCC_FEED_PATH, ...[0, 1, 2, 3, 4].map(path)]);
      assert.deepEqual(
        outcome.skippedPages?.map((p) => [
          p.url.slice(agency.base.length),
          /503|not asked: 5 notice pages failed in a row/.exec(p.reason)?.[0],
        ]),
        [
          ...[0, 1, 2, 3, 4].map((i) => [path(i), '503']),
          [path(5), 'not asked: 5 notice pages failed in a row'],
        ],
      );
      assert.equal(await count(), 7, 'no record stored twice');
      const yoyo = await recall('2026/21040');
      assert.deepEqual(
        [yoyo.title, yoyo.product.brands],
        [`${items[1]!.title} (updated)`, ['Cambridge Audio']],
      );
      assert.deepEqual(
        (await recall('2026/99006')).product.brands,
        ['TEST DATA'],
        'unchanged, from the archive',
      );
      agency.answers.set(ACCC_FEED_PATH, { status: 200, body: feed });
      for (let i = 0; i < 6; i++) agency.answers.set(path(i), { status: 404, body: 'gone' });
    });

    test('an empty channel fails the run with a clear message and changes nothing; a later run with items goes on', async () => {
      const before = await json(await s.request(`/v1/recalls?source=${SOURCE}&limit=100`, { key }));
      agency.answers.set(ACCC_FEED_PATH, {
        status: 200,
        body: readFileSync(REF('accc-unknown-feed-name-empty-channel.xml')!),
      });
      const empty = await run();
      assert.equal(empty.status, 'failed');
      assert.equal(empty.defect, false);
      assert.match(empty.reason ?? '', /ACCC recalls feed has no items: the channel is empty/);
      const afterEmpty = await json(await s.request(`/v1/recalls?source=${SOURCE}&limit=100`, { key }));
      assert.deepEqual(afterEmpty.data, before.data, 'records untouched');
      const sources = await json(await s.request('/v1/sources', { key }));
      assert.equal(sources.data.find((x: { id: string }) => x.id === SOURCE).data_as_of, '2026-08-27');

      agency.answers.set(ACCC_FEED_PATH, { status: 200, body: feed });
      const back = await run();
      assert.equal(back.status, 'ok', back.reason);
      assert.equal(back.records, 7);
    });
  },
);
