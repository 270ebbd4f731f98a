/**
 * A list page's and a lookup's JSON is put together by the database (recalls-store.ts), which quotes the
 * agency's text itself: `Engine.jsonQuote` must write every character as `JSON.stringify` does. Checked here
 * for every character of the Basic Multilingual Plane but the surrogates (which stored text never holds:
 * the drivers write a lone one as U+FFFD) and astral ones, on the engine under test. PostgreSQL text holds
 * no NUL, so there it starts at U+0001.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Engine } from '../../src/store/engine.ts';
import { createTestDatabase, openRawEngine, type TestDatabase } from '../support/database.ts';

let dir: string;
let database: TestDatabase;
let engine: Engine;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'json-quote-'));
  database = await createTestDatabase(dir);
  engine = openRawEngine(database.database);
});
after(async () => {
  await engine?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

test('the engine quotes text as JSON.stringify does, character for character', async () => {
  const texts: string[] = [];
  for (let c = engine.name === 'postgres' ? 1 : 0; c <= 0xffff; c++) {
    if (c >= 0xd800 && c < 0xe000) continue;
    texts.push(`a${String.fromCharCode(c)}b`);
  }
  texts.push('\u{1F600}', 'x\u{10FFFF}y', 'Say "hi" \\ back\nslash\ttab');
  const rows = await engine.db
    .selectFrom(engine.listRows(engine.listParam(texts)))
    .select((eb) => [eb.ref('keys.value').as('text'), engine.jsonQuote(eb.ref('keys.value')).as('quoted')])
    .execute();
  assert.equal(rows.length, texts.length);
  const differing = rows.filter((r) => r.quoted !== JSON.stringify(r.text));
  assert.deepEqual(differing.slice(0, 5), [], `${differing.length} characters quoted otherwise`);
});
