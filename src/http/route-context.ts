/** What every route plugin is given, and the one corpus version a request reads at. */
import type { FastifyRequest } from 'fastify';
import type { AppDeps } from './context.ts';
import type { SourceCatalog } from './source-catalog.ts';

/** The options every route plugin is registered with. */
export interface RouteContext {
  deps: AppDeps;
  catalog: SourceCatalog;
  now: () => Date;
}

/**
 * The corpus version this request reads everything at, the one way the HTTP layer reads it: the version the
 * access gate had with the key (both from the store's state at once), else the store's, read once.
 */
export async function corpusVersionOf(request: FastifyRequest, store: AppDeps['store']): Promise<number> {
  return (request.corpusVersion ??= await store.corpusVersion());
}
