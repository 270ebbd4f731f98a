import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ANSWER_ENTRY_COST, AnswerCache, answerCost } from '../../../src/http/gates/answer-cache.ts';

/** What an answer of `bytes` to a URL of `urlLength` characters counts against the budget. */
const cost = (bytes: number, urlLength: number) => bytes + urlLength + ANSWER_ENTRY_COST;
/** A budget that keeps any answer of a few hundred bytes. */
const ROOMY = 64 * 1024;

/** What the cache holds: answers, and the bytes they count against the budget. */
function held(cache: AnswerCache): { answers: number; bytes: number } {
  const f = cache.figures();
  return { answers: f.entries, bytes: f.bytes ?? 0 };
}

describe('AnswerCache', () => {
  test('answers only at the version an answer was made at', () => {
    const cache = new AnswerCache(ROOMY);
    cache.set(7, '/v1/recalls', '{"a":1}');
    assert.equal(cache.get(7, '/v1/recalls')?.toString(), '{"a":1}');
    assert.equal(cache.get(8, '/v1/recalls'), undefined);
    assert.equal(cache.get(6, '/v1/recalls'), undefined);
    assert.equal(cache.get(7, '/v1/recalls?limit=1'), undefined);
  });

  test('a newer version replaces everything; an answer made at an older one is dropped', () => {
    const cache = new AnswerCache(ROOMY);
    cache.set(7, '/a', 'seven');
    cache.set(8, '/b', 'eight');
    assert.equal(cache.get(7, '/a'), undefined);
    assert.equal(cache.get(8, '/a'), undefined);
    cache.set(7, '/a', 'late seven');
    assert.equal(cache.get(8, '/a'), undefined);
    assert.deepEqual(held(cache), { answers: 1, bytes: cost(5, 2) });
  });

  test('keeps bytes of their own: a small answer is not held as a slice of a shared buffer', () => {
    const cache = new AnswerCache(ROOMY);
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
    const url = (i: number) => `/${String(i).padStart(3, '0')}`;
    const cache = new AnswerCache(16 * cost(10, 4));
    for (let i = 1; i <= 4; i++) cache.set(1, url(i), 'x'.repeat(10));
    cache.get(1, url(1)); // used again: now the most recent
    for (let i = 5; i <= 16; i++) cache.set(1, url(i), 'x'.repeat(10));
    // 16 answers of 10 bytes to URLs of 4 characters fit exactly
    assert.deepEqual(held(cache), { answers: 16, bytes: 16 * cost(10, 4) });
    cache.set(1, url(17), 'x'.repeat(10));
    assert.equal(cache.get(1, url(2)), undefined, 'the least recently used went first');
    assert.equal(cache.get(1, url(1))?.toString(), 'x'.repeat(10), 'the one used again stayed');
    assert.deepEqual(held(cache), { answers: 16, bytes: 16 * cost(10, 4) });
  });

  test('counts what each answer costs to keep, not only its bytes: small answers cannot fill memory', () => {
    const cache = new AnswerCache(ROOMY);
    const miss = '{"data":[],"meta":{"data_as_of":"2026-06-17","corpus_as_of":"2026-06-17T04:00:00Z"}}';
    for (let i = 0; i < 10_000; i++) cache.set(1, `/v1/lookup?upc=${100000000000 + i}`, miss);
    const each = answerCost('/v1/lookup?upc=100000000000', Buffer.byteLength(miss));
    assert.equal(each, miss.length + 27 + ANSWER_ENTRY_COST);
    assert.deepEqual(held(cache), {
      answers: Math.floor(ROOMY / each),
      bytes: Math.floor(ROOMY / each) * each,
    });
  });

  test('replacing an answer counts only the new one', () => {
    const cache = new AnswerCache(ROOMY);
    cache.set(1, '/a', 'x'.repeat(50));
    cache.set(1, '/a', 'y'.repeat(20));
    assert.deepEqual(held(cache), { answers: 1, bytes: cost(20, 2) });
    assert.equal(cache.get(1, '/a')?.toString(), 'y'.repeat(20));
  });

  test('never keeps an answer costing over a sixteenth of the budget, and nothing with no budget', () => {
    const cache = new AnswerCache(16 * cost(10, 5));
    cache.set(1, '/big1', 'x'.repeat(11));
    assert.equal(cache.get(1, '/big1'), undefined);
    cache.set(1, '/wide', 'é'.repeat(6)); // 6 characters, 12 bytes: the budget counts bytes
    assert.equal(cache.get(1, '/wide'), undefined);
    cache.set(1, '/fits', 'é'.repeat(5));
    assert.deepEqual(held(cache), { answers: 1, bytes: cost(10, 5) });
    const off = new AnswerCache(0);
    off.set(1, '/a', '{}');
    assert.equal(off.get(1, '/a'), undefined);
  });
});
