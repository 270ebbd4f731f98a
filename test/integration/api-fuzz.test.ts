/**
 * The API under random requests (issue 11, point 2): property-based requests with fast-check
 * against a real server on the test engine, sent as raw bytes over TCP so that nothing a client
 * library would normalise away (invalid header values, repeated headers, odd request targets)
 * is lost. Every answer must hold:
 * - never a 5xx;
 * - every error a problem document (`application/problem+json`) of a documented type whose
 *   status is the answer's, with no stack, file path, SQL or driver message;
 * - a 2xx or 304 only when every query parameter is one the route declares;
 * - a 304 only where the same request without `If-None-Match` is a 200;
 * - a repeated `Idempotency-Key` never makes a receipt.
 * Afterwards `/v1/health` answers within HEALTH_BOUND_MS.
 *
 * Budget: RUNS requests (default 5,000, `RECALLS_FUZZ_RUNS`) within BUDGET_MS (default 60 s,
 * `RECALLS_FUZZ_BUDGET_MS`; 5,000 took 21 to 25 s on SQLite and 31 to 46 s on PostgreSQL on the
 * 2-core machine with a load average of 17; fewer within the budget fail the run). Seeded and
 * reproducible: `RECALLS_FUZZ_SEED` (random by default, printed) and, to replay one failure,
 * `RECALLS_FUZZ_PATH`; a failure prints both with the shrunk request as sent (the server's
 * state, receipts and quota counts, still depends on what ran before).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { encodeCursor, filterFingerprint } from '../../src/domain/cursor.ts';
import { PROBLEM_TYPES } from '../../src/http/problems.ts';
import { draft, json, startService, type TestService } from '../support/service.ts';
import { TEST_ENGINE } from '../support/database.ts';

const RUNS = Number(process.env.RECALLS_FUZZ_RUNS ?? 5000);
const BUDGET_MS = Number(process.env.RECALLS_FUZZ_BUDGET_MS ?? 60_000);
const SEED =
  process.env.RECALLS_FUZZ_SEED === undefined ? Date.now() | 0 : Number(process.env.RECALLS_FUZZ_SEED);
const PATH = process.env.RECALLS_FUZZ_PATH;
/**
 * Requests in flight at once: STREAMS properties run side by side, seeded SEED, SEED + 1, …; a
 * failure prints its own stream's seed, which replays alone.
 */
const STREAMS = 2;
/** One request's answer must arrive within this; a hung request is a failure. */
const ANSWER_MS = 10_000;
const HEALTH_BOUND_MS = 2_000;

const DOCUMENTED = new Map<string, number>(Object.values(PROBLEM_TYPES).map((p) => [p.type, p.status]));

/** Declared query parameters per route (GET unless said); undefined: not an API route. */
const RECALL_FILTERS = [
  'jurisdiction',
  'source',
  'hazard_category',
  'severity',
  'remedy',
  'from',
  'to',
  'limit',
  'cursor',
  'include_total',
];
function declaredParameters(method: string, path: string): string[] | undefined {
  if (!path.startsWith('/v1')) return undefined;
  if (path === '/v1/recalls') return RECALL_FILTERS;
  if (/^\/v1\/recalls\/[^/]+\/revisions$/.test(path)) return ['limit', 'cursor'];
  if (/^\/v1\/identifiers\/[^/]+\/[^/]+$/.test(path)) return ['limit', 'cursor'];
  if (path === '/v1/checks' && method !== 'POST') return ['limit', 'cursor'];
  return [];
}

// ---------------------------------------------------------------------------------------------
// The raw client

interface FuzzRequest {
  method: string;
  path: string;
  query: string;
  /** Header lines in order; a name may repeat. `host: null` leaves Host out. */
  headers: [string, string][];
  host: string | null;
  body: string | null;
  /** Content-Length as sent: the body's length unless `short` (fewer bytes than sent). */
  shortLength: boolean;
}

interface Answer {
  status: number;
  headers: Map<string, string>;
  body: string;
  raw: string;
}

function render(r: FuzzRequest, port: number): Buffer {
  const lines = [`${r.method} ${r.path}${r.query} HTTP/1.1`];
  if (r.host !== null) lines.push(`Host: ${r.host.replace('PORT', String(port))}`);
  for (const [name, value] of r.headers) lines.push(`${name}: ${value}`);
  const body = r.body === null ? Buffer.alloc(0) : Buffer.from(r.body, 'utf8');
  if (r.body !== null)
    lines.push(`Content-Length: ${r.shortLength ? Math.floor(body.length / 2) : body.length}`);
  lines.push('Connection: close', '', '');
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), body]);
}

function dechunk(data: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(data.subarray(at, eol).toString('latin1'), 16);
    if (!(size > 0)) break;
    out.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

function parse(data: Buffer, head: boolean): Answer {
  let at = 0;
  for (;;) {
    const end = data.indexOf('\r\n\r\n', at);
    if (end < 0)
      throw new Error(`no complete answer: ${JSON.stringify(data.toString('latin1').slice(0, 300))}`);
    const lines = data.subarray(at, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1]);
    if (!Number.isInteger(status)) throw new Error(`not an HTTP answer: ${JSON.stringify(lines[0])}`);
    if (status >= 100 && status < 200) {
      at = end + 4; // an interim answer (100 Continue): the final one follows
      continue;
    }
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    let body = data.subarray(end + 4);
    if (head || status === 304 || status === 204) body = Buffer.alloc(0);
    else if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) body = dechunk(body);
    else if (headers.has('content-length')) body = body.subarray(0, Number(headers.get('content-length')));
    return {
      status,
      headers,
      body: body.toString('utf8'),
      raw: data.subarray(0, Math.min(data.length, end + 4 + 600)).toString('latin1'),
    };
  }
}

function send(port: number, r: FuzzRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${ANSWER_MS} ms`));
    }, ANSWER_MS);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {}); // a reset after the answer is the server closing; judged below
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parse(Buffer.concat(chunks), r.method === 'HEAD'));
      } catch (error) {
        reject(error as Error);
      }
    });
    // Written, not ended: a client that half-closes has its request aborted by Node's server
    // (httpAllowHalfOpen is off), and then no answer is due. The server closes (Connection: close).
    socket.write(render(r, port));
  });
}

function show(r: FuzzRequest, port: number): string {
  const text = render(r, port).toString('latin1');
  return text.length > 2000 ? `${text.slice(0, 2000)}… (${text.length} bytes)` : text;
}

// ---------------------------------------------------------------------------------------------
// The generators

interface World {
  keys: { scale: string; free: string; revoked: string; other: string };
  recallId: string;
  checkId: string;
  etags: string[];
  cursors: { endpoint: string; cursor: string }[];
}

const pctByte = (b: number) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`;
const pctBytes = fc.uint8Array({ maxLength: 12 }).map((bs) => [...bs].map(pctByte).join(''));
const ODD_TEXT = [
  '',
  '%00',
  'a%00b',
  '%01',
  '%1F',
  '%7F',
  '%',
  '%zz',
  '%2',
  '%C0%80',
  '%ED%A0%80',
  '%EF%BF%BF',
  '%F4%90%80%80',
  '%FF%FE',
  '..',
  '%2e%2e',
  '%2F',
  '+',
  '%20',
  '%E2%80%8B',
  '%EF%B7%BA',
  'null',
  'undefined',
  '__proto__',
  'constructor',
];
const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 24 }).map(encodeURIComponent) },
  {
    weight: 2,
    arbitrary: fc
      .string({ unit: 'binary', maxLength: 12 })
      .map((s) => encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, ''))),
  },
  { weight: 2, arbitrary: pctBytes },
  { weight: 3, arbitrary: fc.constantFrom(...ODD_TEXT) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 6000 }).map((n) => 'a'.repeat(n)) },
);

function cursorArb(world: World): fc.Arbitrary<string> {
  const issued = fc.constantFrom(...world.cursors.map((c) => c.cursor));
  const unsigned = fc
    .tuple(fc.constantFrom('recalls', 'revisions', 'identifiers', 'checks'), fc.jsonValue({ maxDepth: 2 }))
    .map(([endpoint, position]) => {
      const payload = Buffer.from(JSON.stringify([endpoint, filterFingerprint({}), [position]])).toString(
        'base64url',
      );
      const sum = createHash('sha256')
        .update(`recalls-cursor-v1\n${payload}`)
        .digest('base64url')
        .slice(0, 16);
      return `${payload}.${sum}`;
    });
  const foreign = fc
    .tuple(
      fc.constantFrom('recalls', 'revisions', 'checks'),
      fc.constantFrom<unknown[]>([2 ** 31], ['9', 'x\0'], [-1], ['chk_x']),
    )
    .map(([e, p]) => encodeCursor(randomBytes(32), e, filterFingerprint({}), p as never));
  return fc
    .oneof(
      { weight: 3, arbitrary: issued },
      {
        weight: 3,
        arbitrary: fc
          .tuple(issued, fc.nat(), fc.constantFrom('truncate', 'flip', 'append', 'dot'))
          .map(([c, n, how]) => {
            const i = n % Math.max(1, c.length);
            if (how === 'truncate') return c.slice(0, i);
            if (how === 'append') return `${c}${c.slice(0, i % 7)}`;
            if (how === 'dot') return `${c}.x`;
            return `${c.slice(0, i)}${c[i] === 'A' ? 'B' : 'A'}${c.slice(i + 1)}`;
          }),
      },
      { weight: 2, arbitrary: unsigned },
      { weight: 1, arbitrary: foreign },
    )
    .map(encodeURIComponent);
}

/** Spellings of a number that are not a decimal integer (V2). */
const ODD_NUMBERS = ['1e1', '0x10', '0b11', '+5', '%205', '5%20', '2.0'];

function valueFor(world: World, name: string): fc.Arbitrary<string> {
  const valid: Record<string, string[]> = {
    jurisdiction: ['US', 'CA', 'us', 'EU'],
    source: ['us-fda-food', 'us-cpsc', 'nope'],
    hazard_category: ['undeclared_allergen', 'fire', 'x'],
    severity: ['low', 'medium', 'serious', 'HIGH'],
    remedy: ['refund', 'unknown', 'x'],
    from: ['2024-01-01', '2024-02-30', '2024-1-1', '20240101'],
    to: ['2025-12-31', '2023-01-01'],
    limit: ['1', '50', '200', '0', '201', '-1', '9'.repeat(30), ...ODD_NUMBERS],
    include_total: ['true', 'false', 'TRUE', '1', ''],
  };
  if (name === 'cursor') return fc.oneof(cursorArb(world), text);
  const own = Object.hasOwn(valid, name) ? valid[name] : undefined;
  return own === undefined
    ? text
    : fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...own) }, { weight: 1, arbitrary: text });
}

function queryArb(world: World): fc.Arbitrary<string> {
  const name = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...RECALL_FILTERS) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'q',
        'page',
        'LIMIT',
        'limit[]',
        'limit%00',
        '%6Cimit',
        'cursor ',
        'key',
        'api_key',
        '__proto__',
      ),
    },
    { weight: 1, arbitrary: text },
  );
  const pair = name.chain((n) =>
    fc.oneof(
      { weight: 8, arbitrary: valueFor(world, decodeURIComponentSafe(n)).map((v) => `${n}=${v}`) },
      { weight: 1, arbitrary: fc.constant(n) },
    ),
  );
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant('') },
    { weight: 6, arbitrary: fc.array(pair, { minLength: 1, maxLength: 4 }).map((ps) => `?${ps.join('&')}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '?',
        '??',
        '?&',
        '?=',
        '?&&limit=5',
        '?limit=5&limit=6',
        '?limit=5;cursor=x',
        '?#frag',
      ),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1000, max: 20_000 }).map((n) => `?jurisdiction=${'U'.repeat(n)}`),
    },
  );
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function pathArb(world: World): fc.Arbitrary<string> {
  const segment = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        world.recallId,
        world.checkId,
        'us-fda-food.F-0001',
        'upc',
        'lot',
        '012345678905',
        'x',
      ),
    },
    { weight: 4, arbitrary: text },
  );
  const kind = fc.oneof(fc.constantFrom('upc', 'UPC', 'gtin', 'lot', 'ndc', 'vin', 'model', 'nope'), text);
  return fc.oneof(
    { weight: 5, arbitrary: fc.constant('/v1/recalls') },
    { weight: 3, arbitrary: segment.map((s) => `/v1/recalls/${s}`) },
    { weight: 3, arbitrary: segment.map((s) => `/v1/recalls/${s}/revisions`) },
    { weight: 3, arbitrary: fc.tuple(kind, segment).map(([k, v]) => `/v1/identifiers/${k}/${v}`) },
    { weight: 4, arbitrary: fc.constant('/v1/checks') },
    { weight: 2, arbitrary: segment.map((s) => `/v1/checks/${s}`) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '/v1/sources',
        '/v1/health',
        '/v1/openapi.json',
        '/docs',
        '/docs/',
        '/',
        '/v1',
        '/v1/',
        '/v1/recalls/',
        '//v1/recalls',
        '/V1/RECALLS',
        '/v1/./recalls',
        '/v1/recalls/../checks',
        '*',
        'http://127.0.0.1/v1/recalls',
      ),
    },
    { weight: 1, arbitrary: fc.array(segment, { maxLength: 5 }).map((ss) => `/${ss.join('/')}`) },
  );
}

function headersArb(world: World): fc.Arbitrary<[string, string][]> {
  const { scale, free, revoked, other } = world.keys;
  const auth = fc.oneof(
    { weight: 2, arbitrary: fc.constant<[string, string][]>([]) },
    { weight: 8, arbitrary: fc.constant<[string, string][]>([['Authorization', `Bearer ${scale}`]]) },
    { weight: 2, arbitrary: fc.constant<[string, string][]>([['X-API-Key', scale]]) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<[string, string][]>(
        [['Authorization', `Bearer ${free}`]],
        [['Authorization', `Bearer ${revoked}`]],
        [
          ['Authorization', `Bearer ${scale}`],
          ['X-API-Key', scale],
        ],
        [['Authorization', 'Bearer']],
        [['Authorization', 'Basic dXNlcjpwYXNz']],
        [['Authorization', `bearer ${scale}`]],
        [['Authorization', `Bearer  ${scale}`]],
        [['Authorization', `Bearer ${scale}x`]],
        [['X-API-Key', '']],
        [
          ['Authorization', `Bearer ${scale}`],
          ['Authorization', `Bearer ${scale}`],
        ],
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .string({ maxLength: 60 })
        .map((k): [string, string][] => [['Authorization', `Bearer ${k.replace(/[\r\n]/g, '')}`]]),
    },
    {
      weight: 1,
      arbitrary: fc.constant<[string, string][]>([
        ['Authorization', `Bearer ${scale}`],
        ['X-API-Key', other],
      ]),
    },
  );
  const optional = (arb: fc.Arbitrary<[string, string][]>, weight = 4) =>
    fc.oneof({ weight, arbitrary: fc.constant<[string, string][]>([]) }, { weight: 1, arbitrary: arb });
  const one = (name: string, values: fc.Arbitrary<string>) =>
    values.map((v): [string, string][] => [[name, v]]);
  const headerText = fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, ''));
  // Tags that match (`*`, a tag of the corpus version): never a 304 where the answer is an error.
  const matching = [
    fc.constantFrom(...world.etags, '*', 'W/"x", *'),
    fc.constantFrom(...world.etags).map((t) => `${t}, W/"y"`),
  ];
  const ifNoneMatch = one(
    'If-None-Match',
    fc.oneof(fc.constantFrom('W/"0"', '"x"', ''), headerText, ...matching),
  );
  const idempotency = fc.oneof(
    one('Idempotency-Key', fc.oneof(fc.uuid(), headerText, fc.constant('x'.repeat(256)), fc.constant(''))),
    fc.tuple(fc.uuid(), fc.uuid()).map(([a, b]): [string, string][] => [
      ['Idempotency-Key', a],
      ['Idempotency-Key', b],
    ]),
  );
  const contentType = one(
    'Content-Type',
    fc.oneof(
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'application/json; charset=utf-16',
        'APPLICATION/JSON',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/problem+json',
        'application/json, text/plain',
        '',
      ),
      headerText,
    ),
  );
  const accept = one(
    'Accept',
    fc.oneof(
      fc.constantFrom(
        '*/*',
        'application/json',
        'text/html',
        'application/xml',
        'application/problem+json',
        '',
      ),
      headerText,
    ),
  );
  const expect = one('Expect', fc.constantFrom('100-continue', 'foo', ''));
  const odd = one(
    'X-Odd',
    fc.oneof(
      fc.constantFrom('\u0000', 'a\u0001b', '\u007f', '\u00ff', 'é', '\t x \t'),
      fc.integer({ min: 1000, max: 20_000 }).map((n) => 'h'.repeat(n)),
    ),
  );
  const forwarded = one('X-Forwarded-For', fc.oneof(fc.ipV4(), fc.ipV6(), headerText));
  return fc
    .tuple(
      auth,
      optional(ifNoneMatch, 3),
      optional(idempotency, 3),
      optional(contentType, 2),
      optional(accept),
      optional(expect, 8),
      optional(odd, 10),
      optional(forwarded, 6),
    )
    .map((parts) => parts.flat());
}

const labelArb = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('a\u0000b', 'x'.repeat(201), '\u0001', '\uFDFA', '\uD800x', 'x\uDFFF'),
  fc.integer(),
);

function bodyArb(): fc.Arbitrary<string | null> {
  const identifier = fc.record(
    {
      kind: fc.oneof(
        fc.constantFrom('upc', 'UPC', 'gtin', 'ean', 'lot', 'batch', 'ndc', 'vin', 'model', 'nope'),
        fc.string({ maxLength: 12 }),
      ),
      value: fc.oneof(
        fc.constantFrom('012345678905', '0 50428 54100 5', 'Lot 21096', '1HGCM82633A004352', ''),
        fc.string({ maxLength: 30 }),
      ),
    },
    { requiredKeys: [] },
  );
  const check = fc.record(
    {
      label: labelArb,
      identifiers: fc.oneof(
        { weight: 6, arbitrary: fc.array(identifier, { minLength: 1, maxLength: 8 }) },
        { weight: 1, arbitrary: fc.constant([]) },
        {
          weight: 1,
          arbitrary: fc
            .integer({ min: 1001, max: 1200 })
            .map((n) => Array.from({ length: n }, () => ({ kind: 'upc', value: '012345678905' }))),
        },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
      ),
      extra: fc.jsonValue({ maxDepth: 1 }),
    },
    { requiredKeys: ['identifiers'] },
  );
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(null) },
    { weight: 8, arbitrary: check.map((b) => JSON.stringify(b)) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    { weight: 2, arbitrary: fc.string({ maxLength: 80 }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 100, max: 20_000 }), fc.constantFrom('[', '{"identifiers":'))
        .map(([n, open]) => `${open.repeat(n)}1${(open === '[' ? ']' : '}').repeat(n)}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1024 * 1024 - 64, max: 1024 * 1024 + 64 })
        .map((n) => `{"label":"${'x'.repeat(n)}"}`),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        '{',
        '{"identifiers":[{"kind":"upc","value":"012345678905"}]}garbage',
        '\u0000',
        '{"__proto__":{"x":1},"identifiers":[]}',
      ),
    },
  );
}

function randomRequestArb(world: World): fc.Arbitrary<FuzzRequest> {
  return fc.record({
    method: fc.oneof(
      { weight: 10, arbitrary: fc.constant('GET') },
      { weight: 5, arbitrary: fc.constant('POST') },
      {
        weight: 3,
        arbitrary: fc.constantFrom('HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'get', 'FOO'),
      },
    ),
    path: pathArb(world),
    query: queryArb(world),
    headers: headersArb(world),
    host: fc.oneof(
      { weight: 20, arbitrary: fc.constant<string | null>('127.0.0.1:PORT') },
      {
        weight: 1,
        arbitrary: fc.constantFrom<string | null>('', 'evil.example', 'a b', null),
      },
    ),
    body: bodyArb(),
    shortLength: fc.nat(9).map((n) => n === 0),
  });
}

/**
 * A request that is valid but for one or two things: most wholly random requests stop at the key
 * or the router, these reach the handlers and the database.
 */
function nearValidArb(world: World): fc.Arbitrary<FuzzRequest> {
  const key: [string, string][] = [['Authorization', `Bearer ${world.keys.scale}`]];
  const json: [string, string][] = [['Content-Type', 'application/json']];
  const check = JSON.stringify({ label: 'fuzz', identifiers: [{ kind: 'upc', value: '012345678905' }] });
  const base = (method: string, path: string, query = '', body: string | null = null): FuzzRequest => ({
    method,
    path,
    query,
    headers: body === null ? key : [...key, ...json],
    host: '127.0.0.1:PORT',
    body,
    shortLength: false,
  });
  const bases = [
    base('GET', '/v1/recalls', '?limit=5'),
    base('GET', `/v1/recalls/${world.recallId}`),
    base('GET', `/v1/recalls/${world.recallId}/revisions`),
    base('GET', '/v1/identifiers/upc/012345678905'),
    base('GET', '/v1/checks', '?limit=2'),
    base('GET', `/v1/checks/${world.checkId}`),
    base('GET', '/v1/sources'),
    base('POST', '/v1/checks', '', check),
  ];
  const labelled = labelArb.map((label) =>
    base(
      'POST',
      '/v1/checks',
      '',
      JSON.stringify({ label, identifiers: [{ kind: 'upc', value: '012345678905' }] }),
    ),
  );
  return fc
    .record({
      base: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...bases) }, { weight: 2, arbitrary: labelled }),
      query: fc.option(queryArb(world), { freq: 2 }),
      headers: fc.option(headersArb(world), { freq: 2 }),
      body: fc.option(bodyArb(), { freq: 3 }),
    })
    .map(({ base: b, query, headers, body }) => ({
      ...b,
      ...(query === null ? {} : { query }),
      ...(headers === null
        ? {}
        : { headers: headers.some(([n]) => n === 'Content-Type') ? headers : [...json, ...headers] }),
      ...(body === null ? {} : { body }),
    }));
}

function requestArb(world: World): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 1, arbitrary: randomRequestArb(world) },
    { weight: 1, arbitrary: nearValidArb(world) },
  );
}

// ---------------------------------------------------------------------------------------------
// The properties

const INTERNAL = [
  /\bat (?:async )?[\w.<>]+ \(/, // a stack frame
  /\(?(?:file:\/\/|\/)[\w./-]+\.(?:ts|js):\d+/, // a source location
  /node_modules|\/work\/|\/src\//,
  /SQLITE_|sqlite3?\b|better-sqlite|\bpg-protocol|PostgreSQL|relation "|syntax error at|invalid byte sequence|violates|out of range for type|duplicate key/i,
  /\b(?:TypeError|ReferenceError|RangeError)\b/,
];

function queryNames(query: string): string[] {
  const q = query.startsWith('?') ? query.slice(1) : query;
  return q
    .split('#')[0]!
    .split('&')
    .filter((p) => p !== '')
    .map((p) => decodeURIComponentSafe(p.split('=')[0]!.replace(/\+/g, ' ')));
}

const BARE: FuzzRequest = {
  method: 'GET',
  path: '/v1/health',
  query: '',
  headers: [],
  host: '127.0.0.1:PORT',
  body: null,
  shortLength: false,
};

async function judge(port: number, r: FuzzRequest, a: Answer): Promise<void> {
  const fail = (why: string) => {
    throw new Error(`${why}\n--- request ---\n${show(r, port)}\n--- answer ---\n${a.raw}`);
  };
  if (a.status >= 500) fail(`a ${a.status}`);
  if (a.status >= 400) {
    const type = a.headers.get('content-type') ?? '';
    if (!type.startsWith('application/problem+json'))
      fail(`an error that is not a problem document (${type})`);
    if (r.method !== 'HEAD') {
      let problem: { type?: unknown; status?: unknown; title?: unknown; detail?: unknown };
      try {
        problem = JSON.parse(a.body) as typeof problem;
      } catch {
        return fail('a problem that is not JSON');
      }
      if (typeof problem.type !== 'string' || DOCUMENTED.get(problem.type) !== a.status)
        fail(`problem type ${String(problem.type)} is not a documented type of status ${a.status}`);
      if (problem.status !== a.status) fail(`problem status ${String(problem.status)} on a ${a.status}`);
      if (typeof problem.title !== 'string' || typeof problem.detail !== 'string')
        fail('a problem without title or detail');
      for (const pattern of INTERNAL)
        if (pattern.test(a.body)) fail(`internal detail in a problem (${pattern})`);
    }
  }
  // Matched on the raw path: the router decodes each segment only after matching it.
  const declared = declaredParameters(r.method.toUpperCase(), r.path);
  if ((a.status < 300 || a.status === 304) && declared !== undefined) {
    const unknown = queryNames(r.query).filter((n) => !declared.includes(n));
    if (unknown.length > 0) fail(`a ${a.status} with undeclared query parameters ${JSON.stringify(unknown)}`);
  }
  if (a.status === 304) {
    const plain = await send(port, {
      ...r,
      headers: r.headers.filter(([n]) => n.toLowerCase() !== 'if-none-match'),
    });
    if (plain.status !== 200) fail(`a 304 where the request without If-None-Match is a ${plain.status}`);
  }
  const bearer = r.headers.find(([n]) => n === 'Authorization')?.[1].replace(/^Bearer /, '');
  const apiKey = r.headers.find(([n]) => n === 'X-API-Key')?.[1];
  // Keys are read on the keyed routes only: /docs, health and the OpenAPI document never look.
  const keyed = r.path.startsWith('/v1/') && !/^\/v1\/(health|openapi\.json)(\?|$)/.test(r.path);
  if (keyed && bearer !== undefined && apiKey !== undefined && bearer !== apiKey && a.status < 400)
    fail(`a ${a.status} for two different keys`);
  const limit = new URLSearchParams(r.query.split('#')[0]).get('limit');
  if (limit !== null && declared?.includes('limit') === true && a.status < 400 && !/^[0-9]+$/.test(limit))
    fail(`a ${a.status} for limit ${JSON.stringify(limit)}, not a decimal integer`);
  if (r.method === 'HEAD' && a.status === 200 && declared !== undefined && !a.headers.has('etag'))
    fail('a HEAD answered without the ETag its GET carries');
  if (r.method === 'POST' && a.status === 201) {
    const receipt = (JSON.parse(a.body) as { data: { check_id: string; label: unknown } }).data;
    const auth = r.headers.filter(([n]) => n === 'Authorization' || n === 'X-API-Key');
    const stored = await send(port, { ...BARE, path: `/v1/checks/${receipt.check_id}`, headers: auth });
    const label =
      stored.status === 200
        ? (JSON.parse(stored.body) as { data: { label: unknown } }).data.label
        : undefined;
    if (label !== receipt.label)
      fail(
        `a receipt acknowledged with label ${JSON.stringify(receipt.label)} reads back as ${JSON.stringify(label)} (${stored.status})`,
      );
  }
  const idempotencyKeys = r.headers.filter(([n]) => n.toLowerCase() === 'idempotency-key').length;
  if (idempotencyKeys > 1 && a.status === 201) fail('a receipt for a repeated Idempotency-Key');
}

// ---------------------------------------------------------------------------------------------

describe(`the API under random requests (${TEST_ENGINE})`, () => {
  let s: TestService;
  let port: number;
  let world: World;

  before(async () => {
    s = await startService();
    port = Number(new URL(s.url).port);
    await s.seed(
      Array.from({ length: 12 }, (_, i) =>
        draft(`F-${String(i + 1).padStart(4, '0')}`, {
          published_date: `2024-0${(i % 9) + 1}-1${i % 10}`,
          identifiers: [
            { kind: 'upc', value: '012345678905', normalized: '00012345678905', confidence: 'exact' },
            { kind: 'lot', value: `Lot ${i}`, normalized: String(i), confidence: 'inferred' },
          ],
        }),
      ),
    );
    // A second observation: one recall with amendments.
    await s.seed([draft('F-0001', { severity: 'serious', published_date: '2024-01-10' })]);
    await s.seed([draft('F-0001', { severity: 'low', published_date: '2024-01-10' })]);
    const scale = await s.key('scale');
    const free = await s.key('free');
    const revoked = await s.key('scale');
    const other = await s.key('scale');
    await s.store.keys.revoke(revoked, new Date());
    const recallId = 'us-fda-food.F-0001';
    const body = { identifiers: [{ kind: 'upc', value: '012345678905' }] };
    const checkId: string = (await json(await s.request('/v1/checks', { key: scale, body }))).data.check_id;
    for (let i = 0; i < 2; i++) await s.request('/v1/checks', { key: scale, body });
    const cursors: World['cursors'] = [];
    const etags: string[] = [];
    for (const [endpoint, path] of [
      ['recalls', '/v1/recalls?limit=2'],
      ['recalls', '/v1/recalls?limit=1&severity=medium'],
      ['revisions', `/v1/recalls/${recallId}/revisions?limit=1`],
      ['identifiers', '/v1/identifiers/upc/012345678905?limit=3'],
      ['checks', '/v1/checks?limit=1'],
    ] as const) {
      const r = await s.request(path, { key: scale });
      assert.equal(r.status, 200, path);
      etags.push(r.headers.get('etag')!);
      const cursor = (await json(r)).meta.next_cursor as string | null;
      assert.notEqual(cursor, null, path);
      cursors.push({ endpoint, cursor: cursor! });
    }
    for (const path of [`/v1/recalls/${recallId}`, '/v1/sources', '/v1/health', `/v1/checks/${checkId}`]) {
      const tag = (await s.request(path, { key: scale })).headers.get('etag');
      if (tag !== null) etags.push(tag);
    }
    world = { keys: { scale, free, revoked, other }, recallId, checkId, etags, cursors };
  });
  after(() => s.close());

  // The run stops at its budget; the rest is one health request (docs/development.md, test timeouts).
  test(
    `${RUNS} requests: no 5xx, only documented problems, no internal detail, no ignored parameter`,
    { timeout: 4 * BUDGET_MS },
    async (t) => {
      t.diagnostic(
        `seed ${SEED}${PATH === undefined ? '' : `, path ${PATH}`}; replay with RECALLS_FUZZ_SEED=${SEED}`,
      );
      const started = Date.now();
      let sent = 0;
      const streams = PATH === undefined ? STREAMS : 1;
      await Promise.all(
        Array.from({ length: streams }, (_, i) =>
          fc.assert(
            fc.asyncProperty(requestArb(world), async (r) => {
              sent++;
              await judge(port, r, await send(port, r));
            }),
            {
              seed: SEED + i,
              numRuns: Math.ceil(RUNS / streams),
              interruptAfterTimeLimit: BUDGET_MS,
              markInterruptAsFailure: true,
              includeErrorInReport: true,
              ...(PATH === undefined ? {} : { path: PATH }),
            },
          ),
        ),
      );
      const elapsed = Date.now() - started;
      t.diagnostic(`${sent} requests in ${elapsed} ms`);
      if (PATH === undefined)
        assert.ok(sent >= RUNS, `only ${sent} of ${RUNS} requests within ${BUDGET_MS} ms`);

      const healthStarted = Date.now();
      const health = await send(port, BARE);
      const took = Date.now() - healthStarted;
      assert.equal(health.status, 200);
      assert.ok(took < HEALTH_BOUND_MS, `/v1/health took ${took} ms after the run`);
    },
  );
});
