/**
 * The recall JSON assembled around stored text keeps the serialiser's field order (required fields first,
 * then optional ones, each in schema order) for recalls, lookups and meta, and lists identifiers in the
 * engines' text order (UTF-8 bytes).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { servedOrder } from '../../../src/domain/json-schema.ts';
import {
  assembleRecall,
  compareUtf8,
  renderContentFields,
  renderIdentifiers,
  type RecallParts,
} from '../../../src/domain/recall-json.ts';
import { RecallMatchSchema, RecallSchema, type RecallContent } from '../../../src/domain/recall.ts';
import { renderMeta } from '../../../src/http/rendered-answer.ts';
import { MetaSchema, PageMetaSchema } from '../../../src/http/schemas.ts';
import { jsonString } from '../../../src/domain/json-text.ts';

const CONTENT: RecallContent = {
  title: 'T',
  summary: null,
  hazard: { category: 'choking', text: null },
  product: { category: null, brands: ['B'], models: [] },
  severity: 'low',
  source_classification: null,
  remedy: 'refund',
  recall_date: '2024-01-01',
  published_date: null,
  countries: ['US'],
  url: null,
  identifiers: [{ kind: 'upc', value: '1', normalized: '00000000000001', confidence: 'exact' }],
};

const PARTS: RecallParts = {
  id: 'src.1',
  sourceId: 'src',
  recordId: '1',
  agency: 'Agency',
  jurisdiction: 'US',
  contentFields: renderContentFields(CONTENT),
  revision: 2,
  dataAsOf: '2026-01-01',
  firstSeenAt: '2026-01-01T00:00:00.000Z',
  lastSeenAt: '2026-01-02T00:00:00.000Z',
};

const keysOf = (json: string) => Object.keys(JSON.parse(json) as object);

describe('recall JSON', () => {
  test('a listed recall has RecallSchema fields in the served order, without identifiers', () => {
    assert.deepEqual(
      keysOf(jsonString(assembleRecall(PARTS))),
      servedOrder(RecallSchema).filter((k) => k !== 'identifiers'),
    );
  });

  test('one recall ends with its identifiers, as the serialiser writes an optional field', () => {
    const json = assembleRecall({ ...PARTS, identifiers: renderIdentifiers(CONTENT.identifiers) });
    assert.deepEqual(keysOf(jsonString(json)), servedOrder(RecallSchema));
    assert.equal(servedOrder(RecallSchema).at(-1), 'identifiers');
  });

  test('a lookup row has RecallMatchSchema fields in the served order', () => {
    const json = assembleRecall({
      ...PARTS,
      match: { kind: 'upc', normalized: '00000000000001', confidence: 'exact' },
    });
    assert.deepEqual(
      keysOf(jsonString(json)),
      servedOrder(RecallMatchSchema).filter((k) => k !== 'identifiers'),
    );
  });

  test('nested objects keep their schema order', () => {
    const recall = JSON.parse(jsonString(assembleRecall(PARTS))) as Record<string, object>;
    for (const field of ['source', 'hazard', 'product'] as const) {
      const schema = RecallSchema.properties[field];
      assert.deepEqual(Object.keys(recall[field]!), servedOrder(schema), field);
    }
  });

  test('meta fields come in the served order: count and data_as_of (required) first', () => {
    const json = renderMeta({
      count: 1,
      limit: 50,
      next_cursor: null,
      total: 3,
      data_as_of: null,
      attribution: ['a'],
    });
    assert.deepEqual(keysOf(jsonString(json)), servedOrder(PageMetaSchema));
    // A single object's meta is served in the same relative order, so one order renders both.
    const single = new Set(servedOrder(MetaSchema));
    assert.deepEqual(
      servedOrder(PageMetaSchema).filter((k) => single.has(k)),
      servedOrder(MetaSchema),
    );
    assert.equal(
      renderMeta({ count: 1, data_as_of: null, attribution: ['a'] }),
      '{"count":1,"data_as_of":null,"attribution":["a"]}',
    );
    assert.deepEqual(keysOf(jsonString(json)).slice(0, 2), ['count', 'data_as_of']);
    assert.equal(renderMeta({ count: 0, data_as_of: 'x' }), '{"count":0,"data_as_of":"x"}');
  });

  test('compareUtf8 orders as the UTF-8 bytes do', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        const bytes = Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
        assert.equal(Math.sign(compareUtf8(a, b)), bytes);
      }),
    );
  });

  test('identifiers are listed by kind, normalized and value in byte order', () => {
    const listed = JSON.parse(
      renderIdentifiers([
        { kind: 'lot', value: '\u{1F600}', normalized: 'X', confidence: 'inferred' },
        { kind: 'lot', value: '\uFF21', normalized: 'X', confidence: 'inferred' },
        { kind: 'ean', value: 'z', normalized: 'Y', confidence: 'exact' },
      ]),
    ) as { value: string }[];
    assert.deepEqual(
      listed.map((i) => i.value),
      ['z', '\uFF21', '\u{1F600}'],
    );
  });
});
