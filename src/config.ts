/**
 * Every setting of the service, read once from the environment at the entry point, validated,
 * and passed down. No other module reads `process.env`.
 */
import { readFileSync, statSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import { resolve } from 'node:path';
import { METERS, type Meter } from './domain/meters.ts';

export const PLAN_IDS = ['free', 'starter', 'growth', 'scale'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

/** A plan's limits. A `null` monthly quota means unmetered. */
export interface Plan {
  id: PlanId;
  perMonth: Record<Meter, number | null>;
  burstPerMinute: number;
}

export interface Config {
  port: number;
  host: string;
  /** The admin listener (metrics, probes), apart from the public API; none when RECALLS_ADMIN_PORT is unset. */
  admin: { port: number; host: string } | null;
  /** `sqlite:<path>` or `postgres://…`, resolved. */
  database: { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };
  /** Shared burst counters for several API nodes; in memory when null. */
  redisUrl: string | null;
  /** What every Redis key of this deployment starts with (`RECALLS_REDIS_PREFIX`, default `recalls:`). */
  redisPrefix: string;
  archiveDir: string;
  /** Base address per source id, only for the sources given an override. */
  sourceUrls: Record<string, string>;
  burstExempt: BlockList;
  trustProxy: boolean | string[];
  ingest: { schedule: 'daily' | 'off'; hourUtc: number };
  upstream: { timeoutMs: number; retries: number; maxBytes: number };
  /** Bytes of corpus-backed answers an API node keeps for the current corpus version (0: none). */
  answerCacheBytes: number;
  /** How long a request, headers and body, may take to arrive before its connection is closed. */
  requestTimeoutMs: number;
  plans: Record<PlanId, Plan>;
  /** How API nodes lease request quotas from the database (quota/ledger.ts). */
  quota: {
    /** The largest block of a key's month one node leases at a time (B); 1 leases per request. */
    leaseBlock: number;
    /** A node gives back a key's unused units once it has admitted none of its requests for this long. */
    idleReturnMs: number;
  };
  logLevel: string;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const DEFAULT_PLANS: Record<PlanId, Omit<Plan, 'id'>> = {
  free: { perMonth: { requests: 500, identifiers: 5_000 }, burstPerMinute: 10 },
  starter: { perMonth: { requests: 10_000, identifiers: 100_000 }, burstPerMinute: 60 },
  growth: { perMonth: { requests: 100_000, identifiers: 1_000_000 }, burstPerMinute: 300 },
  scale: { perMonth: { requests: 1_000_000, identifiers: 10_000_000 }, burstPerMinute: 1000 },
};

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function quota(env: Env, name: string, fallback: number | null): number | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw.toLowerCase() === 'unmetered') return null;
  return integer(env, name, 0, 0, Number.MAX_SAFE_INTEGER);
}

/**
 * Parses `DATABASE_URL`: a PostgreSQL URL, `sqlite:<path>`, `file:<path>` or a plain path. Any other
 * `scheme://` is refused (the message names the scheme only: the rest may hold a password).
 */
export function parseDatabaseUrl(raw: string | undefined): Config['database'] {
  if (raw === undefined || raw === '') return { engine: 'sqlite', path: './data/recalls.db' };
  if (/^postgres(ql)?:\/\//i.test(raw)) return { engine: 'postgres', url: raw };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1];
  if (scheme !== undefined && !/^(sqlite|file)$/i.test(scheme))
    throw new ConfigError(
      `DATABASE_URL: the scheme "${scheme}" is none of postgres://, postgresql://, sqlite: or file:`,
    );
  const path = raw.replace(/^(sqlite|file):(\/\/)?/i, '');
  if (path === '') throw new ConfigError('DATABASE_URL names no SQLite file');
  return { engine: 'sqlite', path };
}

/**
 * Which database `database` is, for a person: an SQLite file's absolute path, or the PostgreSQL URL
 * with its password (in the user part or a `password` parameter) masked as `***`.
 */
export function describeDatabase(database: Config['database']): string {
  if (database.engine === 'sqlite') return database.path === ':memory:' ? ':memory:' : resolve(database.path);
  return database.url
    .replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/?#]*):.*@(?=[^@]*$)/i, '$1:***@')
    .replace(/([?&]password=)[^&#]*/gi, '$1***');
}

function parseRedisUrl(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  if (!/^rediss?:\/\//i.test(raw))
    throw new ConfigError(`REDIS_URL must be a redis:// or rediss:// URL, got "${raw}"`);
  return raw;
}

/** The environment variable that overrides a source's base address: `RECALLS_SOURCE_US_FDA_FOOD_URL`. */
export function sourceUrlVariable(sourceId: string): string {
  return `RECALLS_SOURCE_${sourceId.toUpperCase().replace(/-/g, '_')}_URL`;
}

/** One address or CIDR of the list in `name`, checked; throws ConfigError naming `name` otherwise. */
function addressOrCidr(
  name: string,
  entry: string,
): { address: string; bits: number | undefined; type: 'ipv4' | 'ipv6' } {
  const [address, prefix] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0) throw new ConfigError(`${name}: "${entry}" is not an address or CIDR`);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (prefix === undefined) return { address: address!, bits: undefined, type };
  const bits = Number(prefix);
  if (!/^\d+$/.test(prefix) || bits > (family === 4 ? 32 : 128)) {
    throw new ConfigError(`${name}: "${entry}" has an invalid prefix length`);
  }
  return { address: address!, bits, type };
}

/** The non-empty entries of a comma-separated list. */
function entries(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function parseExempt(raw: string | undefined): BlockList {
  const list = new BlockList();
  for (const entry of entries(raw)) {
    const { address, bits, type } = addressOrCidr('RECALLS_BURST_EXEMPT', entry);
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, bits, type);
  }
  return list;
}

/** `RECALLS_TRUST_PROXY`: `true`, `false` (or unset), or a comma list of proxy addresses and CIDRs. */
function parseTrustProxy(raw: string | undefined): boolean | string[] {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  const list = entries(raw);
  for (const entry of list) addressOrCidr('RECALLS_TRUST_PROXY', entry);
  if (list.length === 0) throw new ConfigError(`RECALLS_TRUST_PROXY names no address, got "${raw}"`);
  return list;
}

/**
 * `RECALLS_REDIS_PREFIX`: the start of every Redis key of this deployment, so that deployments sharing one
 * Redis keep their counters apart. 1 to 64 letters, digits and `:_.-`; default `recalls:`.
 */
function parseRedisPrefix(raw: string | undefined): string {
  if (raw === undefined || raw === '') return 'recalls:';
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(raw))
    throw new ConfigError(`RECALLS_REDIS_PREFIX must be 1 to 64 letters, digits or ":_.-", got "${raw}"`);
  return raw;
}

/**
 * `RECALLS_ADMIN_PORT` (unset: no admin listener) and `RECALLS_ADMIN_HOST` (an IP address or `localhost`;
 * loopback by default, so that the figures are not served to every network the API is).
 */
function parseAdmin(env: Env, port: number): Config['admin'] {
  const host = env.RECALLS_ADMIN_HOST || '127.0.0.1';
  if (host !== 'localhost' && isIP(host) === 0)
    throw new ConfigError(`RECALLS_ADMIN_HOST must be an IP address or "localhost", got "${host}"`);
  const raw = env.RECALLS_ADMIN_PORT;
  if (raw === undefined || raw === '') return null;
  const adminPort = integer(env, 'RECALLS_ADMIN_PORT', 0, 0, 65535);
  if (adminPort !== 0 && adminPort === port)
    throw new ConfigError(`RECALLS_ADMIN_PORT must differ from PORT, both are ${port}`);
  return { port: adminPort, host };
}

/** pino's levels, and `silent`. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function parseLogLevel(raw: string | undefined): string {
  if (raw === undefined || raw === '') return 'info';
  if (!LOG_LEVELS.includes(raw))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return raw;
}

/** Reads and validates the configuration; throws ConfigError naming the offending variable. */
/** The variables that may be given as a file's content instead (`<NAME>_FILE`, as Docker and compose secrets are). */
export const SECRET_FILE_VARIABLES = ['DATABASE_URL', 'PGPASSWORD', 'REDIS_URL'] as const;

/** Longest secret file read, in bytes: a URL or a password, not a document. */
export const SECRET_FILE_MAX_BYTES = 4096;

/**
 * Sets each of SECRET_FILE_VARIABLES given as `<NAME>_FILE` from that file (its content without the final line
 * break) in `env`, in place of `<NAME>_FILE`, so that the PostgreSQL driver finds PGPASSWORD there too. Both `<NAME>` and `<NAME>_FILE`, a
 * file that cannot be read, or one longer than SECRET_FILE_MAX_BYTES is a ConfigError naming the variable.
 */
export function readSecretFiles(env: Env): void {
  for (const name of SECRET_FILE_VARIABLES) {
    const file = env[`${name}_FILE`];
    if (file === undefined || file === '') continue;
    if (env[name] !== undefined && env[name] !== '')
      throw new ConfigError(`${name} and ${name}_FILE are both set: give one of them`);
    let content: Buffer;
    try {
      if (statSync(file).size > SECRET_FILE_MAX_BYTES)
        throw new ConfigError(`${name}_FILE: ${file} is longer than ${SECRET_FILE_MAX_BYTES} bytes`);
      content = readFileSync(file);
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(
        `${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? error})`,
      );
    }
    env[name] = content.toString('utf8').replace(/\r?\n$/, '');
    // Read once: a later reading of `env` (another command's, a child process's) finds the variable itself.
    delete env[`${name}_FILE`];
  }
}

export function loadConfig(env: Env, sourceIds: readonly string[]): Config {
  readSecretFiles(env);
  const plans = {} as Record<PlanId, Plan>;
  for (const id of PLAN_IDS) {
    const d = DEFAULT_PLANS[id];
    const prefix = `RECALLS_PLAN_${id.toUpperCase()}`;
    const perMonth = {} as Plan['perMonth'];
    for (const m of METERS) perMonth[m] = quota(env, `${prefix}_${m.toUpperCase()}`, d.perMonth[m]);
    plans[id] = {
      id,
      perMonth,
      burstPerMinute: integer(env, `${prefix}_BURST`, d.burstPerMinute, 1, 1_000_000),
    };
  }
  const sourceUrls: Record<string, string> = {};
  for (const id of sourceIds) {
    const value = env[sourceUrlVariable(id)];
    if (value === undefined || value === '') continue;
    try {
      new URL(value);
    } catch {
      throw new ConfigError(`${sourceUrlVariable(id)} is not a URL: "${value}"`);
    }
    sourceUrls[id] = value.replace(/\/+$/, '');
  }
  const schedule = env.RECALLS_INGEST_SCHEDULE ?? 'daily';
  if (schedule !== 'daily' && schedule !== 'off') {
    throw new ConfigError(`RECALLS_INGEST_SCHEDULE must be "daily" or "off", got "${schedule}"`);
  }
  const port = integer(env, 'PORT', 8080, 0, 65535);
  return {
    port,
    host: env.HOST || '127.0.0.1',
    admin: parseAdmin(env, port),
    database: parseDatabaseUrl(env.DATABASE_URL),
    redisUrl: parseRedisUrl(env.REDIS_URL),
    redisPrefix: parseRedisPrefix(env.RECALLS_REDIS_PREFIX),
    archiveDir: env.RECALLS_ARCHIVE_DIR || './data/archive',
    sourceUrls,
    burstExempt: parseExempt(env.RECALLS_BURST_EXEMPT),
    trustProxy: parseTrustProxy(env.RECALLS_TRUST_PROXY),
    ingest: { schedule, hourUtc: integer(env, 'RECALLS_INGEST_HOUR_UTC', 4, 0, 23) },
    upstream: {
      timeoutMs: integer(env, 'RECALLS_UPSTREAM_TIMEOUT_MS', 60_000, 100, 3_600_000),
      retries: integer(env, 'RECALLS_UPSTREAM_RETRIES', 3, 0, 10),
      maxBytes: integer(env, 'RECALLS_UPSTREAM_MAX_BYTES', 200 * 1024 * 1024, 1024, 4 * 1024 * 1024 * 1024),
    },
    answerCacheBytes: integer(env, 'RECALLS_ANSWER_CACHE_MB', 16, 0, 4096) * 1024 * 1024,
    requestTimeoutMs: integer(env, 'RECALLS_REQUEST_TIMEOUT_MS', 30_000, 1_000, 600_000),
    plans,
    quota: {
      leaseBlock: integer(env, 'RECALLS_QUOTA_LEASE_BLOCK', 1000, 1, 100_000),
      idleReturnMs: integer(env, 'RECALLS_QUOTA_IDLE_RETURN_MS', 1000, 100, 600_000),
    },
    logLevel: parseLogLevel(env.LOG_LEVEL),
  };
}
