/**
 * The OpenAPI document exactly as the service serves it at /v1/openapi.json, built in-process: the real app on
 * a temporary SQLite file (the document depends on no data), never listening. Used by `npm run lint:openapi`
 * and by whatever generates types from the document.
 *
 * As a command: `node --import tsx scripts/openapi-document.ts [PATH]` writes the document as JSON to PATH,
 * or to stdout without one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { buildApp } from '../src/http/app.ts';
import { createMemoryBurstLimiter } from '../src/node/burst-limiter.ts';
import { SOURCE_ADAPTERS, SOURCE_IDS } from '../src/ingest/registry.ts';
import { openStore } from '../src/store/database.ts';
import { CacheRegistry } from '../src/node/caches.ts';

/** The served OpenAPI 3.1 document, as a plain JSON object (a fresh copy each call). */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'recalls-openapi-'));
  try {
    const config = loadConfig({ RECALLS_ARCHIVE_DIR: join(dir, 'archive') }, SOURCE_IDS);
    config.database = { engine: 'sqlite', path: join(dir, 'recalls.db') };
    const caches = new CacheRegistry();
    const store = await openStore(config.database, { caches });
    const burstLimiter = createMemoryBurstLimiter();
    const app = await buildApp({
      store,
      config,
      sources: SOURCE_ADAPTERS.map((a) => a.meta),
      burstLimiter,
      caches,
    });
    try {
      const response = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
      if (response.statusCode !== 200)
        throw new Error(`GET /v1/openapi.json answered ${response.statusCode}: ${response.body}`);
      return JSON.parse(response.body) as Record<string, unknown>;
    } finally {
      await app.close();
      await burstLimiter.close();
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The document as written to a file: two-space JSON with a final newline. */
export function formatDocument(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = formatDocument(await openApiDocument());
  const target = process.argv[2];
  if (target === undefined) process.stdout.write(text);
  else writeFileSync(target, text);
}
