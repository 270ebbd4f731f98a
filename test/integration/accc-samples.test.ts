/**
 * The ACCC's real feed (../shared/upstream-samples/au-accc: the first 7 items as served on 2026-08-31)
 * through the real CLI and the real API, on the test engine: every item ingests, every identifier a
 * careful reader lists in the items' prose is found by lookup and by a catalogue check, and no contact
 * e-mail address or phone number of the items' contact blocks is in any answer.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { normaliseIdentifier } from '../../src/domain/identifiers/normalise.ts';
import { recallId } from '../../src/domain/recall.ts';
import { runCli } from '../support/cli.ts';
import { createTestDatabase } from '../support/database.ts';
import { startService, type TestService } from '../support/service.ts';
import { sharedRequired } from '../support/shared.ts';
import { ingestUpstreamSamples, upstreamMirrorOf } from '../support/upstream-samples.ts';

const SOURCE = 'au-accc';
const mirror = upstreamMirrorOf(SOURCE);
const FEED =
  mirror === undefined ? undefined : join(mirror, SOURCE, 'psa_recall-fetched-2026-08-31-first7.xml');

/** The items' own ids (their `guid`s: the feed gives no PRA number). */
const ITEM = {
  basco: 'c09b530a-0353-4de5-8669-b2a29adcade3',
  gasgas: 'cbebee74-7cae-46ee-a637-ee192f0eeda6',
  husqvarna: '384751b0-e203-43f8-b86d-47b93cccc490',
  infuser: '4a5eec70-9f42-4a93-8014-1b36f3a218a4',
  babybee: '1f51e2cc-eb6a-4e9f-ae31-52045147024b',
  blanket: '7164f5c8-0673-45a0-8317-e2e7a6f806ba',
  orbea: 'da00787c-fc73-4dae-b201-598b807ceae4',
} as const;

/** [kind, value as printed, item], read off the items' product descriptions by hand. */
const PRINTED: [string, string, keyof typeof ITEM][] = [
  ['gtin', '9356247149707', 'basco'], // "Barcode 9356247149707"
  ['gtin', '9356247157535', 'basco'], // "Barcode 9356247157535"
  ['model', 'BFO-15671', 'basco'], // "Part number BFO-15671"
  ['model', 'BUNF5', 'basco'], // "Kit number BUNF5"
  ['model', 'TX300', 'husqvarna'], // "Affected model variants: TX300, FX350"
  ['model', 'FX350', 'husqvarna'],
  ['model', 'D21S30', 'infuser'], // "Product number: D21S30"
  ['batch', 'X-001', 'babybee'], // "batch numbers, X-012A and X-015D"
  ['batch', 'X-002', 'babybee'],
  ['batch', 'X-012A', 'babybee'],
  ['batch', 'X-015D', 'babybee'],
];

const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
/** An Australian number as the contact blocks print it: "03 8740 0239", "1800 644 771", "0400 261 990". */
const PHONE = /(?<!\d)(?:1[38]00 ?\d{3} ?\d{3}|0\d ?\d{4} ?\d{4}|04\d{2} ?\d{3} ?\d{3})(?!\d)/g;

describe(
  `${SOURCE}: the real feed`,
  {
    skip:
      mirror === undefined && !sharedRequired() ? `no ${SOURCE} folder in ../shared/upstream-samples` : false,
  },
  () => {
    before(() => assert.ok(mirror, `RECALLS_REQUIRE_SHARED=1 but no ${SOURCE} real feed was found`));

    test('recalls ingest --from the samples folder exits 0 with "au-accc: ok, 7 records"', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'recalls-accc-cli-'));
      const db = await createTestDatabase(dir);
      try {
        const run = await runCli(['ingest', '--from', mirror!, '--source', SOURCE], {
          DATABASE_URL: db.url,
          RECALLS_ARCHIVE_DIR: join(dir, 'archive'),
        });
        assert.equal(run.code, 0, run.stdout + run.stderr);
        assert.match(run.stdout, /^au-accc: ok, 7 records from 1 page\(s\): 7 new, 0 amended, 0 unchanged$/m);
      } finally {
        await db.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    describe('lookups, a catalogue check and the contact blocks', () => {
      let s: TestService;
      let key: string;
      const answers: string[] = [];
      const get = async (path: string) => {
        const r = await s.request(path, { key });
        const text = await r.text();
        answers.push(text);
        assert.equal(r.status, 200, `${path}: ${text}`);
        return JSON.parse(text);
      };

      before(async () => {
        s = await startService();
        key = await s.key();
        const result = await ingestUpstreamSamples(s, mirror!, [SOURCE]);
        assert.equal(result.status, 'completed');
        assert.deepEqual(
          result.status === 'completed' ? result.sources.map((o) => [o.status, o.records, o.setAside]) : [],
          [['ok', 7, 0]],
        );
      });
      after(() => s?.close());

      test('serves the 7 items under their ids, newest first', async () => {
        const list = await get(`/v1/recalls?source=${SOURCE}&limit=20`);
        assert.deepEqual(
          new Set(list.data.map((r: { id: string }) => r.id)),
          new Set(Object.values(ITEM).map((id) => recallId(SOURCE, id))),
        );
        for (const id of Object.values(ITEM)) await get(`/v1/recalls/${recallId(SOURCE, id)}`);
        for (const id of Object.values(ITEM)) await get(`/v1/recalls/${recallId(SOURCE, id)}/revisions`);
      });

      for (const [kind, value, item] of PRINTED) {
        test(`${kind} "${value}" finds the ${item} recall`, async () => {
          const found = await get(`/v1/identifiers/${kind}/${encodeURIComponent(value)}`);
          const ids = found.data.map((r: { id: string }) => r.id);
          assert.ok(ids.includes(recallId(SOURCE, ITEM[item])), `${kind} ${value} → ${JSON.stringify(ids)}`);
        });
      }

      test('a catalogue check of every printed identifier matches each to its recall', async () => {
        const r = await s.request('/v1/checks', {
          key,
          body: { label: 'accc real prose', identifiers: PRINTED.map(([kind, value]) => ({ kind, value })) },
        });
        const text = await r.text();
        answers.push(text);
        assert.equal(r.status, 201, text);
        const matches = JSON.parse(text).data.matches as {
          recall_id: string;
          matched_on: { normalized: string };
        }[];
        const expected = PRINTED.map(([kind, value, item]) => {
          const n = normaliseIdentifier(kind as 'gtin', value);
          return `${n.ok ? n.normalized : '?'}>${recallId(SOURCE, ITEM[item])}`;
        });
        assert.deepEqual(
          [...new Set(matches.map((m) => `${m.matched_on.normalized}>${m.recall_id}`))].sort(),
          [...new Set(expected)].sort(),
        );
      });

      test('no contact e-mail address or phone number of the feed is in any answer', () => {
        const feed = readFileSync(FEED!, 'utf8');
        const emails = new Set(feed.match(EMAIL));
        const phones = new Set(feed.match(PHONE));
        assert.ok(emails.size >= 7, `${emails.size} e-mail addresses in the feed`);
        assert.ok(phones.size >= 4, `${phones.size} phone numbers in the feed: ${[...phones].join(', ')}`);
        assert.ok(answers.length >= 1 + 7 * 2 + PRINTED.length + 1, `${answers.length} answers scanned`);
        for (const text of answers) {
          for (const email of emails) assert.ok(!text.includes(email), email);
          for (const phone of phones) assert.ok(!text.includes(phone), phone);
          assert.deepEqual(text.match(PHONE), null);
        }
      });
    });
  },
);
