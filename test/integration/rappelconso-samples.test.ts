/**
 * RappelConso's real notices (../shared/upstream-samples, in `_incoming/` until they join the main
 * mirror: the folder is found wherever it is) through the real CLI and the real API: all of them
 * ingest, every barcode a notice prints as a GTIN is found exactly, and none of its other codes is.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { normaliseIdentifier } from '../../src/domain/identifiers/normalise.ts';
import { recallId } from '../../src/domain/recall.ts';
import { runCli } from '../support/cli.ts';
import { createTestDatabase } from '../support/database.ts';
import { json, startService, type TestService } from '../support/service.ts';
import { sharedRequired } from '../support/shared.ts';
import { ingestUpstreamSamples, upstreamMirrorOf } from '../support/upstream-samples.ts';

const SOURCE = 'fr-rappelconso';
const NOTICES = 84;
const mirror = upstreamMirrorOf(SOURCE);

interface Notice {
  numero_fiche: string;
  identification_produits: string[];
}

/** Every notice of the folder's pages. */
function notices(): Notice[] {
  const dir = join(mirror!, SOURCE);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { results: Notice[] }).results);
}

/**
 * The codes printed in `identification_produits`, read here on their own terms (not by the
 * adapter's code): the parts of each `|` group; a GTIN is 12–14 digits whose check digit holds,
 * outside the in-store and variable-weight prefixes (`02…` as a GTIN-13, `2…`); every other part of
 * eight or more digits is no GTIN, and when it opens its group (the GTIN slot) or has barcode
 * length it is no identifier at all.
 */
function printedCodes(): {
  gtins: Map<string, Set<string>>;
  notGtins: Set<string>;
  notIdentifiers: Set<string>;
} {
  const gtins = new Map<string, Set<string>>();
  const notGtins = new Set<string>();
  const notIdentifiers = new Set<string>();
  for (const n of notices()) {
    const groups = n.identification_produits.join('$').split('|');
    for (const group of groups) {
      const parts = group
        .split('$')
        .map((p) => p.trim())
        .filter((p) => p !== '');
      parts.forEach((part, i) => {
        if (!/^\d{8,}$/.test(part)) return;
        const gtin13 = part.slice(-13).padStart(13, '0');
        const isGtin =
          part.length >= 12 &&
          normaliseIdentifier('gtin', part).ok &&
          !/^0+$/.test(part) &&
          !/^(?:02|2)/.test(gtin13);
        if (isGtin) {
          const of = gtins.get(part) ?? new Set<string>();
          gtins.set(part, of.add(recallId(SOURCE, n.numero_fiche)));
          return;
        }
        notGtins.add(part);
        if (part.length >= 11 || i === 0) notIdentifiers.add(part);
      });
    }
  }
  return { gtins, notGtins, notIdentifiers };
}

describe(
  `${SOURCE}: the real notices`,
  {
    skip:
      mirror === undefined && !sharedRequired()
        ? `no ${SOURCE} folder in ../shared/upstream-samples or its _incoming/`
        : false,
  },
  () => {
    before(() => assert.ok(mirror, `RECALLS_REQUIRE_SHARED=1 but no ${SOURCE} real notices were found`));

    test(`recalls ingest --from the folder holding them exits 0 with "${SOURCE}: ok, ${NOTICES} records"`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'recalls-rc-cli-'));
      const db = await createTestDatabase(dir);
      try {
        const run = await runCli(['ingest', '--from', mirror!], {
          DATABASE_URL: db.url,
          RECALLS_ARCHIVE_DIR: join(dir, 'archive'),
        });
        assert.equal(run.code, 0, run.stdout + run.stderr);
        assert.match(
          run.stdout,
          new RegExp(
            `^${SOURCE}: ok, ${NOTICES} records from \\d+ page\\(s\\): ${NOTICES} new, 0 amended, 0 unchanged$`,
            'm',
          ),
        );
        assert.doesNotMatch(run.stdout, /set aside/);
      } finally {
        await db.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    describe('lookups and catalogue checks', () => {
      let s: TestService;
      let key: string;
      const codes = mirror === undefined ? undefined : printedCodes();

      before(async () => {
        s = await startService();
        key = await s.key();
        const result = await ingestUpstreamSamples(s, mirror!, [SOURCE]);
        assert.equal(result.status, 'completed');
        assert.deepEqual(
          result.status === 'completed' ? result.sources.map((o) => [o.status, o.records, o.setAside]) : [],
          [['ok', NOTICES, 0]],
        );
      });
      after(() => s?.close());

      test('the notices print GTINs and codes that are none, as the issue describes', () => {
        assert.ok(codes!.gtins.size >= 20, `${codes!.gtins.size} GTINs`);
        for (const code of ['0200590000000', '02023000000', '95049090', '00000000'])
          assert.ok(codes!.notIdentifiers.has(code), code);
        assert.ok(codes!.gtins.has('850031019829'), 'a UPC-12');
        assert.ok(codes!.gtins.has('03529358608180'), 'a GTIN-14');
      });

      test('every GTIN printed is found by GET /v1/identifiers/gtin/{value}, exactly', async () => {
        for (const [value, recalls] of codes!.gtins) {
          const r = await s.request(`/v1/identifiers/gtin/${value}?limit=200`, { key });
          assert.equal(r.status, 200, value);
          const found = (await json(r)).data as { id: string; match: { kind: string; confidence: string } }[];
          for (const id of recalls) {
            const hit = found.find((f) => f.id === id);
            assert.ok(hit, `${value} finds ${id}`);
            assert.deepEqual([hit.match.kind, hit.match.confidence], ['gtin', 'exact'], value);
          }
        }
      });

      test('no other code is found as a GTIN, and in-store, customs and placeholder codes not at all', async () => {
        const ours = (data: { id: string }[]) => data.filter((d) => d.id.startsWith(`${SOURCE}.`));
        for (const value of codes!.notGtins) {
          const r = await s.request(`/v1/identifiers/gtin/${value}`, { key });
          if (r.status === 400) continue; // refused: not a GTIN at all (check digit)
          assert.equal(r.status, 200, value);
          assert.deepEqual(ours((await json(r)).data), [], `gtin ${value}`);
        }
        for (const value of codes!.notIdentifiers) {
          for (const kind of ['lot', 'model']) {
            const r = await s.request(`/v1/identifiers/${kind}/${value}`, { key });
            assert.equal(r.status, 200, `${kind} ${value}`);
            assert.deepEqual(ours((await json(r)).data), [], `${kind} ${value}`);
          }
        }
      });

      test('a catalogue check matches every GTIN to its notices and nothing else', async () => {
        const identifiers = [...codes!.gtins.keys(), ...codes!.notGtins].map((value) => ({
          kind: 'gtin',
          value,
        }));
        const r = await s.request('/v1/checks', {
          key,
          body: { label: 'rappelconso real GTINs', identifiers },
        });
        assert.equal(r.status, 201);
        const { data } = await json(r);
        const matches = data.matches as {
          recall_id: string;
          matched_on: { kind: string; normalized: string };
        }[];
        const expected = [...codes!.gtins].flatMap(([value, ids]) => {
          const n = normaliseIdentifier('gtin', value);
          return [...ids].map((id) => `${n.ok ? n.normalized : '?'}>${id}`);
        });
        assert.deepEqual(
          matches.map((m) => `${m.matched_on.normalized}>${m.recall_id}`).sort(),
          [...new Set(expected)].sort(),
        );
      });
    });
  },
);
