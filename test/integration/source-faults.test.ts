/**
 * Every fault an agency can throw at us, against every registered source, through the real
 * pipeline: a local HTTP server stands in for the faulty agency, a second one serves openFDA
 * food healthily. The faulty source is marked failed with its records untouched; the healthy
 * one completes in the same run.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { zipSync } from 'fflate';
import { jsonString } from '../../src/domain/json-text.ts';
import { jsonArray } from '../../src/http/rendered-answer.ts';
import { SourceCatalog } from '../../src/http/source-catalog.ts';
import { createArchive } from '../../src/ingest/archive.ts';
import { createUpstreamClient } from '../../src/ingest/http-client.ts';
import { runIngest } from '../../src/ingest/pipeline.ts';
import { SOURCE_ADAPTERS } from '../../src/ingest/registry.ts';
import { OPENFDA_MAX_PAGE_BYTES } from '../../src/ingest/sources/openfda/fetch.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { fdaRecord } from '../support/fda-records.ts';
import { startOpenFdaStandIn } from '../support/openfda-server.ts';
import { createTestDatabase } from '../support/database.ts';
import { draft } from '../support/service.ts';

type Fault = (req: IncomingMessage, res: ServerResponse, sourceId: string) => void;

const MAX_BYTES = 64 * 1024;

/**
 * A page in each source's own format that is well-formed but holds no records: the agency
 * answered, but with nothing where the corpus was expected.
 */
const EMPTY_OPENFDA = {
  type: 'application/json',
  body: JSON.stringify({
    meta: { last_updated: '2026-06-17', results: { skip: 0, limit: 1000, total: 0 } },
    results: [],
  }),
};

const EMPTY_PAGES: Record<string, { type: string; body: string | Buffer }> = {
  'us-fda-drug': EMPTY_OPENFDA,
  'us-fda-device': EMPTY_OPENFDA,
  'us-nhtsa': {
    type: 'application/zip',
    body: Buffer.from(zipSync({ 'FLAT_RCL_POST_2010.txt': new Uint8Array(0) })),
  },
  'us-cpsc': { type: 'application/json', body: '[]' },
  'us-fsis': { type: 'application/json', body: '[]' },
  'ca-hc': { type: 'application/json', body: '[]' },
  'fr-rappelconso': { type: 'application/json', body: JSON.stringify({ total_count: 0, results: [] }) },
  'eu-safety-gate': {
    type: 'application/json',
    body: JSON.stringify({ content: [], totalPages: 0, totalElements: 0, number: 0, last: true }),
  },
  'uk-fsa': {
    type: 'application/json',
    body: JSON.stringify({ meta: { publisher: 'Food Standards Agency', limit: 100, offset: 0 }, items: [] }),
  },
  'au-accc': {
    type: 'application/rss+xml',
    body: '<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel><title>Recalls</title><link>https://www.productsafety.gov.au/</link><description>Recalls</description></channel></rss>',
  },
  'us-fda-food': EMPTY_OPENFDA,
};

const FAULTS: Record<string, Fault> = {
  'a 5xx': (_q, res) =>
    res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>Service Unavailable</h1>'),
  'a 429': (_q, res) => res.writeHead(429, { 'retry-after': '0' }).end('slow down'),
  'a timeout': () => {
    /* never answers */
  },
  'a connection reset': (req) => req.socket.destroy(),
  'a truncated body': (_q, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' });
    res.write('[{"partial": ');
    res.socket?.destroy();
  },
  'a malformed body': (_q, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"results": [<broken'),
  'an empty page': (_q, res, id) => {
    const page = EMPTY_PAGES[id]!;
    res.writeHead(200, { 'content-type': page.type }).end(page.body);
  },
  'a schema change': (_q, res) =>
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ data: { items: [{ id: 1 }] }, version: 2 })),
  'a redirect loop': (req, res) => res.writeHead(302, { location: req.url ?? '/' }).end(),
  'an oversized body': (_q, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`[${'"x",'.repeat(MAX_BYTES / 2)}"x"]`);
  },
};

async function faultyAgency(
  fault: Fault,
  sourceId: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => fault(req, res, sourceId));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('faults at the agency', () => {
  let healthy: Awaited<ReturnType<typeof startOpenFdaStandIn>>;
  before(async () => {
    healthy = await startOpenFdaStandIn('/food/enforcement.json', [fdaRecord(1), fdaRecord(2)]);
  });
  after(() => healthy.close());

  test('every registered source has an empty page to be tested with', () => {
    for (const { meta } of SOURCE_ADAPTERS) assert.ok(EMPTY_PAGES[meta.id], `EMPTY_PAGES lacks ${meta.id}`);
  });

  for (const { meta } of SOURCE_ADAPTERS) {
    for (const [name, fault] of Object.entries(FAULTS)) {
      test(`${meta.id}: ${name} marks it failed, keeps its records, and the other sources complete`, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'recalls-fault-'));
        const agency = await faultyAgency(fault, meta.id);
        let store: Store | undefined;
        const db = await createTestDatabase(dir);
        try {
          store = await openStore(db.database);
          await store.sources.register(SOURCE_ADAPTERS.map((a) => a.meta));
          const before = [draft('KEEP-1'), draft('KEEP-2', { title: 'kept as it was' })];
          await store.ingest.apply({
            sourceId: meta.id,
            jurisdiction: meta.jurisdiction,
            drafts: before,
            dataAsOf: '2026-01-01',
            observedAt: '2026-01-02T00:00:00.000Z',
          });
          const snapshot = jsonString(jsonArray((await store.recalls.list({ source: meta.id }, 200)).rows));
          const others = meta.id === 'us-fda-food' ? [] : ['us-fda-food'];
          const result = await runIngest(
            {
              store,
              adapters: SOURCE_ADAPTERS,
              archive: createArchive(join(dir, 'archive')),
              client: createUpstreamClient({
                timeoutMs: 400,
                idleTimeoutMs: 300,
                retries: 1,
                backoffBaseMs: 1,
                backoffMaxMs: 5,
                maxBytes: MAX_BYTES,
              }),
              sourceUrls: {
                [meta.id]: agency.url,
                ...(others.length > 0 ? { 'us-fda-food': healthy.url } : {}),
              },
            },
            { sourceIds: [meta.id, ...others], force: true },
          );
          assert.equal(result.status, 'completed');
          if (result.status !== 'completed') return;
          const faulty = result.sources.find((s) => s.sourceId === meta.id)!;
          assert.equal(faulty.status, 'failed', JSON.stringify(faulty));
          assert.equal(faulty.defect, false, `an agency fault, not a defect of ours: ${faulty.reason}`);
          for (const id of others) assert.equal(result.sources.find((s) => s.sourceId === id)?.status, 'ok');
          const state = (await store.sources.list()).find((s) => s.id === meta.id)!;
          assert.equal(state.consecutive_failures, 1);
          assert.equal(state.data_as_of, '2026-01-01', 'freshness untouched');
          assert.equal(
            jsonString(jsonArray((await store.recalls.list({ source: meta.id }, 200)).rows)),
            snapshot,
            'records untouched',
          );
          const health = await new SourceCatalog(
            store,
            SOURCE_ADAPTERS.map((a) => a.meta),
          ).health(new Date('2026-01-02T01:00:00Z'));
          assert.equal(health.status, 'degraded');
          assert.ok(health.degraded.includes(meta.id));
        } finally {
          await store?.close();
          await db.drop();
          await agency.close();
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  }
});

describe('an openFDA page over its own cap', () => {
  test('fails that source as too_large under the global cap, and the other source completes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recalls-fault-'));
    const healthy = await startOpenFdaStandIn('/food/enforcement.json', [fdaRecord(1)]);
    // Valid JSON one byte over the page cap, far below the client's 200 MiB.
    const filler = OPENFDA_MAX_PAGE_BYTES + 1 - JSON.stringify({ meta: {}, results: [], pad: '' }).length;
    const page = Buffer.from(JSON.stringify({ meta: {}, results: [], pad: 'x'.repeat(filler) }));
    assert.equal(page.length, OPENFDA_MAX_PAGE_BYTES + 1);
    const agency = await faultyAgency((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(page);
    }, 'us-fda-drug');
    let store: Store | undefined;
    const db = await createTestDatabase(dir);
    try {
      store = await openStore(db.database);
      await store.sources.register(SOURCE_ADAPTERS.map((a) => a.meta));
      const result = await runIngest(
        {
          store,
          adapters: SOURCE_ADAPTERS,
          archive: createArchive(join(dir, 'archive')),
          client: createUpstreamClient({ retries: 0 }),
          sourceUrls: { 'us-fda-drug': agency.url, 'us-fda-food': healthy.url },
        },
        { sourceIds: ['us-fda-drug', 'us-fda-food'], force: true },
      );
      assert.equal(result.status, 'completed');
      if (result.status !== 'completed') return;
      const drug = result.sources.find((s) => s.sourceId === 'us-fda-drug')!;
      assert.equal(drug.status, 'failed', JSON.stringify(drug));
      assert.equal(drug.defect, false);
      assert.match(drug.reason ?? '', new RegExp(`${OPENFDA_MAX_PAGE_BYTES}-byte cap`));
      assert.equal(result.sources.find((s) => s.sourceId === 'us-fda-food')?.status, 'ok');
    } finally {
      await store?.close();
      await db.drop();
      await agency.close();
      await healthy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
