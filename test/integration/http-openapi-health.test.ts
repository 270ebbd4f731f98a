import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HAZARD_CATEGORIES } from '../../src/domain/taxonomy.ts';
import { PROBLEM_TYPES } from '../../src/http/problems.ts';
import { SOURCE_IDS } from '../../src/ingest/registry.ts';
import { draft, json, startService, type TestService } from '../support/service.ts';

const OPERATIONS = {
  listRecalls: ['get', '/v1/recalls'],
  getRecall: ['get', '/v1/recalls/{id}'],
  listRecallRevisions: ['get', '/v1/recalls/{id}/revisions'],
  lookupByIdentifier: ['get', '/v1/identifiers/{kind}/{value}'],
  runCheck: ['post', '/v1/checks'],
  listChecks: ['get', '/v1/checks'],
  getCheck: ['get', '/v1/checks/{id}'],
  listSources: ['get', '/v1/sources'],
  getHealth: ['get', '/v1/health'],
} as const;

describe('GET /v1/openapi.json', () => {
  let s: TestService;
  let doc: any;
  before(async () => {
    s = await startService();
    const r = await s.request('/v1/openapi.json');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('etag') ?? '', /^W\//);
    doc = await json(r);
  });
  after(() => s.close());

  test('is OpenAPI 3.1 declaring interface version 1.0.0 with exactly the nine operations', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.0.0');
    const found: string[] = [];
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) found.push(`${op.operationId} ${method} ${path}`);
    }
    assert.deepEqual(
      found.sort(),
      Object.entries(OPERATIONS)
        .map(([id, [m, p]]) => `${id} ${m} ${p}`)
        .sort(),
    );
  });

  test('publishes the hazard taxonomy, severity and remedy as enums', () => {
    const schemas = doc.components.schemas;
    assert.deepEqual(schemas.HazardCategory.enum, [...HAZARD_CATEGORIES]);
    assert.ok(HAZARD_CATEGORIES.length >= 15 && HAZARD_CATEGORIES.length <= 25);
    assert.deepEqual(schemas.Severity.enum, ['serious', 'high', 'medium', 'low', 'unknown']);
    assert.deepEqual(schemas.Remedy.enum, [
      'repair',
      'replace',
      'refund',
      'dispose',
      'stop_use',
      'other',
      'unknown',
    ]);
    assert.deepEqual(
      schemas.Problem.properties.type.enum.sort(),
      Object.values(PROBLEM_TYPES)
        .map((p) => p.type)
        .sort(),
    );
  });

  test('describes every parameter, the key requirement and the problem responses', () => {
    const list = doc.paths['/v1/recalls'].get;
    const names = list.parameters
      .filter((p: { in?: string }) => p.in === 'query')
      .map((p: { name: string }) => p.name)
      .sort();
    assert.deepEqual(names, [
      'cursor',
      'from',
      'hazard_category',
      'include_total',
      'jurisdiction',
      'limit',
      'remedy',
      'severity',
      'source',
      'to',
    ]);
    for (const status of ['400', '401', '402', '403', '404', '429', '500']) {
      assert.ok(
        list.responses[status]?.content?.['application/problem+json'],
        `listRecalls documents ${status}`,
      );
    }
    const health = doc.paths['/v1/health'].get;
    assert.deepEqual(health.security, []);
    assert.deepEqual(Object.keys(health.responses).sort(), ['200', '304', '400', '404', '500']);
    assert.ok(doc.components.securitySchemes.bearerAuth && doc.components.securitySchemes.apiKeyHeader);
    const check = doc.paths['/v1/checks'].post;
    const body = check.requestBody.content['application/json'].schema;
    assert.equal(body.properties.identifiers.maxItems, 1000);
    assert.equal(body.additionalProperties, false);
    assert.ok(check.responses['201']);
  });

  test('declares 304, If-None-Match and ETag on every tagged GET, and the rate-limit headers of keyed answers', () => {
    for (const [id, [method, path]] of Object.entries(OPERATIONS)) {
      const op = doc.paths[path][method];
      const headersOf = (status: string) => Object.keys(op.responses[status]?.headers ?? {}).sort();
      if (method === 'get') {
        assert.ok(
          op.parameters.some((p: { $ref?: string }) => p.$ref === '#/components/parameters/IfNoneMatch'),
          `${id} takes If-None-Match`,
        );
        assert.equal(op.responses['304'].content, undefined, `${id} 304 has no body`);
        assert.ok(headersOf('304').includes('ETag') && headersOf('200').includes('ETag'), id);
      } else assert.equal(op.responses['304'], undefined);
      const keyed = id !== 'getHealth';
      for (const status of Object.keys(op.responses))
        assert.equal(headersOf(status).includes('RateLimit'), keyed, `${id} ${status} RateLimit`);
      if (keyed) assert.ok(headersOf('429').includes('Retry-After'), `${id} 429 Retry-After`);
      for (const [status, response] of Object.entries<any>(op.responses))
        assert.notEqual(response.description, 'Default Response', `${id} ${status}`);
      assert.ok(op.description, `${id} has a description`);
    }
    const headers = doc.components.headers;
    assert.equal(headers.ETag.required, true);
    assert.equal(headers['Retry-After'].required, true);
    assert.deepEqual(Object.keys(doc.paths['/v1/checks'].post.responses['201'].headers).sort(), [
      'Idempotent-Replayed',
      'RateLimit',
      'RateLimit-Policy',
    ]);
  });

  test('gives each error status its own problem types and an example of each', () => {
    const byStatus = new Map<number, string[]>();
    for (const p of Object.values(PROBLEM_TYPES))
      byStatus.set(p.status, [...(byStatus.get(p.status) ?? []), p.type]);
    for (const [id, [method, path]] of Object.entries(OPERATIONS)) {
      const op = doc.paths[path][method];
      const takesCursor = (op.parameters ?? []).some((p: { name?: string }) => p.name === 'cursor');
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400) continue;
        const media = response.content['application/problem+json'];
        const types = byStatus
          .get(Number(status))!
          .filter((t) => takesCursor || t !== '/problems/invalid-cursor');
        assert.equal(media.schema.$ref, '#/components/schemas/Problem');
        assert.deepEqual(media.schema.properties.type.enum, types, `${id} ${status}`);
        const examples = Object.values<any>(media.examples).map((e) => e.value);
        assert.deepEqual(
          examples.map((e) => e.type),
          types,
          `${id} ${status} examples`,
        );
        for (const e of examples) assert.equal(e.status, Number(status));
      }
    }
  });

  test('makes the bodies exact: kinds, always-sent fields, digests, twins alike, bounded Idempotency-Key', () => {
    const schemas = doc.components.schemas;
    const lookup = doc.paths['/v1/identifiers/{kind}/{value}'].get;
    const kind = lookup.parameters.find((p: { name?: string }) => p.name === 'kind');
    assert.deepEqual(kind.schema.enum, schemas.IdentifierKind.enum);
    assert.ok(schemas.Recall.required.includes('identifiers'));
    assert.equal(schemas.RecallSummary.properties.identifiers, undefined);
    assert.equal(schemas.RecallMatch.properties.identifiers, undefined);
    assert.ok(schemas.CheckReceipt.required.includes('matches'));
    assert.equal(schemas.CheckReceiptSummary.properties.matches, undefined);
    const dataOf = (path: string, method: string, status: string) =>
      doc.paths[path][method].responses[status].content['application/json'].schema.properties.data;
    assert.equal(dataOf('/v1/recalls/{id}', 'get', '200').$ref, '#/components/schemas/Recall');
    assert.equal(dataOf('/v1/recalls', 'get', '200').items.$ref, '#/components/schemas/RecallSummary');
    assert.equal(dataOf('/v1/checks', 'post', '201').$ref, '#/components/schemas/CheckReceipt');
    assert.equal(dataOf('/v1/checks/{id}', 'get', '200').$ref, '#/components/schemas/CheckReceipt');
    assert.equal(dataOf('/v1/checks', 'get', '200').items.$ref, '#/components/schemas/CheckReceiptSummary');
    for (const [id, [method, path]] of Object.entries(OPERATIONS)) {
      if (id === 'getHealth') continue;
      const meta =
        doc.paths[path][method].responses[method === 'post' ? '201' : '200'].content['application/json']
          .schema.properties.meta.$ref;
      const paged = ['listRecalls', 'listRecallRevisions', 'lookupByIdentifier', 'listChecks'].includes(id);
      assert.equal(meta, `#/components/schemas/${paged ? 'PageMeta' : 'Meta'}`, id);
    }
    assert.deepEqual(schemas.PageMeta.required, ['count', 'data_as_of', 'limit', 'next_cursor']);
    assert.equal(schemas.Meta.properties.next_cursor, undefined);
    for (const digest of ['submitted_digest', 'result_digest'])
      assert.equal(schemas.CheckReceipt.properties[digest].pattern, '^[0-9a-f]{64}$');
    const match = schemas.CheckMatch.properties;
    assert.deepEqual(match.severity, schemas.Recall.properties.severity);
    assert.deepEqual(match.recall_date, schemas.Recall.properties.recall_date);
    assert.deepEqual(
      schemas.Health.properties.sources.items.properties.last_success_at,
      schemas.Source.properties.last_success_at,
    );
    const key = doc.paths['/v1/checks'].post.parameters.find(
      (p: { name?: string }) => p.name === 'Idempotency-Key',
    );
    assert.deepEqual([key.in, key.schema.minLength, key.schema.maxLength], ['header', 1, 255]);
    assert.ok(new RegExp(key.schema.pattern).test(' ~') && !new RegExp(key.schema.pattern).test('é'));
    assert.ok(doc.info.license.name && doc.info.license.url && doc.info.contact.name);
  });

  test('the interactive reference is served at /docs without a key', async () => {
    const r = await s.request('/docs');
    assert.ok(r.status === 200 || r.status === 302, String(r.status));
    const page = await s.request('/docs/static/index.html');
    assert.equal(page.status, 200);
    assert.doesNotMatch(await page.text(), /https?:\/\/(cdn|unpkg|cdnjs)/);
  });
});

describe('GET /v1/health', () => {
  test('is unknown before any fetch, ok when fresh, degraded on failure or staleness', async () => {
    let now = new Date('2026-11-22T10:00:00.000Z');
    const s = await startService({ clock: () => now });
    try {
      let h = await json(await s.request('/v1/health'));
      assert.equal(h.status, 'unknown');
      assert.deepEqual(h.degraded, []);
      assert.ok(h.sources.some((x: { id: string }) => x.id === 'us-fda-food'));

      // Every source tried and failed, none ever succeeded: degraded, every one listed (issue 37).
      for (const id of SOURCE_IDS)
        await s.store.sources.recordFailure(id, 'HTTP 503', '2026-11-22T09:30:00.000Z');
      h = await json(await s.request('/v1/health'));
      assert.equal(h.status, 'degraded', 'every source failed');
      assert.deepEqual([...h.degraded].sort(), [...SOURCE_IDS].sort());

      await s.seed([draft('F-1-2024')], { observedAt: '2026-11-22T09:00:00.000Z', dataAsOf: '2026-11-18' });
      h = await json(await s.request('/v1/health'));
      assert.equal(h.status, 'degraded', 'sources never fetched are not ok');
      assert.ok(!h.degraded.includes('us-fda-food') && h.degraded.length === SOURCE_IDS.length - 1);
      for (const id of SOURCE_IDS.filter((x) => x !== 'us-fda-food')) {
        await s.seed([draft('X-1')], {
          sourceId: id,
          observedAt: '2026-11-22T09:00:00.000Z',
          dataAsOf: '2026-11-20',
        });
      }
      h = await json(await s.request('/v1/health'));
      assert.equal(h.status, 'ok');
      assert.deepEqual(h.degraded, []);
      const food = h.sources.find((x: { id: string }) => x.id === 'us-fda-food');
      assert.deepEqual(food, {
        id: 'us-fda-food',
        cadence: food.cadence,
        last_success_at: '2026-11-22T09:00:00.000Z',
        data_as_of: '2026-11-18',
        consecutive_failures: 0,
      });

      now = new Date('2026-12-10T10:00:00.000Z');
      h = await json(await s.request('/v1/health'));
      assert.equal(h.status, 'degraded', 'more than twice the cadence without success');
      assert.ok(h.degraded.includes('us-fda-food'));

      now = new Date('2026-11-22T11:00:00.000Z');
      await s.store.sources.recordFailure('us-fda-food', 'HTTP 503', '2026-11-22T10:30:00.000Z');
      h = await json(await s.request('/v1/health'));
      assert.equal(h.status, 'degraded');
      assert.deepEqual(h.degraded, ['us-fda-food']);
      assert.equal(h.sources.find((x: { id: string }) => x.id === 'us-fda-food').consecutive_failures, 1);
      // the data stays served while degraded
      const key = await s.key();
      assert.equal((await json(await s.request('/v1/recalls?source=us-fda-food', { key }))).data.length, 1);
    } finally {
      await s.close();
    }
  });
});
