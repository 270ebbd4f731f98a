/** Builds the shared dependencies of every command from the environment, once. */
import pino from 'pino';
import { describeDatabase, loadConfig, type Config } from '../../config.ts';
import { createArchive } from '../../ingest/archive.ts';
import { createUpstreamClient } from '../../ingest/http-client.ts';
import type { IngestDeps } from '../../ingest/pipeline.ts';
import { SOURCE_ADAPTERS, SOURCE_IDS } from '../../ingest/registry.ts';
import { CacheRegistry } from '../../node/caches.ts';
import { CANNOT_CONNECT, openStore, type Store } from '../../store/database.ts';
import { DatabaseError } from '../../store/engine.ts';

export interface Runtime {
  config: Config;
  store: Store;
  /** The process's caches, listed for the admin listener's metrics: the store's, the HTTP layer's, the checks'. */
  caches: CacheRegistry;
  logger: pino.Logger;
}

/**
 * Opens configuration, logger and store. `serve` logs to stdout like any service; the other
 * commands log to stderr so that their stdout carries only their answer (a key, a summary).
 * `serving` bounds each PostgreSQL statement (openStore). Which database was opened is said in serve's log, and by the other commands as a line on stderr
 * whatever the log level (`describeDatabase`).
 */
export async function openRuntime(
  options: { logTo?: 'stdout' | 'stderr'; serving?: boolean } = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<Runtime> {
  const config = loadConfig(env, SOURCE_IDS);
  const logger = pino({ level: config.logLevel }, pino.destination(options.logTo === 'stdout' ? 1 : 2));
  const database = describeDatabase(config.database);
  const caches = new CacheRegistry();
  let store: Store;
  try {
    store = await openStore(config.database, { serving: options.serving, caches });
  } catch (error) {
    // Name what was not reached: the database DATABASE_URL points to.
    if (error instanceof DatabaseError && error.message === CANNOT_CONNECT)
      throw new DatabaseError(`${CANNOT_CONNECT} at ${database} (DATABASE_URL)`, { cause: error.cause });
    throw error;
  }
  if (options.logTo === 'stdout') logger.info({ database }, 'database opened');
  else process.stderr.write(`database: ${database}\n`);
  await store.sources.register(
    SOURCE_ADAPTERS.map((a) => ({ id: a.meta.id, agency: a.meta.agency, jurisdiction: a.meta.jurisdiction })),
  );
  return { config, store, caches, logger };
}

export function ingestDeps(rt: Runtime): IngestDeps {
  return {
    store: rt.store,
    adapters: SOURCE_ADAPTERS,
    archive: createArchive(rt.config.archiveDir),
    client: createUpstreamClient({
      timeoutMs: rt.config.upstream.timeoutMs,
      retries: rt.config.upstream.retries,
      maxBytes: rt.config.upstream.maxBytes,
    }),
    sourceUrls: rt.config.sourceUrls,
    log: (level, message, fields) => rt.logger[level](fields ?? {}, message),
  };
}
