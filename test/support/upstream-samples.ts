/**
 * The real agency records in ../shared/upstream-samples, ingested into a test service through the real
 * pipeline (`recalls ingest --from`); suites that need them skip with a message when the folder is absent.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createArchive } from '../../src/ingest/archive.ts';
import { createUpstreamClient } from '../../src/ingest/http-client.ts';
import { runIngest, type IngestResult } from '../../src/ingest/pipeline.ts';
import { SOURCE_ADAPTERS } from '../../src/ingest/registry.ts';
import type { TestService } from './service.ts';
import { sharedPath, sharedRequired } from './shared.ts';

/** The folder of real records, when it is beside this checkout. */
export const UPSTREAM_SAMPLES = sharedPath('upstream-samples');

/** The `skip` option of a suite that reads the real records. */
export const upstreamSamplesSkip: string | false =
  UPSTREAM_SAMPLES === undefined && !sharedRequired()
    ? 'no ../shared/upstream-samples beside this checkout'
    : false;

/**
 * The mirror folder holding a source's real records: `upstream-samples/` itself, or its
 * `_incoming/` while the source's records are kept apart there; undefined when neither has it.
 */
export function upstreamMirrorOf(sourceId: string): string | undefined {
  if (UPSTREAM_SAMPLES === undefined) return undefined;
  return [UPSTREAM_SAMPLES, join(UPSTREAM_SAMPLES, '_incoming')].find((dir) =>
    existsSync(join(dir, sourceId)),
  );
}

/** Ingests the real records of a mirror (all of `../shared/upstream-samples` by default) into the service's store. */
export async function ingestUpstreamSamples(
  s: TestService,
  from = UPSTREAM_SAMPLES,
  sourceIds?: string[],
): Promise<IngestResult> {
  if (from === undefined)
    throw new Error('RECALLS_REQUIRE_SHARED=1 but ../shared/upstream-samples is missing');
  return runIngest(
    {
      store: s.store,
      adapters: SOURCE_ADAPTERS,
      archive: createArchive(join(s.dir, 'a')),
      client: createUpstreamClient(),
      sourceUrls: {},
    },
    { from, ...(sourceIds === undefined ? {} : { sourceIds }) },
  );
}
