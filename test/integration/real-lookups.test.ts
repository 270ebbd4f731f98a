/**
 * Lookups over HTTP with identifiers taken from the real agency records in
 * ../shared/upstream-samples: barcodes, NDCs, lots and models find the records they came from.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { normaliseIdentifier } from '../../src/domain/identifiers/normalise.ts';
import { SOURCE_IDS } from '../../src/ingest/registry.ts';
import { sharedPath, sharedRequired } from '../support/shared.ts';
import { json, startService, type TestService } from '../support/service.ts';
import { ingestUpstreamSamples } from '../support/upstream-samples.ts';

const samples = sharedPath('upstream-samples');

/** [kind, value as printed, recall id it must find], read off the real records. */
const CASES: [string, string, string][] = [
  ['upc', '6926145714029', 'us-fda-food.F-1575-2018'],
  ['ean', '6926145712902', 'us-fda-food.F-1575-2018'],
  ['upc', '0 50428 54100 5', 'us-fda-food.F-0359-2018'],
  ['lot', '21096', 'us-fda-food.F-0570-2021'],
  ['batch', '21-096', 'us-fda-food.F-0570-2021'],
  ['lot', 'PB0091512', 'us-fda-food.F-1879-2013'],
  ['ean', '1922340368444', 'us-cpsc.10221'],
  ['model', 'HGS011', 'us-cpsc.9910'],
  ['model', 'PAC5170', 'us-cpsc.9942'],
];

/** Cases that need an adapter which may not be registered in every checkout yet. */
const NDC_CASES: [string, string, string][] = [
  ['ndc', '0603-2110-32', 'us-fda-drug.D-0397-2015'],
  ['ndc', '55316-014-72', 'us-fda-drug.D-0266-2019'],
  ['ndc', '50383-720', 'us-fda-drug.D-1088-2017'],
];

describe(
  'lookups by identifiers from real records',
  {
    skip:
      samples === undefined && !sharedRequired()
        ? 'no ../shared/upstream-samples beside this checkout'
        : false,
  },
  () => {
    let s: TestService;
    let key: string;
    before(async () => {
      assert.ok(samples, 'RECALLS_REQUIRE_SHARED=1 but ../shared/upstream-samples is missing');
      s = await startService();
      key = await s.key();
      const result = await ingestUpstreamSamples(s, samples);
      assert.equal(result.status, 'completed');
      if (result.status !== 'completed') return;
      // Every source with real records there was ingested from them: a failing source would
      // otherwise only show as lookups of its own identifiers finding nothing, or not at all.
      const failed = result.sources.filter((o) => o.status === 'failed');
      assert.deepEqual(
        failed.map((o) => `${o.sourceId}: ${o.reason}`),
        [],
        'no source failed',
      );
      const outcomes = new Map(result.sources.map((o) => [o.sourceId, o]));
      for (const id of readdirSync(samples!).filter((name) => SOURCE_IDS.includes(name))) {
        const { status, reason } = outcomes.get(id) ?? {};
        assert.equal(status, 'ok', `${id} ingested from its real records: ${reason}`);
      }
    });
    after(() => s?.close());

    const lookup = async (kind: string, value: string) => {
      const r = await s.request(`/v1/identifiers/${kind}/${encodeURIComponent(value)}?limit=200`, { key });
      assert.equal(r.status, 200, `${kind} ${value}`);
      return json(r);
    };

    for (const [kind, value, id] of [...CASES, ...NDC_CASES]) {
      test(`${kind} "${value}" finds ${id}`, async (t) => {
        if (!SOURCE_IDS.includes(id.split('.')[0]!)) return t.skip(`${id.split('.')[0]} is not registered`);
        const body = await lookup(kind, value);
        const ids = body.data.map((r: { id: string }) => r.id);
        assert.ok(ids.includes(id), `${kind} ${value} → ${JSON.stringify(ids)}`);
        assert.ok(body.meta.attribution.length >= 1);
      });
    }

    test('every valid dedicated UPC of every real CPSC record finds its recall', async () => {
      const dir = join(samples!, 'us-cpsc');
      let checked = 0;
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
        for (const record of JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
          RecallID: number;
          ProductUPCs?: { UPC: string }[];
        }[]) {
          for (const { UPC } of record.ProductUPCs ?? []) {
            if (!normaliseIdentifier('upc', UPC).ok) continue;
            const body = await lookup('upc', UPC);
            assert.ok(
              body.data.some((r: { id: string }) => r.id === `us-cpsc.${record.RecallID}`),
              `UPC ${UPC} of ${record.RecallID}`,
            );
            checked++;
          }
        }
      }
      assert.ok(checked >= 100, `checked ${checked} UPCs`);
    });
  },
);
