import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import {
  ConfigError,
  describeDatabase,
  loadConfig,
  parseDatabaseUrl,
  SECRET_FILE_MAX_BYTES,
  sourceUrlVariable,
} from '../../src/config.ts';

const IDS = ['us-fda-food'];

test('defaults: SQLite file, port 8080, the spec plans with scale at 1,000,000 requests', () => {
  const c = loadConfig({}, IDS);
  assert.deepEqual(c.database, { engine: 'sqlite', path: './data/recalls.db' });
  assert.equal(c.port, 8080);
  assert.equal(c.plans.free.perMonth.requests, 500);
  assert.equal(c.plans.free.perMonth.identifiers, 5000);
  assert.equal(c.plans.free.burstPerMinute, 10);
  assert.equal(c.plans.scale.perMonth.requests, 1_000_000);
  assert.equal(c.plans.growth.burstPerMinute, 300);
  assert.equal(c.ingest.schedule, 'daily');
});

test('the answer cache holds 16 MiB unless told otherwise; 0 turns it off', () => {
  assert.equal(loadConfig({}, IDS).answerCacheBytes, 16 * 1024 * 1024);
  assert.equal(loadConfig({ RECALLS_ANSWER_CACHE_MB: '0' }, IDS).answerCacheBytes, 0);
  assert.throws(() => loadConfig({ RECALLS_ANSWER_CACHE_MB: 'lots' }, IDS), /RECALLS_ANSWER_CACHE_MB/);
});

test('the admin listener: none unless RECALLS_ADMIN_PORT is set, on loopback unless RECALLS_ADMIN_HOST says', () => {
  assert.equal(loadConfig({}, IDS).admin, null);
  assert.deepEqual(loadConfig({ RECALLS_ADMIN_PORT: '9090' }, IDS).admin, { port: 9090, host: '127.0.0.1' });
  assert.deepEqual(loadConfig({ RECALLS_ADMIN_PORT: '0', RECALLS_ADMIN_HOST: '::' }, IDS).admin, {
    port: 0,
    host: '::',
  });
  for (const [env, message] of [
    [{ RECALLS_ADMIN_PORT: 'metrics' }, /^RECALLS_ADMIN_PORT must be a whole number, got "metrics"$/],
    [{ RECALLS_ADMIN_PORT: '65536' }, /^RECALLS_ADMIN_PORT must be between 0 and 65535, got 65536$/],
    [{ RECALLS_ADMIN_PORT: '-1' }, /^RECALLS_ADMIN_PORT must be a whole number/],
    [{ RECALLS_ADMIN_PORT: '8080' }, /^RECALLS_ADMIN_PORT must differ from PORT, both are 8080$/],
    [
      { RECALLS_ADMIN_PORT: '9090', RECALLS_ADMIN_HOST: 'admin.internal' },
      /^RECALLS_ADMIN_HOST must be an IP/,
    ],
    [{ RECALLS_ADMIN_HOST: '127.0.0.300' }, /^RECALLS_ADMIN_HOST must be an IP/],
  ] as const)
    assert.throws(
      () => loadConfig(env, IDS),
      (e: Error) => e instanceof ConfigError && message.test(e.message),
    );
});

test('a request must arrive within 30 s unless told otherwise, 1 s to 10 min', () => {
  assert.equal(loadConfig({}, IDS).requestTimeoutMs, 30_000);
  assert.equal(loadConfig({ RECALLS_REQUEST_TIMEOUT_MS: '5000' }, IDS).requestTimeoutMs, 5000);
  assert.throws(() => loadConfig({ RECALLS_REQUEST_TIMEOUT_MS: '0' }, IDS), /RECALLS_REQUEST_TIMEOUT_MS/);
  assert.throws(
    () => loadConfig({ RECALLS_REQUEST_TIMEOUT_MS: '600001' }, IDS),
    /RECALLS_REQUEST_TIMEOUT_MS/,
  );
});

test('quota leases: blocks of at most 1000 (1 to 100,000), given back after 1 s idle (100 ms to 10 min)', () => {
  assert.deepEqual(loadConfig({}, IDS).quota, { leaseBlock: 1000, idleReturnMs: 1000 });
  assert.deepEqual(
    loadConfig({ RECALLS_QUOTA_LEASE_BLOCK: '1', RECALLS_QUOTA_IDLE_RETURN_MS: '600000' }, IDS).quota,
    { leaseBlock: 1, idleReturnMs: 600_000 },
  );
  for (const [name, value] of [
    ['RECALLS_QUOTA_LEASE_BLOCK', '0'],
    ['RECALLS_QUOTA_LEASE_BLOCK', '100001'],
    ['RECALLS_QUOTA_LEASE_BLOCK', '1e3'],
    ['RECALLS_QUOTA_IDLE_RETURN_MS', '99'],
    ['RECALLS_QUOTA_IDLE_RETURN_MS', '600001'],
  ] as const)
    assert.throws(() => loadConfig({ [name]: value }, IDS), new RegExp(name));
});

test('scale becomes unmetered with one setting', () => {
  assert.equal(
    loadConfig({ RECALLS_PLAN_SCALE_REQUESTS: 'unmetered' }, IDS).plans.scale.perMonth.requests,
    null,
  );
});

test('source overrides are read per id; burst exemptions take addresses and CIDRs', () => {
  assert.equal(sourceUrlVariable('us-fda-food'), 'RECALLS_SOURCE_US_FDA_FOOD_URL');
  const c = loadConfig(
    { RECALLS_SOURCE_US_FDA_FOOD_URL: 'http://127.0.0.1:9000/', RECALLS_BURST_EXEMPT: '10.1.0.0/16, ::1' },
    IDS,
  );
  assert.equal(c.sourceUrls['us-fda-food'], 'http://127.0.0.1:9000');
  assert.ok(c.burstExempt.check('10.1.200.3', 'ipv4'));
  assert.ok(!c.burstExempt.check('10.2.0.1', 'ipv4'));
  assert.ok(c.burstExempt.check('::1', 'ipv6'));
});

test('LOG_LEVEL takes a pino level; RECALLS_TRUST_PROXY true, false or addresses and CIDRs', () => {
  assert.equal(loadConfig({}, IDS).logLevel, 'info');
  for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    assert.equal(loadConfig({ LOG_LEVEL: level }, IDS).logLevel, level);
  assert.equal(loadConfig({}, IDS).trustProxy, false);
  assert.equal(loadConfig({ RECALLS_TRUST_PROXY: 'false' }, IDS).trustProxy, false);
  assert.equal(loadConfig({ RECALLS_TRUST_PROXY: 'true' }, IDS).trustProxy, true);
  assert.deepEqual(
    loadConfig({ RECALLS_TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,::1,fd00::/8' }, IDS).trustProxy,
    ['10.0.0.1', '192.168.0.0/16', '::1', 'fd00::/8'],
  );
});

test('DATABASE_URL accepts paths, sqlite: and file: forms, and PostgreSQL URLs', () => {
  assert.deepEqual(parseDatabaseUrl('sqlite:/tmp/x.db'), { engine: 'sqlite', path: '/tmp/x.db' });
  assert.deepEqual(parseDatabaseUrl('file:./y.db'), { engine: 'sqlite', path: './y.db' });
  assert.deepEqual(parseDatabaseUrl('postgres://u@h/db'), { engine: 'postgres', url: 'postgres://u@h/db' });
  assert.deepEqual(parseDatabaseUrl('PostgreSQL://u@h/db'), {
    engine: 'postgres',
    url: 'PostgreSQL://u@h/db',
  });
  assert.deepEqual(parseDatabaseUrl('sqlite:///tmp/x.db'), { engine: 'sqlite', path: '/tmp/x.db' });
  assert.deepEqual(parseDatabaseUrl('file:///tmp/x.db'), { engine: 'sqlite', path: '/tmp/x.db' });
  assert.deepEqual(parseDatabaseUrl('data/my:file.db'), { engine: 'sqlite', path: 'data/my:file.db' });
});

test('a database is described by its SQLite file, absolute, or its PostgreSQL URL without the password', () => {
  assert.equal(describeDatabase(parseDatabaseUrl(undefined)), resolve('data/recalls.db'));
  assert.equal(describeDatabase(parseDatabaseUrl('sqlite:/tmp/x.db')), '/tmp/x.db');
  assert.equal(describeDatabase(parseDatabaseUrl('file:./y.db')), resolve('y.db'));
  assert.equal(describeDatabase(parseDatabaseUrl(':memory:')), ':memory:');
  for (const [url, described] of [
    ['postgres://u@h:5432/db', 'postgres://u@h:5432/db'],
    ['postgres://h/db', 'postgres://h/db'],
    ['postgres://u:secret@h/db', 'postgres://u:***@h/db'],
    ['postgresql://u:p%40ss@h/db?sslmode=require', 'postgresql://u:***@h/db?sslmode=require'],
    ['postgres://u:p@ss:w/rd@h/db', 'postgres://u:***@h/db'],
    ['postgres://u@h/db?password=secret&sslmode=require', 'postgres://u@h/db?password=***&sslmode=require'],
  ])
    assert.equal(describeDatabase(parseDatabaseUrl(url)), described);
});

test('a DATABASE_URL of another scheme is refused, never taken as an SQLite path', () => {
  for (const url of ['mysql://u:p@h/db', 'mongodb://h/db', 'redis://h:6379', 'http://h/db', 'pg://h/db'])
    assert.throws(
      () => parseDatabaseUrl(url),
      (e: unknown) => e instanceof ConfigError && /^DATABASE_URL: /.test(e.message),
      url,
    );
  assert.throws(() => loadConfig({ DATABASE_URL: 'mysql://u:secret@h/db' }, IDS), /DATABASE_URL/);
});

test('a bad value stops start-up with an error naming the variable', () => {
  for (const [name, value] of [
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['RECALLS_PLAN_FREE_BURST', '0'],
    ['RECALLS_BURST_EXEMPT', 'not-an-ip'],
    ['RECALLS_BURST_EXEMPT', '10.0.0.0/40'],
    ['RECALLS_INGEST_SCHEDULE', 'hourly'],
    ['RECALLS_SOURCE_US_FDA_FOOD_URL', 'not a url'],
    ['LOG_LEVEL', 'verbose'],
    ['LOG_LEVEL', 'INFO'],
    ['RECALLS_TRUST_PROXY', 'maybe'],
    ['RECALLS_TRUST_PROXY', '10.0.0.1, proxy.internal'],
    ['RECALLS_TRUST_PROXY', '10.0.0.0/33'],
    ['RECALLS_TRUST_PROXY', '1'],
  ]) {
    assert.throws(
      () => loadConfig({ [name!]: value }, IDS),
      (e: unknown) => e instanceof ConfigError && e.message.includes(name!),
    );
  }
});

test('RECALLS_REDIS_PREFIX starts every Redis key (default "recalls:"); anything but 1 to 64 of [A-Za-z0-9:_.-] is refused', () => {
  assert.equal(loadConfig({}, IDS).redisPrefix, 'recalls:');
  assert.equal(loadConfig({ RECALLS_REDIS_PREFIX: 'shop-eu:' }, IDS).redisPrefix, 'shop-eu:');
  for (const bad of ['a b', 'x'.repeat(65), 'key*', 'ü:'])
    assert.throws(() => loadConfig({ RECALLS_REDIS_PREFIX: bad }, IDS), /RECALLS_REDIS_PREFIX must be/);
});

test("compose's DATABASE_URL without a password takes PGPASSWORD, any characters, as the driver's password", () => {
  // compose.yaml passes the password apart from the URL, so `/`, `+`, `=` and `@` need no encoding.
  const url = 'postgres://recalls@postgres:5432/recalls';
  assert.deepEqual(parseDatabaseUrl(url), { engine: 'postgres', url });
  const before = process.env.PGPASSWORD;
  process.env.PGPASSWORD = 'a/b+c=d@e%f';
  try {
    assert.equal(new pg.Client({ connectionString: url }).password, 'a/b+c=d@e%f');
  } finally {
    if (before === undefined) delete process.env.PGPASSWORD;
    else process.env.PGPASSWORD = before;
  }
});

test('DATABASE_URL_FILE, PGPASSWORD_FILE and REDIS_URL_FILE give those variables from files (compose secrets)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'recalls-secrets-'));
  try {
    const file = (name: string, content: string) => {
      writeFileSync(join(dir, name), content);
      return join(dir, name);
    };
    const env: Record<string, string | undefined> = {
      DATABASE_URL_FILE: file('url', 'postgres://recalls@db:5432/recalls\n'),
      PGPASSWORD_FILE: file('password', 'a/b+c=d@e\n'),
      REDIS_URL_FILE: file('redis', 'redis://redis:6379'),
    };
    const c = loadConfig(env, IDS);
    assert.deepEqual(c.database, { engine: 'postgres', url: 'postgres://recalls@db:5432/recalls' });
    assert.equal(
      env.PGPASSWORD,
      'a/b+c=d@e',
      'set where the PostgreSQL driver reads it, the line break gone',
    );
    assert.equal(c.redisUrl, 'redis://redis:6379');
    assert.equal(loadConfig(env, IDS).database.engine, 'postgres', 'read again (a child process): the same');

    assert.throws(
      () => loadConfig({ DATABASE_URL: '/x.db', DATABASE_URL_FILE: join(dir, 'url') }, IDS),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.message === 'DATABASE_URL and DATABASE_URL_FILE are both set: give one of them',
    );
    assert.throws(
      () => loadConfig({ PGPASSWORD_FILE: join(dir, 'missing') }, IDS),
      (e: unknown) =>
        e instanceof ConfigError && /^PGPASSWORD_FILE: cannot read .*missing \(ENOENT\)$/.test(e.message),
    );
    const big = file('big', 'x'.repeat(SECRET_FILE_MAX_BYTES + 1));
    assert.throws(
      () => loadConfig({ PGPASSWORD_FILE: big }, IDS),
      (e: unknown) => e instanceof ConfigError && /longer than 4096 bytes/.test(e.message),
    );
    assert.equal(
      loadConfig({ PGPASSWORD_FILE: file('max', 'y'.repeat(SECRET_FILE_MAX_BYTES)) }, IDS).port,
      8080,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
