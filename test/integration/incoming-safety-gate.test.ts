/**
 * The real Safety Gate notifications (../shared/upstream-samples/_incoming/eu-safety-gate today, the main
 * mirror once they move there) through `recalls ingest --from <that mirror>`, into a running service's
 * database; then every identifier of their dedicated arrays (barcodes, batch numbers, model types) is
 * looked up over HTTP. On both engines.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { normaliseIdentifier } from '../../src/domain/identifiers/normalise.ts';
import { recallId } from '../../src/domain/recall.ts';
import { runCli, type CliResult } from '../support/cli.ts';
import { databaseUrl } from '../support/database.ts';
import { json, startService, type TestService } from '../support/service.ts';
import { sharedPath, sharedRequired } from '../support/shared.ts';

const SOURCE = 'eu-safety-gate';

/** The mirror holding the Safety Gate notifications: `_incoming` while it holds them, else the main one. */
const MIRROR = [sharedPath('upstream-samples', '_incoming'), sharedPath('upstream-samples')].find(
  (dir) => dir !== undefined && existsSync(join(dir, SOURCE)),
);

/** The part of a served notification this test reads. */
interface ServedNotification {
  reference: string;
  product?: {
    barcodes?: { barcode: string | null }[] | null;
    batchNumbers?: { batchNumber: string | null }[] | null;
    modelTypes?: { modelType: string | null }[] | null;
  } | null;
}

/** The notification files of the mirror, as served. */
function notifications(): ServedNotification[] {
  const dir = join(MIRROR!, SOURCE);
  return readdirSync(dir)
    .filter((name) => /^notification-\d+\.json$/.test(name))
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as ServedNotification);
}

describe(
  'the real Safety Gate notifications, ingested from their mirror and looked up',
  {
    skip:
      MIRROR === undefined && !sharedRequired()
        ? 'no ../shared/upstream-samples with an eu-safety-gate folder beside this checkout'
        : false,
  },
  () => {
    let s: TestService;
    let key: string;
    let ingest: CliResult;
    const served: ServedNotification[] = [];

    before(async () => {
      assert.ok(
        MIRROR,
        'RECALLS_REQUIRE_SHARED=1 but no eu-safety-gate folder in ../shared/upstream-samples',
      );
      served.push(...notifications());
      s = await startService();
      key = await s.key('scale');
      ingest = await runCli(['ingest', '--from', MIRROR], {
        DATABASE_URL: databaseUrl(s.config.database),
        RECALLS_ARCHIVE_DIR: join(s.dir, 'archive'),
      });
    });
    after(() => s?.close());

    test('`recalls ingest --from` the mirror exits 0 and ingests every notification, none set aside', async () => {
      assert.equal(ingest.code, 0, `${ingest.stdout}\n${ingest.stderr}`);
      assert.ok(served.length >= 4, `${served.length} notifications`);
      const n = served.length;
      assert.match(
        ingest.stdout,
        new RegExp(
          `^${SOURCE}: ok, ${n} records from ${n} page\\(s\\): ${n} new, 0 amended, 0 unchanged$`,
          'm',
        ),
      );
      // Folders of sources this checkout does not know are not read, and fail nothing.
      assert.doesNotMatch(ingest.stdout, /: failed/);
      for (const { reference } of served) {
        const r = await s.request(`/v1/recalls/${recallId(SOURCE, reference)}`, { key });
        assert.equal(r.status, 200, reference);
      }
      for (const reference of ['SR/01942/26', 'SR/01948/26', 'SR/01949/26', 'SR/01950/26'])
        assert.ok(
          served.some((x) => x.reference === reference),
          `${reference} is among the notifications`,
        );
    });

    const lookup = async (kind: string, value: string) =>
      s.request(`/v1/identifiers/${kind}/${encodeURIComponent(value)}?limit=200`, { key });

    /** Whether a lookup finds the recall, and with which stored identifier. */
    async function found(kind: string, value: string, reference: string) {
      const r = await lookup(kind, value);
      assert.equal(r.status, 200, `${kind} ${value}`);
      const body = await json(r);
      return (body.data as { id: string; match: { kind: string; confidence: string } }[]).find(
        (x) => x.id === recallId(SOURCE, reference),
      );
    }

    test('every valid GTIN of the barcode arrays finds its notification, exact; no other barcode is a gtin', async () => {
      let gtins = 0;
      let others = 0;
      for (const { reference, product } of served) {
        const stored = (await json(await s.request(`/v1/recalls/${recallId(SOURCE, reference)}`, { key })))
          .data.identifiers as { kind: string; value: string }[];
        for (const { barcode } of product?.barcodes ?? []) {
          if (barcode === null) continue;
          if (normaliseIdentifier('gtin', barcode).ok) {
            const hit = await found('gtin', barcode, reference);
            assert.deepEqual(hit?.match.kind, 'gtin', `${barcode} finds ${reference}`);
            assert.equal(hit?.match.confidence, 'exact', barcode);
            gtins++;
          } else {
            // Not a GTIN: refused as one, and not stored as any identifier.
            const r = await lookup('gtin', barcode);
            assert.equal(r.status, 400, barcode);
            assert.equal((await json(r)).parameter, 'value');
            assert.ok(!stored.some((i) => i.value.includes(barcode.trim())), `${barcode} is not stored`);
            others++;
          }
        }
      }
      assert.ok(gtins >= 3 && others >= 2, `${gtins} GTINs, ${others} codes that are none`);
    });

    test('every batch number finds its notification, as a batch and as a lot', async () => {
      let checked = 0;
      for (const { reference, product } of served) {
        for (const { batchNumber } of product?.batchNumbers ?? []) {
          if (batchNumber === null) continue;
          for (const kind of ['batch', 'lot']) {
            const hit = await found(kind, batchNumber, reference);
            assert.equal(hit?.match.confidence, 'exact', `${kind} ${batchNumber} finds ${reference}`);
          }
          checked++;
        }
      }
      assert.ok(checked >= 2, `${checked} batch numbers`);
    });

    test('every model of the model arrays finds its notification, one entry holding two models too', async () => {
      let checked = 0;
      for (const { reference, product } of served) {
        for (const { modelType } of product?.modelTypes ?? []) {
          // An entry can list several models ("53113-000-0|1030051; ENFINIGY "): each code, not the line's name.
          for (const model of (modelType ?? '').split(/[;|]/).map((m) => m.trim())) {
            if (!/\d/.test(model)) continue;
            const hit = await found('model', model, reference);
            assert.equal(hit?.match.confidence, 'exact', `model ${model} finds ${reference}`);
            checked++;
          }
        }
      }
      assert.ok(checked >= 5, `${checked} models`);
    });

    test('a catalogue check finds the GTINs and lists the codes that are none as rejected', async () => {
      const barcodes = served.flatMap(({ product }) =>
        (product?.barcodes ?? []).flatMap(({ barcode }) => (barcode === null ? [] : [barcode])),
      );
      const r = await s.request('/v1/checks', {
        key,
        method: 'POST',
        body: { label: 'safety gate', identifiers: barcodes.map((value) => ({ kind: 'gtin', value })) },
      });
      assert.equal(r.status, 201);
      const receipt = (await json(r)).data;
      const valid = barcodes.filter((b) => normaliseIdentifier('gtin', b).ok);
      assert.equal(receipt.submitted_count, new Set(valid).size);
      assert.deepEqual(
        (receipt.rejected as { value: string }[]).map((x) => x.value).sort(),
        barcodes.filter((b) => !valid.includes(b)).sort(),
      );
      assert.ok(receipt.match_count >= valid.length, `${receipt.match_count} matches`);
    });
  },
);
