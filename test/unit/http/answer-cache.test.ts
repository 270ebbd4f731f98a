import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AnswerCache } from '../../../src/http/answer-cache.ts';

describe('AnswerCache', () => {
  test('answers only at the version an answer was made at', () => {
    const cache = new AnswerCache(1000);
    cache.set(7, '/v1/recalls', '{"a":1}');
    assert.equal(cache.get(7, '/v1/recalls')?.toString(), '{"a":1}');
    assert.equal(cache.get(8, '/v1/recalls'), undefined);
    assert.equal(cache.get(6, '/v1/recalls'), undefined);
    assert.equal(cache.get(7, '/v1/recalls?limit=1'), undefined);
  });

  test('a newer version replaces everything; an answer made at an older one is dropped', () => {
    const cache = new AnswerCache(1000);
    cache.set(7, '/a', 'seven');
    cache.set(8, '/b', 'eight');
    assert.equal(cache.get(7, '/a'), undefined);
    assert.equal(cache.get(8, '/a'), undefined);
    cache.set(7, '/a', 'late seven');
    assert.equal(cache.get(8, '/a'), undefined);
    assert.deepEqual(cache.size(), { answers: 1, bytes: 5 });
  });

  test('keeps bytes of their own: a small answer is not held as a slice of a shared buffer', () => {
    const cache = new AnswerCache(1000);
    const pooled = Buffer.from('{"small":true}'); // a slice of Node's 8 KB pool
    assert.notEqual(pooled.byteLength, pooled.buffer.byteLength);
    cache.set(1, '/small', pooled);
    const kept = cache.get(1, '/small')!;
    assert.equal(kept.toString(), '{"small":true}');
    assert.equal(kept.buffer.byteLength, kept.byteLength, 'its own memory, as large as it counts');
    const own = Buffer.allocUnsafeSlow(4).fill(0x41);
    cache.set(1, '/own', own);
    assert.equal(cache.get(1, '/own'), own, 'bytes already of their own are kept as they are');
  });

  test('holds at most its budget, dropping the least recently used first', () => {
    const cache = new AnswerCache(160);
    for (const url of ['/1', '/2', '/3', '/4']) cache.set(1, url, 'x'.repeat(10));
    cache.get(1, '/1'); // used again: now the most recent
    for (let i = 5; i <= 16; i++) cache.set(1, `/${i}`, 'x'.repeat(10));
    // 16 answers of 10 fit 160 exactly
    assert.deepEqual(cache.size(), { answers: 16, bytes: 160 });
    cache.set(1, '/17', 'x'.repeat(10));
    assert.equal(cache.get(1, '/2'), undefined, 'the least recently used went first');
    assert.equal(cache.get(1, '/1')?.toString(), 'x'.repeat(10), 'the one used again stayed');
    assert.deepEqual(cache.size(), { answers: 16, bytes: 160 });
  });

  test('replacing an answer counts only the new one', () => {
    const cache = new AnswerCache(1600);
    cache.set(1, '/a', 'x'.repeat(50));
    cache.set(1, '/a', 'y'.repeat(20));
    assert.deepEqual(cache.size(), { answers: 1, bytes: 20 });
    assert.equal(cache.get(1, '/a')?.toString(), 'y'.repeat(20));
  });

  test('never keeps an answer over a sixteenth of the budget, and nothing with no budget', () => {
    const cache = new AnswerCache(160);
    cache.set(1, '/big', 'x'.repeat(11));
    assert.equal(cache.get(1, '/big'), undefined);
    cache.set(1, '/wide', 'é'.repeat(6)); // 6 characters, 12 bytes: the budget counts bytes
    assert.equal(cache.get(1, '/wide'), undefined);
    cache.set(1, '/fits', 'é'.repeat(5));
    assert.deepEqual(cache.size(), { answers: 1, bytes: 10 });
    const off = new AnswerCache(0);
    off.set(1, '/a', '{}');
    assert.equal(off.get(1, '/a'), undefined);
  });
});
