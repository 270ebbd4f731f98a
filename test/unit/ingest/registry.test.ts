import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SOURCE_ADAPTERS } from '../../../src/ingest/registry.ts';

const SOURCES_DIR = fileURLToPath(new URL('../../../src/ingest/sources/', import.meta.url));
/** Folders of code shared by several sources, not sources themselves. */
const SHARED_FOLDERS = new Set(['openfda']);

test('the registry and the source folders agree, and every source folder has a readme', () => {
  const folders = readdirSync(SOURCES_DIR)
    .filter((name) => statSync(join(SOURCES_DIR, name)).isDirectory() && !SHARED_FOLDERS.has(name))
    .sort();
  const registered = SOURCE_ADAPTERS.map((a) => a.meta.id).sort();
  assert.deepEqual(registered, folders);
  for (const id of folders) assert.ok(existsSync(join(SOURCES_DIR, id, 'readme.md')), `${id}/readme.md`);
  assert.equal(new Set(registered).size, registered.length, 'no source registered twice');
});

test('every source declares what /v1/sources and /v1/health serve', () => {
  for (const { meta } of SOURCE_ADAPTERS) {
    assert.match(meta.id, /^[a-z]{2}-[a-z0-9-]+$/);
    assert.ok(meta.agency && meta.jurisdiction && meta.homepage && meta.cadence);
    assert.ok(meta.licence.id && meta.licence.url && meta.licence.attribution);
    assert.ok(meta.cadenceHours > 0);
    new URL(meta.defaultBaseUrl);
  }
});
