/** JSON text joined from pieces: the bytes are those of the whole text written as one UTF-8 string. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { jsonBytes, jsonString, type JsonText } from '../../../src/domain/json-text.ts';

/** A tree of pieces, each a string or (half the time) its UTF-8 bytes, with the string it stands for. */
const pieces: fc.Arbitrary<{ text: JsonText; whole: string }> = fc.letrec<{
  node: { text: JsonText; whole: string };
}>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc
      .tuple(fc.string({ unit: 'binary' }), fc.boolean())
      .map(([s, asBytes]) => ({ text: asBytes ? Buffer.from(s) : s, whole: s })),
    fc.array(tie('node'), { maxLength: 5 }).map((children) => ({
      text: children.map((c) => c.text),
      whole: children.map((c) => c.whole).join(''),
    })),
  ),
})).node;

describe('JSON text from pieces', () => {
  test('a page of strings and bytes, nested, is the UTF-8 of the whole text', () => {
    const text: JsonText = [
      '{"data":',
      ['[', Buffer.from('{"t":"Sécurité – 🚗"}'), ',', '{"t":"ascii"}', ']'],
      '}',
    ];
    assert.equal(jsonBytes(text).toString('utf8'), '{"data":[{"t":"Sécurité – 🚗"},{"t":"ascii"}]}');
    assert.equal(jsonString(text), '{"data":[{"t":"Sécurité – 🚗"},{"t":"ascii"}]}');
    assert.equal(jsonBytes(text).length, Buffer.byteLength(jsonString(text)));
  });

  test('any tree of pieces joins to the bytes of the string it stands for', () => {
    fc.assert(
      fc.property(pieces, ({ text, whole }) => {
        assert.deepEqual(jsonBytes(text), Buffer.from(whole));
      }),
    );
  });

  test('one buffer is passed on as it is, one string as it is', () => {
    const bytes = Buffer.from('{}');
    assert.equal(jsonBytes(bytes), bytes);
    assert.equal(jsonString('{}'), '{}');
  });
});
