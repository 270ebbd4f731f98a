/**
 * What the tests of the three openFDA enforcement adapters (food, drug, device) share: the real
 * sample page of each, the checks against the identifiers and classes read by hand from it, the
 * feed facts they have in common, and one fetch against a fake openFDA answering one record.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { TestContext } from 'node:test';
import type { Identifier, RecallDraft } from '../../src/domain/recall.ts';
import type { HazardCategory, Severity } from '../../src/domain/taxonomy.ts';
import type { SourceAdapter } from '../../src/ingest/source.ts';
import { requireShared, sharedPath } from './shared.ts';

/** One identifier a record must yield: kind, value as printed, normalised form, confidence. */
export type ExpectedIdentifier = [
  kind: Identifier['kind'],
  value: string,
  normalized: string,
  confidence: Identifier['confidence'],
];

/** Per record: severity, the agency's class label, hazard category. */
export type ExpectedClassification = [Severity, string, HazardCategory];

/** A source's real page's bytes, or undefined after skipping (or failing) the test when ../shared is absent. */
export function loadSamplePage(t: TestContext, sourceId: string): Buffer | undefined {
  const path = sharedPath('upstream-samples', sourceId, 'page-1.json');
  return requireShared(t, path, `upstream-samples/${sourceId}/page-1.json`) ? readFileSync(path) : undefined;
}

/** The drafts of a source's real page, or undefined when the test was skipped. */
export function parseSamplePage(t: TestContext, adapter: SourceAdapter): RecallDraft[] | undefined {
  const body = loadSamplePage(t, adapter.meta.id);
  return body === undefined ? undefined : adapter.parse({ name: 'page-1.json', body }).drafts;
}

/** The page holds exactly the records expected, and each yields exactly its identifiers, in order. */
export function assertIdentifiersReadByHand(
  drafts: RecallDraft[],
  expected: Record<string, ExpectedIdentifier[]>,
): void {
  assert.deepEqual(drafts.map((d) => d.recordId).sort(), Object.keys(expected).sort());
  for (const d of drafts) {
    const actual = d.identifiers.map((i): ExpectedIdentifier => [
      i.kind,
      i.value,
      i.normalized,
      i.confidence,
    ]);
    assert.deepEqual(actual, expected[d.recordId], d.recordId);
  }
}

/** The page holds exactly the records expected, and each has its severity, class and hazard. */
export function assertClassifications(
  drafts: RecallDraft[],
  expected: Record<string, ExpectedClassification>,
): void {
  assert.deepEqual(drafts.map((d) => d.recordId).sort(), Object.keys(expected).sort());
  for (const d of drafts) {
    assert.deepEqual(
      [d.severity, d.source_classification, d.hazard.category],
      expected[d.recordId],
      d.recordId,
    );
  }
}

/** The facts every openFDA enforcement feed shares, and its own id and homepage. */
export function assertOpenFdaMeta(adapter: SourceAdapter, id: string, homepage: string): void {
  assert.equal(adapter.meta.id, id);
  assert.equal(adapter.meta.agency, 'U.S. Food and Drug Administration');
  assert.equal(adapter.meta.jurisdiction, 'US');
  assert.equal(adapter.meta.licence.id, 'CC0-1.0');
  assert.equal(adapter.meta.licence.url, 'https://open.fda.gov/license/');
  assert.match(adapter.meta.licence.attribution, /openFDA/);
  assert.equal(adapter.meta.homepage, homepage);
  assert.equal(adapter.meta.cadenceHours, 168);
  assert.equal(adapter.meta.defaultBaseUrl, 'https://api.fda.gov');
  assert.equal(adapter.acceptsFile('page-0001.json'), true);
}

/**
 * Runs an adapter's fetch for 2004 against a fake openFDA that answers one record (`recallNumber`)
 * to every request: the page names produced and the URLs requested.
 */
export async function fetchOneRecord(
  adapter: SourceAdapter,
  baseUrl: string,
  recallNumber: string,
): Promise<{ names: string[]; requested: string[] }> {
  const requested: string[] = [];
  const pages = adapter.fetch({
    baseUrl,
    now: new Date('2004-06-01T00:00:00Z'),
    since: null,
    fetcher: {
      async get(url) {
        requested.push(url);
        const results = [{ recall_number: recallNumber }];
        const meta = { results: { skip: 0, limit: 1000, total: 1 } };
        return { status: 200, body: Buffer.from(JSON.stringify({ meta, results })) };
      },
    },
  });
  const names: string[] = [];
  for await (const page of pages) names.push(page.name);
  return { names, requested };
}
