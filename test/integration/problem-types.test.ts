/**
 * Every problem type URI leads to a page describing the problem: JSON for an API client, HTML for a browser
 * (by Accept); an unknown type is a 404 problem; the pages stay out of the OpenAPI document.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PROBLEM_TYPES } from '../../src/http/problems.ts';
import { json, startService, type TestService } from '../support/service.ts';

describe('problem type pages', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  test('each type answers JSON by default and HTML to a browser', async () => {
    for (const t of Object.values(PROBLEM_TYPES)) {
      const r = await s.request(t.type);
      assert.equal(r.status, 200, t.type);
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
      const body = await json(r);
      assert.deepEqual(Object.keys(body), ['type', 'title', 'status', 'description']);
      assert.equal(body.type, t.type);
      assert.equal(body.status, t.status);
      assert.ok(body.description.length > 40);
      const html = await s.request(t.type, {
        headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
      });
      assert.equal(html.status, 200);
      assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(html.headers.get('vary') ?? '', /Accept/);
      const text = await html.text();
      assert.match(text, new RegExp(`<h1>${t.status} `));
      assert.ok(!/<script/i.test(text));
    }
    const curl = await s.request('/problems/rate-limited', { headers: { accept: '*/*' } });
    assert.match(curl.headers.get('content-type') ?? '', /^application\/json/);
    await curl.arrayBuffer();
  });

  test('an unknown type is a 404 problem, and the pages are not in the OpenAPI document', async () => {
    const r = await s.request('/problems/no-such-problem');
    assert.equal(r.status, 404);
    assert.equal((await json(r)).type, '/problems/not-found');
    const doc = await json(await s.request('/v1/openapi.json'));
    assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/problems')));
  });
});
