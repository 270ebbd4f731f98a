/**
 * The project's own sample data (samples/, fictional records in the agencies' formats) goes
 * through the real ingest pipeline, exactly as `recalls ingest --from samples` runs it, into a
 * temporary SQLite file. Checks that every sample record lands, says it is sample data, can
 * never be mistaken for a real recall, and that every barcode and lot written in it is found
 * by the same identifier lookup the API uses.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  gs1CheckDigit,
  lookupKeys,
  normaliseIdentifier,
  type IdentifierKind,
} from '../../src/domain/identifiers/index.ts';
import { recallId, type Recall, type RecallMatch } from '../../src/domain/recall.ts';
import { createArchive } from '../../src/ingest/archive.ts';
import { createUpstreamClient } from '../../src/ingest/http-client.ts';
import { runIngest, type IngestResult } from '../../src/ingest/pipeline.ts';
import { SOURCE_ADAPTERS, SOURCE_IDS } from '../../src/ingest/registry.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { sqliteOnly } from '../support/database.ts';
import { requireShared, sharedPath } from '../support/shared.ts';
import { jsonString } from '../../src/domain/json-text.ts';
import { jsonArray } from '../../src/http/rendered-answer.ts';

const SAMPLES = fileURLToPath(new URL('../../samples/', import.meta.url));
const FDA_FOOD = 'us-fda-food';
const SAMPLE_MARK = /SAMPLE DATA/;

/** The openFDA page format, as far as this test reads it. */
interface OpenFdaSamplePage {
  meta: { disclaimer: string; results: { total: number } };
  results: Array<
    Record<string, unknown> & { recall_number: string; product_description: string; report_date: string }
  >;
}

function readPage(path: string): OpenFdaSamplePage {
  return JSON.parse(readFileSync(path, 'utf8')) as OpenFdaSamplePage;
}

const foodPage = readPage(join(SAMPLES, FDA_FOOD, 'page-1.json'));

/**
 * Every identifier written into the food samples, per recall number, exactly as written.
 * Kept by hand (not derived from the files) so that a change to the samples or to the
 * extraction that loses one of them fails here.
 */
const WRITTEN: Record<string, Array<{ kind: IdentifierKind; value: string }>> = {
  'F-9901-2099': [
    { kind: 'upc', value: '0 12345 67890 5' },
    { kind: 'lot', value: 'SAMPLE-LOT-01' },
  ],
  'F-9902-2099': [
    { kind: 'upc', value: '000000123457' },
    { kind: 'lot', value: 'SAMPLE-LOT-02' },
    { kind: 'lot', value: 'SAMPLE-LOT-03' },
  ],
  'F-9903-2099': [
    { kind: 'ean', value: '9520123456788' },
    { kind: 'lot', value: 'SAMPLE-LOT-04' },
  ],
  'F-9904-2099': [
    { kind: 'upc', value: '012345000010' },
    { kind: 'lot', value: 'SAMPLE-LOT-05' },
  ],
  'F-9905-2099': [
    { kind: 'upc', value: '012345678905' },
    { kind: 'lot', value: 'SAMPLE-LOT-06' },
  ],
  'F-9906-2099': [
    { kind: 'ean', value: '9520123456795' },
    { kind: 'batch', value: 'SAMPLE-BATCH-07' },
  ],
  'F-9907-2099': [
    { kind: 'upc', value: '0 12345 11111 2' },
    { kind: 'lot', value: 'SAMPLE-LOT-08' },
  ],
  'F-9908-2099': [
    { kind: 'upc', value: '000000987653' },
    { kind: 'lot', value: 'SAMPLE-LOT-09' },
  ],
  'F-9909-2099': [
    { kind: 'upc', value: '0 12345 24680 7' },
    { kind: 'lot', value: 'SAMPLE-LOT-10' },
  ],
  'F-9910-2099': [
    { kind: 'ean', value: '9520000000011' },
    { kind: 'lot', value: 'SAMPLE-LOT-11' },
  ],
  'F-9911-2099': [
    { kind: 'upc', value: '000000432108' },
    { kind: 'lot', value: 'SAMPLE-LOT-12' },
  ],
  'F-9912-2099': [
    { kind: 'upc', value: '0 12345 97531 8' },
    { kind: 'lot', value: 'SAMPLE-LOT-13' },
  ],
};

const BARCODE_KINDS: ReadonlySet<IdentifierKind> = new Set(['upc', 'ean', 'gtin']);

/** The source folders present in samples/ (each must be a registered source). */
function sampleSources(): string[] {
  return readdirSync(SAMPLES)
    .filter((name) => statSync(join(SAMPLES, name)).isDirectory())
    .sort();
}

describe('the sample data in samples/', { skip: sqliteOnly('reads its own SQLite file') }, () => {
  let dir: string;
  let store: Store;
  let result: IngestResult;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'recalls-samples-'));
    store = await openStore({ engine: 'sqlite', path: join(dir, 'recalls.db') });
    result = await runIngest(
      {
        store,
        adapters: SOURCE_ADAPTERS,
        archive: createArchive(join(dir, 'archive')),
        // Reading a mirror never fetches; a client is wired as the CLI wires it.
        client: createUpstreamClient({ retries: 0, timeoutMs: 1_000 }),
        sourceUrls: {},
      },
      { from: SAMPLES, sourceIds: sampleSources() },
    );
  });

  after(async () => {
    await store?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  /** One stored recall as served, read back as an object. */
  async function getRecall(id: string): Promise<Recall | undefined> {
    const r = await store.recalls.get(id);
    return r === undefined ? undefined : (JSON.parse(jsonString(r.json)) as Recall);
  }

  /** What the identifier lookup serves for one normalised identifier, as objects. */
  async function lookupRecalls(kind: IdentifierKind, normalized: string): Promise<RecallMatch[]> {
    const { rows } = await store.identifiers.lookup(lookupKeys(kind, normalized), 50);
    return rows.map((r) => JSON.parse(jsonString(r.json)) as RecallMatch);
  }

  test('has one folder per registered source and nothing else', () => {
    const folders = sampleSources();
    assert.ok(folders.includes(FDA_FOOD));
    for (const folder of folders)
      assert.ok(SOURCE_IDS.includes(folder), `samples/${folder} is not a registered source`);
  });

  test('ingests every sample record through the real pipeline', async () => {
    assert.equal(result.status, 'completed');
    if (result.status !== 'completed') return;
    for (const outcome of result.sources) {
      assert.equal(outcome.status, 'ok', `${outcome.sourceId}: ${outcome.reason ?? ''}`);
    }
    const food = result.sources.find((s) => s.sourceId === FDA_FOOD);
    assert.equal(food?.records, foodPage.results.length);
    assert.equal(food?.inserted, foodPage.results.length);
    assert.equal(foodPage.results.length, 12);
    assert.equal(foodPage.meta.results.total, foodPage.results.length);
    const total = result.sources.reduce((n, s) => n + (s.records ?? 0), 0);
    assert.equal(await store.recalls.size(), total);
    for (const record of foodPage.results) {
      assert.ok(await getRecall(recallId(FDA_FOOD, record.recall_number)), `${record.recall_number} stored`);
    }
  });

  test('says in every record, title and page header that it is sample data', async () => {
    assert.match(foodPage.meta.disclaimer, SAMPLE_MARK);
    assert.match(foodPage.meta.disclaimer, /fictional/);
    for (const record of foodPage.results) {
      assert.ok(
        record.product_description.startsWith('SAMPLE DATA \u2013 not a real recall \u2013'),
        `${record.recall_number} product_description starts with the sample marker`,
      );
      assert.match(
        String(record.recalling_firm),
        /\(fictional\)$/,
        `${record.recall_number} firm is marked fictional`,
      );
      const stored = await getRecall(recallId(FDA_FOOD, record.recall_number));
      assert.ok(stored);
      assert.ok(
        SAMPLE_MARK.test(stored.title ?? '') || SAMPLE_MARK.test(stored.summary ?? ''),
        `${record.recall_number}: title "${stored.title}" / summary "${stored.summary}" must say it is sample data`,
      );
    }
  });

  test('uses recall numbers FDA never issued (F-99xx-2099), unique within the samples', () => {
    const numbers = foodPage.results.map((r) => r.recall_number);
    assert.equal(new Set(numbers).size, numbers.length);
    for (const n of numbers) assert.match(n, /^F-99\d\d-2099$/);
  });

  test('shares no recall number with the real openFDA food records', (t) => {
    const real = sharedPath('upstream-samples', FDA_FOOD, 'page-1.json');
    if (!requireShared(t, real, `upstream-samples/${FDA_FOOD}/page-1.json`)) return;
    const realPage = readPage(real);
    const realNumbers = new Set(realPage.results.map((r) => r.recall_number));
    assert.ok(realNumbers.size > 0);
    for (const r of foodPage.results)
      assert.ok(!realNumbers.has(r.recall_number), `${r.recall_number} is a real recall number`);
    // Same record shape as the real records: every field a real record carries is present.
    const realFields = new Set(realPage.results.flatMap((r) => Object.keys(r)));
    for (const r of foodPage.results) {
      for (const field of realFields) assert.ok(field in r, `${r.recall_number} lacks ${field}`);
    }
  });

  test('writes every identifier listed here into its record, barcodes with valid GS1 check digits', () => {
    assert.deepEqual(Object.keys(WRITTEN).sort(), foodPage.results.map((r) => r.recall_number).sort());
    for (const record of foodPage.results) {
      const prose = [record.product_description, record.code_info, record.more_code_info].join(' ');
      for (const { kind, value } of WRITTEN[record.recall_number] ?? []) {
        assert.ok(prose.includes(value), `${record.recall_number}: "${value}" is not in its text`);
        if (BARCODE_KINDS.has(kind)) {
          const digits = value.replace(/ /g, '');
          assert.match(
            digits,
            /^(0\d{11}|952\d{10})$/,
            `${value}: a 0-led UPC-A or a 952 (GS1 example prefix) EAN-13`,
          );
          assert.equal(gs1CheckDigit(digits.slice(0, -1)), Number(digits.slice(-1)), `${value}: check digit`);
        }
      }
    }
  });

  test('stores every written identifier with its record', async () => {
    for (const [recallNumber, written] of Object.entries(WRITTEN)) {
      const stored = await getRecall(recallId(FDA_FOOD, recallNumber));
      assert.ok(stored);
      for (const { kind, value } of written) {
        const n = normaliseIdentifier(kind, value);
        assert.ok(n.ok, `${value} normalises`);
        assert.ok(
          stored.identifiers.some((i) => i.kind === kind && i.normalized === n.normalized),
          `${recallNumber}: ${kind} ${value} (${n.normalized}) stored; got ${JSON.stringify(stored.identifiers)}`,
        );
      }
    }
  });

  test('finds every written barcode and lot through the identifier lookup', async () => {
    for (const [recallNumber, written] of Object.entries(WRITTEN)) {
      for (const { kind, value } of written) {
        const n = normaliseIdentifier(kind, value);
        assert.ok(n.ok);
        const rows = await lookupRecalls(n.kind, n.normalized);
        assert.ok(
          rows.some((r) => r.source.record_id === recallNumber),
          `${kind} ${value} finds ${recallNumber}; found ${rows.map((r) => r.source.record_id).join(', ') || 'nothing'}`,
        );
      }
    }
  });

  test('finds both recalls of the product sharing UPC 0 12345 67890 5, whatever form the code is given in', async () => {
    const forms: Array<[IdentifierKind, string]> = [
      ['upc', '012345678905'],
      ['upc', '0 12345 67890 5'],
      ['upc', '0-12345-67890-5'],
      ['upc', '12345678905'], // the leading zero lost in a spreadsheet
      ['ean', '0012345678905'],
      ['gtin', '00012345678905'],
      ['gtin', '(01)00012345678905'],
    ];
    for (const [kind, value] of forms) {
      const n = normaliseIdentifier(kind, value);
      assert.ok(n.ok, `${kind} ${value} normalises`);
      const rows = await lookupRecalls(n.kind, n.normalized);
      assert.deepEqual(
        rows.map((r) => r.source.record_id),
        ['F-9905-2099', 'F-9901-2099'],
        `${kind} ${value}: both recalls, newest first`,
      );
      for (const r of rows)
        assert.deepEqual(r.match, { kind: 'upc', normalized: '00012345678905', confidence: 'extracted' });
    }
  });

  test('matches lots and batches in one key space', async () => {
    const n = normaliseIdentifier('batch', 'sample lot 01');
    assert.ok(n.ok);
    const rows = await lookupRecalls(n.kind, n.normalized);
    assert.deepEqual(
      rows.map((r) => r.source.record_id),
      ['F-9901-2099'],
    );
    assert.equal(rows[0]?.match.confidence, 'inferred');
  });

  test('lists the samples newest first with the undated record last, classes mapped to severities', async () => {
    const rows = JSON.parse(
      jsonString(jsonArray((await store.recalls.list({ source: FDA_FOOD }, 200)).rows)),
    ) as Recall[];
    assert.equal(rows.length, foodPage.results.length);
    const dated = rows.filter((r) => r.published_date !== null).map((r) => r.published_date!);
    assert.deepEqual(dated, [...dated].sort().reverse());
    assert.equal(rows.at(-1)?.source.record_id, 'F-9911-2099');
    assert.equal(rows.at(-1)?.published_date, null);
    const severity = { 'Class I': 'serious', 'Class II': 'medium', 'Class III': 'low' } as Record<
      string,
      string
    >;
    for (const r of rows) {
      assert.ok(r.source_classification !== null && r.source_classification in severity);
      assert.equal(r.severity, severity[r.source_classification], r.source.record_id);
    }
    assert.deepEqual(
      new Set(rows.map((r) => r.source_classification)),
      new Set(['Class I', 'Class II', 'Class III']),
      'every FDA class is represented',
    );
    const hazards = new Set(rows.map((r) => r.hazard.category));
    for (const h of [
      'undeclared_allergen',
      'microbial_contamination',
      'foreign_matter',
      'mislabelling',
      'chemical',
    ]) {
      assert.ok(hazards.has(h as never), `a sample shows hazard ${h}`);
    }
  });
});
