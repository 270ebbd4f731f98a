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
    const names = list.parameters.map((p: { name: string }) => p.name).sort();
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
    assert.deepEqual(Object.keys(health.responses).sort(), ['200', '400', '404', '500']);
    assert.ok(doc.components.securitySchemes.bearerAuth && doc.components.securitySchemes.apiKeyHeader);
    const check = doc.paths['/v1/checks'].post;
    const body = check.requestBody.content['application/json'].schema;
    assert.equal(body.properties.identifiers.maxItems, 1000);
    assert.equal(body.additionalProperties, false);
    assert.ok(check.responses['201']);
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
