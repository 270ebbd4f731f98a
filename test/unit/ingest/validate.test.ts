import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { UpstreamError } from '../../../src/ingest/errors.ts';
import {
  JSON_LIMITS,
  XML_LIMITS,
  createXmlParser,
  jsonPageReader,
  parseXmlPage,
} from '../../../src/ingest/validate.ts';

const parser = createXmlParser({ ignoreAttributes: true, parseTagValue: false });
const parse = (xml: string): unknown => parseXmlPage(parser, xml, 'test page', 'https://agency.test/p');

function refused(failure: UpstreamError['failure'], message: RegExp) {
  return (e: unknown): boolean =>
    e instanceof UpstreamError && e.failure === failure && message.test(e.message);
}

/** A document declaring `entities` in its DOCTYPE, with `body` as the text of its root. */
function withDoctype(entities: Record<string, string>, body: string): string {
  const decls = Object.entries(entities)
    .map(([name, value]) => `<!ENTITY ${name} "${value}">`)
    .join('');
  return `<?xml version="1.0"?><!DOCTYPE r [${decls}]><r>${body}</r>`;
}

test('the XML limits are the documented numbers', () => {
  assert.deepEqual(XML_LIMITS, {
    maxDepth: 32,
    entities: {
      maxEntityCount: 16,
      maxEntitySize: 1024,
      maxExpansionDepth: 4,
      maxTotalExpansions: 10_000,
      maxExpandedLength: 256 * 1024,
    },
  });
  assert.deepEqual(JSON_LIMITS, { maxBytes: 64 * 1024 * 1024, maxDepth: 32 });
});

test('XML elements nest up to the limit, one deeper is refused as a format error', () => {
  const nested = (depth: number): string => `${'<a>'.repeat(depth)}x${'</a>'.repeat(depth)}`;
  assert.ok(parse(nested(XML_LIMITS.maxDepth)));
  assert.throws(
    () => parse(nested(XML_LIMITS.maxDepth + 1)),
    refused('format', /test page is refused: .*nested/i),
  );
});

test('DOCTYPE entities: one more than the limits in count, size, expansions or growth is refused', () => {
  const { maxEntityCount, maxEntitySize, maxTotalExpansions, maxExpandedLength } = XML_LIMITS.entities;
  const many = (n: number): Record<string, string> =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`e${i}`, 'v']));
  assert.ok(parse(withDoctype(many(maxEntityCount), '&e0;')));
  assert.throws(
    () => parse(withDoctype(many(maxEntityCount + 1), '&e0;')),
    refused('format', /refused: .*count/i),
  );

  assert.ok(parse(withDoctype({ big: 'x'.repeat(maxEntitySize) }, '&big;')));
  assert.throws(
    () => parse(withDoctype({ big: 'x'.repeat(maxEntitySize + 1) }, '&big;')),
    refused('format', /refused: .*size/i),
  );

  assert.ok(parse(withDoctype({ s: 'v' }, '&s;'.repeat(maxTotalExpansions))));
  assert.throws(
    () => parse(withDoctype({ s: 'v' }, '&s;'.repeat(maxTotalExpansions + 1))),
    refused('format', /refused: .*expansion count/i),
  );

  // An entity bomb in breadth: each reference of a 1024-character entity grows the text by 1020.
  const grows = maxEntitySize - '&bb;'.length;
  const fits = Math.floor(maxExpandedLength / grows);
  const bomb = { bb: 'x'.repeat(maxEntitySize) };
  assert.ok(parse(withDoctype(bomb, '&bb;'.repeat(fits))));
  assert.throws(
    () => parse(withDoctype(bomb, '&bb;'.repeat(fits + 1))),
    refused('format', /refused: .*length/i),
  );
});

test('the five XML entities are not counted against the DOCTYPE limits; HTML ones stay text', () => {
  const text = '&amp;&lt;&gt;&quot;&apos;'.repeat(XML_LIMITS.entities.maxTotalExpansions);
  const doc = parse(`<r>${text}&nbsp;</r>`) as { r: string };
  assert.equal(doc.r, `${'&<>"\''.repeat(XML_LIMITS.entities.maxTotalExpansions)}&nbsp;`);
});

test('JSON pages: nesting up to the limit is read, one deeper is refused before parsing', () => {
  const read = jsonPageReader(Type.Array(Type.Unknown()), 'test answer', 'an array');
  const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  assert.ok(read(nested(JSON_LIMITS.maxDepth)));
  assert.throws(
    () => read(nested(JSON_LIMITS.maxDepth + 1), 'https://agency.test/j'),
    (e: unknown) =>
      refused('format', /test answer nests deeper than 32/)(e) &&
      (e as UpstreamError).details.url === 'https://agency.test/j',
  );
  // brackets inside strings, and escaped quotes before them, are not nesting
  const quoted = JSON.stringify(['\\"' + '['.repeat(100), '\\', '{'.repeat(100)]);
  assert.equal(read(quoted).length, 3);
});

test('JSON pages: a page over the size cap is refused as too_large without being parsed', () => {
  const read = jsonPageReader(Type.Array(Type.Unknown()), 'test answer', 'an array');
  const atCap = Buffer.alloc(JSON_LIMITS.maxBytes, 0x20);
  atCap.write('[]', 0);
  assert.deepEqual(read(atCap), []);
  const over = Buffer.alloc(JSON_LIMITS.maxBytes + 1, 0x20);
  over.write('[]', 0);
  assert.throws(() => read(over), refused('too_large', /over the 67108864-byte cap/));
});
