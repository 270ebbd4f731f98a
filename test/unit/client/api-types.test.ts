/**
 * src/client/api-types.ts is generated from the served OpenAPI document (`npm run client:types`); a route schema
 * changed without regenerating it fails here, and so in CI.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CLIENT_TYPES_PATH, generateClientTypes } from '../../../scripts/client-types.ts';

test('the committed client types equal a fresh generation from the served OpenAPI document', async () => {
  const committed = readFileSync(CLIENT_TYPES_PATH, 'utf8');
  const fresh = await generateClientTypes();
  if (committed !== fresh) {
    const a = committed.split('\n');
    const b = fresh.split('\n');
    const line = a.findIndex((l, i) => l !== b[i]);
    assert.fail(
      `src/client/api-types.ts is stale: run \`npm run client:types\` and commit it ` +
        `(first difference at line ${line + 1}: committed ${JSON.stringify(a[line])}, fresh ${JSON.stringify(b[line])})`,
    );
  }
});
