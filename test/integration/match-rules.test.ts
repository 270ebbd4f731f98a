/**
 * Match rules served (../shared/spec/identifiers.md, "Match rules: prefixes and ranges"): a stored prefix
 * (`STEM*`) and range (`FROM..TO`) of models and lots, found by a lookup, a catalogue check and `recalls
 * check` on the real service (SQLite, or PostgreSQL with RECALLS_TEST_ENGINE=postgres), and found through the
 * identifiers' match-key index, never by reading the rules. Every record here is fictional.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { normaliseIdentifier } from '../../src/domain/identifiers/index.ts';
import type { IdentifierKind } from '../../src/domain/identifiers/kinds.ts';
import type { Identifier } from '../../src/domain/recall.ts';
import { runCli } from '../support/cli.ts';
import { openRawEngine, TEST_ENGINE } from '../support/database.ts';
import { draft, json, startService, type TestService } from '../support/service.ts';
import { recordStatements } from '../support/statements.ts';

/** An exact identifier as ingestion stores it. */
function exact(
  kind: IdentifierKind,
  value: string,
  confidence: Identifier['confidence'] = 'exact',
): Identifier {
  const n = normaliseIdentifier(kind, value);
  if (!n.ok) throw new Error(`test identifier ${value} does not normalise`);
  return { kind, value, normalized: n.normalized, confidence };
}

/** A rule as ingestion stores it: the value as printed, its rule form, confidence `inferred`. */
const rule = (kind: IdentifierKind, value: string, normalized: string): Identifier => ({
  kind,
  value,
  normalized,
  confidence: 'inferred',
});

const PREFIX = rule('model', 'KX-2040GC*', 'KX2040GC*');
const RANGE = rule('lot', '40012000-40098999', '40012000..40098999');

/** Recalls whose identifiers share one stem bucket, so that a lookup reads more than it orders in memory. */
const CROWDED = 210;
const crowdedStem = (i: number) =>
  `QW123${String.fromCharCode(65 + Math.floor(i / 26))}${String.fromCharCode(65 + (i % 26))}`;

describe('match rules: prefixes and ranges of models and lots', () => {
  let s: TestService;
  let key: string;
  let dir: string;
  /** Recall ids: the source's id, then the record's. */
  const id = (recordId: string) => `us-fda-food.${recordId}`;

  before(async () => {
    s = await startService();
    key = await s.key('scale');
    dir = mkdtempSync(join(tmpdir(), 'recalls-rules-'));
    await s.seed([
      draft('RULE-PREFIX', { identifiers: [PREFIX, exact('model', 'ZQ5501')] }),
      draft('RULE-RANGE', { identifiers: [RANGE] }),
      // The same recall names a stem and one full model under it; both are `inferred`.
      draft('RULE-BOTH', {
        identifiers: [rule('model', 'MB7720*', 'MB7720*'), exact('model', 'MB7720-15', 'inferred')],
      }),
      ...Array.from({ length: CROWDED }, (_, i) =>
        draft(`RULE-CROWDED-${i}`, {
          identifiers: [rule('model', `${crowdedStem(i)}*`, `${crowdedStem(i)}*`)],
        }),
      ),
      ...Array.from({ length: CROWDED }, (_, i) =>
        draft(`RULE-SHARED-${i}`, { identifiers: [rule('model', 'PL4567*', 'PL4567*')] }),
      ),
    ]);
  });
  after(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const lookup = async (kind: string, value: string, query = '') => {
    const r = await s.request(`/v1/identifiers/${kind}/${encodeURIComponent(value)}${query}`, { key });
    assert.equal(r.status, 200, `${kind} ${value}`);
    return json(r);
  };
  const found = async (kind: string, value: string) =>
    (await lookup(kind, value)).data.map((r: { id: string; match: unknown }) => [r.id, r.match]);

  test('a full model under a stored prefix finds the recall, the match naming the rule', async () => {
    const match = { kind: 'model', normalized: 'KX2040GC*', confidence: 'inferred' };
    assert.deepEqual(await found('model', 'KX-2040GC10'), [[id('RULE-PREFIX'), match]]);
    assert.deepEqual(await found('model', 'KX2040GC'), [[id('RULE-PREFIX'), match]], 'the stem itself');
  });

  test('a serial inside a stored range finds the recall, either end included, as a lot or a batch', async () => {
    const match = { kind: 'lot', normalized: '40012000..40098999', confidence: 'inferred' };
    for (const [kind, value] of [
      ['lot', '40050000'],
      ['lot', '40012000'],
      ['lot', '4009-8999'],
      ['batch', '40061234'],
    ])
      assert.deepEqual(await found(kind!, value!), [[id('RULE-RANGE'), match]], `${kind} ${value}`);
  });

  test('shorter than the stem, past a range end, another length or another family finds nothing', async () => {
    for (const [kind, value] of [
      ['model', 'KX2040G'],
      ['model', 'KX2041GC10'],
      ['lot', '40099000'],
      ['lot', '40011999'],
      ['lot', '400500001'],
      ['lot', '4005000'],
      ['lot', 'A4005000'],
      ['model', '40050000'],
      ['lot', 'KX2040GC10'],
    ])
      assert.deepEqual(await found(kind!, value!), [], `${kind} ${value}`);
  });

  test('an exact value on the same recall wins over the rule in the match', async () => {
    assert.deepEqual(await found('model', 'MB7720-15'), [
      [id('RULE-BOTH'), { kind: 'model', normalized: 'MB772015', confidence: 'inferred' }],
    ]);
    assert.deepEqual(await found('model', 'MB7720-16'), [
      [id('RULE-BOTH'), { kind: 'model', normalized: 'MB7720*', confidence: 'inferred' }],
    ]);
  });

  test("a recall's identifiers list shows a rule as stored", async () => {
    const { data } = await json(await s.request(`/v1/recalls/${id('RULE-RANGE')}`, { key }));
    assert.deepEqual(data.identifiers, [RANGE]);
  });

  test('a bucket holding more rules than a lookup orders in memory: only the rule holding the value', async () => {
    assert.deepEqual(await found('model', `${crowdedStem(27)}9`), [
      [
        `us-fda-food.RULE-CROWDED-27`,
        { kind: 'model', normalized: `${crowdedStem(27)}*`, confidence: 'inferred' },
      ],
    ]);
  });

  test('more recalls under one rule than a lookup orders in memory are walked page by page', async () => {
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page = await lookup(
        'model',
        'PL4567-89',
        `?limit=100${cursor === '' ? '' : `&cursor=${cursor}`}`,
      );
      for (const r of page.data) {
        assert.deepEqual(r.match, { kind: 'model', normalized: 'PL4567*', confidence: 'inferred' });
        seen.push(r.id);
      }
      cursor = page.meta.next_cursor;
    }
    assert.equal(new Set(seen).size, CROWDED);
    assert.ok(seen.every((r) => r.startsWith('us-fda-food.RULE-SHARED-')));
  });

  test('a check gives one match per identifier and recall, matched_on the submitted value as normalised', async () => {
    const r = await s.request('/v1/checks', {
      key,
      body: {
        identifiers: [
          { kind: 'model', value: 'KX-2040GC10' },
          { kind: 'lot', value: '40050000' },
          { kind: 'batch', value: '40098999' },
          { kind: 'model', value: 'MB7720-15' },
          { kind: 'model', value: 'KX2040G' },
          { kind: 'lot', value: '40099000' },
          { kind: 'lot', value: '400500001' },
          { kind: 'model', value: '40050000' },
        ],
      },
    });
    assert.equal(r.status, 201);
    const { data } = await json(r);
    assert.deepEqual(
      data.matches.map((m: { matched_on: unknown; recall_id: string }) => [m.matched_on, m.recall_id]),
      [
        [{ kind: 'batch', normalized: '40098999' }, id('RULE-RANGE')],
        [{ kind: 'lot', normalized: '40050000' }, id('RULE-RANGE')],
        [{ kind: 'model', normalized: 'KX2040GC10' }, id('RULE-PREFIX')],
        [{ kind: 'model', normalized: 'MB772015' }, id('RULE-BOTH')],
      ],
    );
    assert.equal(data.match_count, 4);
  });

  test('recalls check puts each rule match on the catalogue rows it came from, and verify verifies', async () => {
    const csvPath = join(dir, 'catalogue.csv');
    writeFileSync(
      csvPath,
      [
        'sku,Model No,Lot',
        'SKU-1,KX-2040GC10,',
        'SKU-2,KX2040GC-77,',
        'SKU-3,,40050000',
        'SKU-4,KX2040G,40099000',
        'SKU-5,ZQ5501,40012000',
      ].join('\n') + '\n',
    );
    const env = { RECALLS_URL: s.url, RECALLS_KEY: key };
    const out = join(dir, 'run');
    const run = await runCli(
      [
        'check',
        csvPath,
        '--out',
        out,
        '--column',
        'model=Model No',
        '--column',
        'lot=Lot',
        '--id-column',
        'sku',
      ],
      env,
    );
    assert.equal(run.code, 0, run.stderr);
    const lines = parse(readFileSync(join(out, 'matches.csv'), 'utf8'), { columns: true }) as Record<
      string,
      string
    >[];
    assert.deepEqual(
      lines.map((l) => `${l.row_id} ${l.kind} ${l.value} ${l.recall_id}`).sort(),
      [
        `SKU-1 model KX-2040GC10 ${id('RULE-PREFIX')}`,
        `SKU-2 model KX2040GC-77 ${id('RULE-PREFIX')}`,
        `SKU-3 lot 40050000 ${id('RULE-RANGE')}`,
        `SKU-5 lot 40012000 ${id('RULE-RANGE')}`,
        `SKU-5 model ZQ5501 ${id('RULE-PREFIX')}`,
      ].sort(),
    );
    const verified = await runCli(['verify', out, '--catalogue', csvPath], env);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /^verified: /m);
  });

  test('a lookup and a check find rules through the match-key index, never by reading the rules', async () => {
    // Enough other identifiers and rules that reading the table would be the dearer plan.
    await s.seed(
      Array.from({ length: 1500 }, (_, i) =>
        draft(`FILL-${i}`, {
          identifiers: [
            exact('model', `FM${String(i).padStart(5, '0')}`),
            exact('lot', `L${String(i * 37).padStart(6, '0')}`),
            rule('model', `FR${String(i).padStart(4, '0')}*`, `FR${String(i).padStart(4, '0')}*`),
            rule(
              'lot',
              `R${i}`,
              `${String(i * 1000).padStart(7, '0')}..${String(i * 1000 + 999).padStart(7, '0')}`,
            ),
          ],
        }),
      ),
      { sourceId: 'us-cpsc' },
    );
    const raw = openRawEngine(s.config.database);
    try {
      if (TEST_ENGINE === 'postgres') await raw.prepare('ANALYZE').run([]);
      const recording = recordStatements(TEST_ENGINE);
      try {
        await lookup('model', 'FR0123-55');
        const r = await s.request('/v1/checks', {
          key,
          body: {
            identifiers: [
              { kind: 'lot', value: '0123456' },
              { kind: 'model', value: 'FR0999X' },
              { kind: 'model', value: 'ZZ77001' },
            ],
          },
        });
        assert.equal(r.status, 201);
      } finally {
        recording.stop();
      }
      const probes = recording.texts
        .map((text, i) => ({ text, params: recording.params[i]! }))
        .filter(
          ({ text }) => /match_key/.test(text) && /from\s+"identifiers"|from\s+json_each|unnest/i.test(text),
        );
      assert.equal(probes.length, 3, "the lookup's exact and rule probes, and the check's hits statement");
      // The check probes only the rule buckets that hold a rule, read once per corpus version from their index.
      const hitsParams = JSON.stringify(probes[2]!.params);
      assert.match(hitsParams, /model\*FR09/, hitsParams);
      assert.doesNotMatch(hitsParams, /model\*ZZ77/, hitsParams);
      const bucketRead = recording.texts.filter((text) => /DISTINCT match_key/.test(text));
      assert.equal(bucketRead.length, 1, recording.texts.join('\n'));
      // Forbidding a table scan on PostgreSQL shows the partial index can serve the read (with a few thousand
      // rows, half of them rules, the planner rightly prefers the scan; in a corpus rules are a few per thousand).
      const bucketPlan = await raw.db.connection().execute(async (c) => {
        if (TEST_ENGINE === 'postgres') await sql`SET enable_seqscan = off`.execute(c);
        const explain = TEST_ENGINE === 'postgres' ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN';
        const { rows } = await sql.raw<Record<string, string>>(`${explain} ${bucketRead[0]}`).execute(c);
        if (TEST_ENGINE === 'postgres') await sql`RESET enable_seqscan`.execute(c);
        return rows.map((row) => (TEST_ENGINE === 'postgres' ? row['QUERY PLAN'] : row.detail)).join('\n');
      });
      assert.match(bucketPlan, /identifiers_rule_buckets/, bucketPlan);
      for (const { text, params } of probes) {
        const explain = TEST_ENGINE === 'postgres' ? `EXPLAIN ${text}` : `EXPLAIN QUERY PLAN ${text}`;
        const plan = (await raw.prepare<Record<string, string>>(explain).all(params))
          .map((row) => (TEST_ENGINE === 'postgres' ? row['QUERY PLAN'] : row.detail))
          .join('\n');
        assert.match(plan, /identifiers_by_match_key/, plan);
        assert.doesNotMatch(plan, /Seq Scan on identifiers|\bSCAN (i|identifiers)\b/, plan);
      }
    } finally {
      await raw.close();
    }
  });
});
