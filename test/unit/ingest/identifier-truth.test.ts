/**
 * Identifier extraction scored against the hand-labelled truth set (`test/truth/*.json`, made
 * by reading real agency records under `../shared/spec/labelling.md`, never by running the
 * extractor). Every real record of the set goes through its source adapter as ingestion runs
 * it; precision and recall per source must reach the bars of issue 9.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normaliseIdentifier } from '../../../src/domain/identifiers/normalise.ts';
import { SOURCE_ADAPTERS } from '../../../src/ingest/registry.ts';
import {
  extractMirror,
  formatScores,
  loadTruth,
  scoreExtraction,
  TRUTH_KINDS,
} from '../../support/identifier-truth.ts';
import { requireShared, sharedPath } from '../../support/shared.ts';

/** The bars every source must reach on firm items (issue 9). */
const MIN_PRECISION = 0.99;
const MIN_RECALL = 0.95;

/** Records the truth set must hold: at least 300, over every source with real records. */
const MIN_RECORDS = 300;
const SOURCES_WITH_REAL_RECORDS = [
  'uk-fsa',
  'us-cpsc',
  'us-fda-device',
  'us-fda-drug',
  'us-fda-food',
  'us-fsis',
];

test('the truth set is well formed: 300+ records over every source with real records, valid kinds, firm values that normalise', () => {
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
      assert.equal(typeof item.value, 'string');
      if (!item.ambiguous)
        assert.ok(normaliseIdentifier(item.kind, item.value).ok, `${key}: ${item.kind} "${item.value}"`);
    }
  }
  // Traps: records that name no identifier, where any extraction is a false match.
  assert.ok(truth.filter((r) => r.identifiers.length === 0).length >= 50);
});

test('extraction reaches precision 0.99 and recall 0.95 on firm items, per source', async (t) => {
  const samples = sharedPath('upstream-samples');
  if (!requireShared(t, samples, 'upstream-samples')) return;
  const scores = scoreExtraction(loadTruth(), await extractMirror(samples));
  for (const line of formatScores(scores).split('\n')) t.diagnostic(line);
  assert.deepEqual(
    scores.map((s) => s.source),
    SOURCES_WITH_REAL_RECORDS,
  );
  for (const s of scores) {
    assert.ok(
      s.precision >= MIN_PRECISION,
      `${s.source}: precision ${s.precision.toFixed(3)}; false positives:\n  ${s.falsePositives.join('\n  ')}`,
    );
    assert.ok(
      s.recall >= MIN_RECALL,
      `${s.source}: recall ${s.recall.toFixed(3)}; misses:\n  ${s.misses.join('\n  ')}`,
    );
  }
});
