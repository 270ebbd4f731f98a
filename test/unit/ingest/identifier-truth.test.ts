/**
 * Identifier extraction scored against the hand-labelled truth set (`test/truth/*.json`, made by reading real
 * agency records under `../shared/spec/labelling.md`, never by running the extractor). The set is split by a
 * fixed rule (`partOf`): rules are written from the development part, whose misses and false positives a
 * failure lists; the validation part is only counted, so its failure says how many, never which.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { prefixRule } from '../../../src/domain/identifiers/match-rules.ts';
import { normaliseIdentifier } from '../../../src/domain/identifiers/normalise.ts';
import { VALIDATION_SCORES } from '../../../src/ingest/extract/extraction-scores.ts';
import { SOURCE_ADAPTERS } from '../../../src/ingest/registry.ts';
import {
  extractMirror,
  formatScores,
  loadTruth,
  partOf,
  scoreExtraction,
  stemOf,
  TRUTH_KINDS,
  TRUTH_PARTS,
  type SourceScore,
} from '../../support/identifier-truth.ts';
import { requireShared, sharedPath } from '../../support/shared.ts';

/** The bars on firm items, per source (issue 27). */
const BARS = {
  development: { precision: 0.99, recall: 0.95 },
  // Below issue 36's targets (0.99, 0.95, and 0.95 of records exactly right), which the validation part does
  // not yet meet: these bars hold what it measures under the match-rule labelling, against regression.
  validation: { precision: 0.94, recall: 0.93 },
} as const;

/** Records the truth set must hold, over every source with real records. */
const MIN_RECORDS = 700;
const SOURCES_WITH_REAL_RECORDS = [
  'uk-fsa',
  'us-cpsc',
  'us-fda-device',
  'us-fda-drug',
  'us-fda-food',
  'us-fsis',
];

test('the truth set is well formed: 700+ records over every source with real records, valid kinds, firm values that normalise, rules of models and lots', () => {
  const truth = loadTruth();
  assert.ok(truth.length >= MIN_RECORDS, `${truth.length} records`);
  assert.deepEqual([...new Set(truth.map((r) => r.source))].sort(), SOURCES_WITH_REAL_RECORDS);
  const ids = new Set<string>();
  for (const r of truth) {
    const key = `${r.source} ${r.record_id}`;
    assert.ok(!ids.has(key), `${key} is labelled once`);
    ids.add(key);
    assert.ok(
      SOURCE_ADAPTERS.some((a) => a.meta.id === r.source),
      `${key}: a registered source`,
    );
    for (const item of r.identifiers) {
      assert.ok(TRUTH_KINDS.has(item.kind), `${key}: kind ${item.kind}`);
      if (item.range !== undefined) {
        // A range: two printed ends, no value; firm only when the ends share one shape (else optional).
        assert.equal(item.value, undefined, `${key}: a range item has no value`);
        assert.equal(item.rule, undefined, `${key}: a range item is no prefix`);
        assert.ok(['model', 'lot', 'batch'].includes(item.kind), `${key}: a range of ${item.kind}`);
        assert.ok(
          Array.isArray(item.range) &&
            item.range.length === 2 &&
            item.range.every((e) => typeof e === 'string'),
          `${key}: a range has two printed ends`,
        );
        continue;
      }
      assert.equal(typeof item.value, 'string', `${key}: a value`);
      const value = item.value!;
      if (item.rule !== undefined) {
        // A prefix: printed with its wildcard; firm only when its stem qualifies (5+ characters, a digit).
        assert.equal(item.rule, 'prefix', `${key}: rule ${String(item.rule)}`);
        assert.ok(['model', 'lot', 'batch'].includes(item.kind), `${key}: a prefix of ${item.kind}`);
        assert.notEqual(stemOf(value), value, `${key}: "${value}" is printed with its wildcard`);
        if (!item.ambiguous)
          assert.ok(prefixRule(stemOf(value)) !== undefined, `${key}: firm prefix "${value}" qualifies`);
        continue;
      }
      if (!item.ambiguous)
        assert.ok(normaliseIdentifier(item.kind, value).ok, `${key}: ${item.kind} "${value}"`);
    }
  }
  // Traps: records that name no identifier, where any extraction is a false match.
  assert.ok(truth.filter((r) => r.identifiers.length === 0).length >= 100);
});

test("the split is fixed, each record sits in its part's folder, and about one record in three is validation", () => {
  const truth = loadTruth();
  assert.equal(
    partOf({ source: 'us-cpsc', record_id: '9782' }),
    partOf({ source: 'us-cpsc', record_id: '9782' }),
  );
  for (const part of TRUTH_PARTS)
    for (const r of loadTruth(part))
      assert.equal(partOf(r), part, `${r.source} ${r.record_id} is in ${part}/`);
  const share = loadTruth('validation').length / truth.length;
  assert.ok(share > 0.25 && share < 0.42, `validation share ${share.toFixed(2)}`);
});

async function scores(t: TestContext, part: keyof typeof BARS): Promise<SourceScore[] | undefined> {
  const samples = sharedPath('upstream-samples');
  if (!requireShared(t, samples, 'upstream-samples')) return undefined;
  const truth = loadTruth(part);
  const result = scoreExtraction(truth, await extractMirror(samples));
  for (const line of formatScores(result).split('\n')) t.diagnostic(`${part}: ${line}`);
  assert.deepEqual(
    result.map((s) => s.source),
    SOURCES_WITH_REAL_RECORDS,
  );
  return result;
}

test('development part: precision 0.99 and recall 0.95 on firm items, per source', async (t) => {
  const result = await scores(t, 'development');
  for (const s of result ?? []) {
    assert.ok(
      s.precision >= BARS.development.precision,
      `${s.source}: precision ${s.precision.toFixed(3)}; false positives:\n  ${s.falsePositives.join('\n  ')}`,
    );
    assert.ok(
      s.recall >= BARS.development.recall,
      `${s.source}: recall ${s.recall.toFixed(3)}; misses:\n  ${s.misses.join('\n  ')}`,
    );
  }
});

test('validation part: precision 0.94 and recall 0.93 per source, exactly the figures the report prints', async (t) => {
  const result = await scores(t, 'validation');
  for (const s of result ?? []) {
    // Counts only: the validation part's misses are never listed, so no rule is written from them.
    const counts = `${s.correct}/${s.extractions} correct, ${s.found}/${s.firm} found, ${s.exact}/${s.records} records exactly right`;
    assert.ok(
      s.precision >= BARS.validation.precision,
      `${s.source}: precision ${s.precision.toFixed(3)} (${counts})`,
    );
    assert.ok(s.recall >= BARS.validation.recall, `${s.source}: recall ${s.recall.toFixed(3)} (${counts})`);
    assert.deepEqual(
      VALIDATION_SCORES[s.source],
      {
        records: s.records,
        firm: s.firm,
        found: s.found,
        extractions: s.extractions,
        correct: s.correct,
        exact: s.exact,
      },
      `${s.source}: src/ingest/extract/extraction-scores.ts and docs/extraction.md state what is measured (${counts}); re-measure and update both, with the date`,
    );
  }
});

test('scoring: a prefix item and a range item match the rule extracted for them; records read exactly right are counted', () => {
  const rule = (kind: 'model' | 'lot', value: string, normalized: string) => ({
    kind,
    value,
    normalized,
    confidence: 'inferred' as const,
  });
  const truth = [
    {
      source: 'us-cpsc',
      record_id: '1',
      identifiers: [
        { kind: 'model' as const, value: 'QZ7310LM*', rule: 'prefix' as const },
        { kind: 'model' as const, value: 'QZ73xx', rule: 'prefix' as const, ambiguous: true },
        { kind: 'lot' as const, range: ['70021000', '70029999'] as [string, string] },
        // Ends of two shapes: optional whatever the label says.
        { kind: 'lot' as const, range: ['7A00', '7999'] as [string, string] },
      ],
    },
    {
      source: 'us-cpsc',
      record_id: '2',
      identifiers: [{ kind: 'model' as const, value: 'RT-4410B' }],
    },
    {
      source: 'us-cpsc',
      record_id: '3',
      identifiers: [{ kind: 'lot' as const, range: ['C1200', 'C1299'] as [string, string] }],
    },
  ];
  const extracted = new Map([
    [
      'us-cpsc 1',
      [rule('model', 'QZ7310LM*', 'QZ7310LM*'), rule('lot', '70021000-70029999', '70021000..70029999')],
    ],
    ['us-cpsc 2', [rule('model', 'RT-4410B', 'RT4410B'), rule('model', 'RT4410', 'RT4410')]],
    // The same range as a model is another family: a miss and a false positive.
    ['us-cpsc 3', [rule('model', 'C1200-C1299', 'C1200..C1299')]],
  ]);
  const [s] = scoreExtraction(truth, extracted);
  assert.deepEqual(
    {
      firm: s!.firm,
      optional: s!.optional,
      found: s!.found,
      extractions: s!.extractions,
      correct: s!.correct,
      exact: s!.exact,
    },
    { firm: 4, optional: 2, found: 3, extractions: 5, correct: 3, exact: 1 },
  );
  assert.match(formatScores([s!]), /exactly right 0\.333 \(1\/3\)/);
});
