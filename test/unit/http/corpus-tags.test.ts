import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CORPUS_TAGS_KEPT, corpusTagCache } from '../../../src/http/gates/conditional.ts';

test('a corpus tag is made once per URL and key part at a version, and differs between them', () => {
  const tags = corpusTagCache();
  const a = tags(7, '', '/v1/recalls');
  assert.match(a.tag, /^W\/"[A-Za-z0-9_-]{22}"$/);
  assert.equal(tags(7, '', '/v1/recalls'), a, 'the same entry, so that its answered flag is shared');
  a.answered = true;
  assert.equal(tags(7, '', '/v1/recalls').answered, true);
  assert.notEqual(tags(7, '', '/v1/recalls?limit=5').tag, a.tag);
  assert.notEqual(tags(7, 'key_1:chk_1', '/v1/recalls').tag, a.tag);
  assert.notEqual(tags(7, 'key_1:chk_2', '/v1/recalls').tag, tags(7, 'key_1:chk_1', '/v1/recalls').tag);
});

test('a new version forgets every tag; a tag asked for at an older version is made afresh, never answered', () => {
  const tags = corpusTagCache();
  const old = tags(7, '', '/v1/sources');
  old.answered = true;
  const now = tags(8, '', '/v1/sources');
  assert.notEqual(now.tag, old.tag);
  assert.equal(now.answered, false);
  const late = tags(7, '', '/v1/sources');
  assert.equal(late.tag, old.tag, 'the same tag as before: it is made from the version and URL');
  assert.equal(late.answered, false, 'not kept from before the version moved');
  late.answered = true;
  assert.equal(tags(7, '', '/v1/sources').answered, false, 'nor kept now');
  assert.equal(tags(8, '', '/v1/sources'), now, 'the newest version is still kept');
});

test(`a node keeps at most ${CORPUS_TAGS_KEPT} tags, dropping the least recently used`, () => {
  assert.equal(CORPUS_TAGS_KEPT, 20_000);
  const tags = corpusTagCache(4);
  tags(1, '', '/a').answered = true;
  tags(1, '', '/b').answered = true;
  tags(1, '', '/c');
  tags(1, '', '/d');
  assert.equal(tags(1, '', '/a').answered, true, 'used again: kept');
  tags(1, '', '/e'); // the fifth: b, the least recently used, goes
  assert.equal(tags(1, '', '/b').answered, false, 'dropped and made again');
  assert.equal(tags(1, '', '/a').answered, true);
});
