import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { compile, StatementCache } from '../../../src/store/compiled.ts';
import { migrate } from '../../../src/store/database.ts';
import { PREPARED_LIMIT, type Engine } from '../../../src/store/engine.ts';
import { openSqlite } from '../../../src/store/engines/sqlite.ts';

describe('statements compiled once', () => {
  let engine: Engine;
  before(async () => {
    engine = openSqlite(':memory:');
    await migrate(engine);
    await engine.db
      .insertInto('sources')
      .values(
        ['a', 'b', 'c'].map((id) => ({
          id,
          agency: id.toUpperCase(),
          jurisdiction: 'US',
          enabled: 1,
          data_as_of: null,
          last_success_at: null,
          last_attempt_at: null,
          last_error: null,
          consecutive_failures: 0,
        })),
      )
      .execute();
  });
  after(() => engine.close());

  test('binds each named parameter where it appears, repeated or not, and keeps constants', async () => {
    const statement = compile(engine, (p: { low: string; high: string }) =>
      engine.db
        .selectFrom('sources')
        .select('id')
        .where((eb) => eb.or([eb('id', '=', p.low), eb('id', '=', p.high), eb('id', '=', p.low)]))
        .where('enabled', '=', 1)
        .orderBy('id')
        .limit(sql.lit(5)),
    );
    assert.deepEqual(await statement.all({ low: 'a', high: 'c' }), [{ id: 'a' }, { id: 'c' }]);
    assert.deepEqual(await statement.all({ high: 'b', low: 'z' }), [{ id: 'b' }]);
  });

  test('runs writes and reports the rows changed', async () => {
    const statement = compile(engine, (p: { id: string; failures: number }) =>
      engine.db.updateTable('sources').set({ consecutive_failures: p.failures }).where('id', '=', p.id),
    );
    assert.equal(await statement.run({ id: 'b', failures: 3 }), 1);
    assert.equal(await statement.run({ id: 'nope', failures: 3 }), 0);
  });

  test('a statement cache builds a shape once', () => {
    const cache = new StatementCache<object, unknown>(2);
    let built = 0;
    const make = () => (built++, compile(engine, () => engine.db.selectFrom('sources').select('id')));
    assert.equal(cache.get('x', make), cache.get('x', make));
    assert.equal(built, 1);
  });

  test('the engine keeps working past the prepared statements it keeps', async () => {
    const texts = Array.from({ length: PREPARED_LIMIT + 20 }, (_, i) => `SELECT ${i} AS n`);
    for (const text of texts)
      assert.deepEqual(await engine.prepare(text).all([]), [{ n: texts.indexOf(text) }]);
    assert.deepEqual(await engine.prepare(texts[0]!).all([]), [{ n: 0 }]);
  });

  test('SQLite rows are objects named by column, a name given twice keeping its last value', async () => {
    const rows = await engine
      .prepare("SELECT id, agency, 1 AS n, NULL AS gone, 'x' AS twice, 'y' AS twice FROM sources ORDER BY id")
      .all([]);
    assert.deepEqual(rows[0], { id: 'a', agency: 'A', n: 1, gone: null, twice: 'y' });
    assert.deepEqual(Object.keys(rows[2]!), ['id', 'agency', 'n', 'gone', 'twice']);
    assert.equal(rows.length, 3);
  });

  test('a text column read with utf8 is its UTF-8 bytes on SQLite, the same rows inside a transaction', async () => {
    const query = engine.db
      .selectFrom('sources as r')
      .select(['r.id', engine.utf8('r.agency').as('agency')])
      .where('r.id', '=', 'a')
      .compile();
    const statement = engine.prepare(query);
    const [row] = await statement.all(query.parameters);
    assert.deepEqual(row, { id: 'a', agency: Buffer.from('A') });
    // While a transaction holds the connection the statement waits and runs through the query builder.
    let inside: unknown;
    await engine.db.transaction().execute(async () => {
      const waiting = statement.all(query.parameters);
      await new Promise((resolve) => setTimeout(resolve, 20));
      inside = waiting;
    });
    assert.deepEqual(await inside, [{ id: 'a', agency: Buffer.from('A') }]);
  });

  test('a list as rows gives each key as it was, and a join on it each matching row once a key', async () => {
    const keys = ['c', 'nope', 'a', 'é "quoted" \\ and ✓'];
    const statement = compile(engine, (p: { keys: unknown }) =>
      engine.db.selectFrom(engine.listRows(p.keys)).select('keys.value'),
    );
    const back = await statement.all({ keys: engine.listParam(keys) });
    assert.deepEqual(back.map((r) => r.value).sort(), [...keys].sort());
    const joined = compile(engine, (p: { keys: unknown }) =>
      engine.db
        .selectFrom(engine.listRows(p.keys))
        .innerJoin('sources as s', 's.id', 'keys.value')
        .select(['s.id', 's.agency']),
    );
    const rows = await joined.all({ keys: engine.listParam(keys) });
    assert.deepEqual(
      rows.sort((x, y) => x.id.localeCompare(y.id)),
      [
        { id: 'a', agency: 'A' },
        { id: 'c', agency: 'C' },
      ],
    );
  });

  test('a key given twice is one row of the list, and its matches join once', async () => {
    const keys = ['a', 'c', 'a', 'nope', 'c', 'a'];
    const statement = compile(engine, (p: { keys: unknown }) =>
      engine.db.selectFrom(engine.listRows(p.keys)).select('keys.value'),
    );
    const back = await statement.all({ keys: engine.listParam(keys) });
    assert.deepEqual(back.map((r) => r.value).sort(), ['a', 'c', 'nope']);
    const joined = compile(engine, (p: { keys: unknown }) =>
      engine.db
        .selectFrom(engine.listRows(p.keys))
        .innerJoin('sources as s', 's.id', 'keys.value')
        .select('s.id'),
    );
    const rows = await joined.all({ keys: engine.listParam(keys) });
    assert.deepEqual(rows.map((r) => r.id).sort(), ['a', 'c']);
  });
});
