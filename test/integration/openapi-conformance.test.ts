import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyReply } from 'fastify';
import { ResponseValidator, watchResponses, type SeenResponse } from '../support/openapi-responses.ts';
import { draft, json, startService, type TestService } from '../support/service.ts';

const RATE = { ratelimit: '"burst";r=59;t=60', 'ratelimit-policy': '"burst";q=60;w=60' };
const PROBLEM = 'application/problem+json; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

describe('the OpenAPI response check (test/support/openapi-responses.ts)', () => {
  let s: TestService;
  let v: ResponseValidator;
  /** A real answer of the service, to alter one thing at a time. */
  let recall: SeenResponse;

  before(async () => {
    s = await startService();
    await s.seed([draft('F-0001-2024', { identifiers: [] })]);
    const key = await s.key();
    const r = await s.request('/v1/recalls/us-fda-food.F-0001-2024', { key });
    assert.equal(r.status, 200);
    recall = {
      method: 'GET',
      route: '/v1/recalls/:id',
      url: '/v1/recalls/us-fda-food.F-0001-2024',
      status: 200,
      headers: { 'content-type': r.headers.get('content-type')!, etag: r.headers.get('etag')!, ...RATE },
      body: await r.text(),
    };
    v = new ResponseValidator((await json(await s.request('/v1/openapi.json'))) as Record<string, unknown>);
  });
  after(() => s.close());

  const problemsOf = (change: Partial<SeenResponse>) => v.check({ ...recall, ...change });

  test('passes a real answer as it was sent', () => {
    assert.deepEqual(problemsOf({}), []);
  });

  test('fails a body missing a field the schema requires', () => {
    const body = JSON.parse(recall.body!);
    delete body.data.identifiers;
    const found = problemsOf({ body: JSON.stringify(body) });
    assert.equal(found.length, 1);
    assert.match(found[0]!, /identifiers/);
  });

  test('fails a value outside its enum or format', () => {
    const body = JSON.parse(recall.body!);
    body.data.severity = 'catastrophic';
    body.data.recall_date = '10/01/2024';
    assert.equal(problemsOf({ body: JSON.stringify(body) }).length, 1);
  });

  test('fails a status the operation does not declare', () => {
    assert.match(problemsOf({ status: 418 }).join(), /status 418 is not declared for getRecall/);
  });

  test('fails a missing required header, an undeclared contract header and a malformed one', () => {
    assert.match(
      problemsOf({ headers: { ...recall.headers, etag: undefined } }).join(),
      /required header etag/,
    );
    assert.match(
      problemsOf({ headers: { ...recall.headers, 'retry-after': '5' } }).join(),
      /retry-after is sent but not declared/,
    );
    assert.match(problemsOf({ headers: { ...recall.headers, etag: '"strong"' } }).join(), /header etag/);
  });

  test('fails another media type, a body on a 304 and a problem whose type is not its status', () => {
    assert.match(
      problemsOf({ headers: { ...recall.headers, 'content-type': 'text/html' } }).join(),
      /text\/html/,
    );
    assert.match(
      problemsOf({ status: 304, headers: { etag: recall.headers.etag, ...RATE } }).join(),
      /a body where none is declared/,
    );
    assert.deepEqual(
      problemsOf({ status: 304, headers: { etag: recall.headers.etag, ...RATE }, body: '' }),
      [],
    );
    const problem = {
      type: '/problems/unauthorized',
      title: 'Missing or invalid API key',
      status: 401,
      detail: 'x',
      instance: recall.url,
    };
    const as404 = { status: 404, headers: { 'content-type': PROBLEM, ...RATE } };
    assert.equal(problemsOf({ ...as404, body: JSON.stringify(problem) }).length, 1);
    const notFound = { ...problem, type: '/problems/not-found', title: 'No such resource', status: 404 };
    assert.deepEqual(problemsOf({ ...as404, body: JSON.stringify(notFound) }), []);
  });

  test('checks an answer outside every operation against the problem schema', () => {
    const outside = { method: 'GET', route: undefined, url: '/nowhere', status: 404 };
    const body = JSON.stringify({
      type: '/problems/not-found',
      title: 'No such resource',
      status: 404,
      detail: 'x',
    });
    assert.deepEqual(v.check({ ...outside, headers: { 'content-type': PROBLEM }, body }), []);
    assert.equal(v.check({ ...outside, headers: { 'content-type': JSON_TYPE }, body: '{}' }).length, 1);
  });
});

describe('watchResponses', () => {
  test('collects every answer of an app that strays from the document it serves', async () => {
    const app = Fastify();
    await app.register(swagger, { openapi: { openapi: '3.1.0', info: { title: 't', version: '1' } } });
    app.get(
      '/thing',
      {
        schema: {
          operationId: 'getThing',
          querystring: { type: 'object', properties: { as: { type: 'string' } } },
          response: {
            200: {
              description: 'A thing',
              type: 'object',
              required: ['name'],
              properties: { name: { type: 'string' } },
              additionalProperties: false,
            },
          },
        },
      },
      // Sends what its schema declares unless asked for a status it does not declare.
      async (request, reply: FastifyReply) =>
        (request.query as { as?: string }).as === 'teapot'
          ? reply.code(418).send({ name: 'tea' })
          : { name: 'x' },
    );
    const watched = watchResponses(app);
    await app.ready();
    assert.equal((await app.inject('/thing')).statusCode, 200);
    assert.deepEqual(watched.violations, []);
    assert.equal((await app.inject('/thing?as=teapot')).statusCode, 418);
    assert.deepEqual(watched.violations, [
      'GET /thing?as=teapot → 418: status 418 is not declared for getThing',
    ]);
    await app.close();
  });
});
