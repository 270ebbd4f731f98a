/**
 * Every vector of ../shared/spec/identifier-vectors.json through the API, on the engine under test:
 * `GET /v1/identifiers/{kind}/{value}` finds a recall stored under the vector's normalised form (a
 * refused vector is a 400 naming `value`), and one `POST /v1/checks` of all of them matches the valid
 * ones and lists the others under `rejected`. A scanned GS1 DataMatrix with GS (U+001D) is among them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { IdentifierKind } from '../../src/domain/identifiers/kinds.ts';
import { requireShared, sharedPath } from '../support/shared.ts';
import { draft, json, startService, type TestService } from '../support/service.ts';

interface Vector {
  input: string;
  valid: boolean;
  normalized?: string;
}

const file = sharedPath('spec', 'identifier-vectors.json');
const vectors: [string, Vector][] =
  file === undefined
    ? []
    : Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, Vector[]>).flatMap(
        ([kind, list]) => list.map((v): [string, Vector] => [kind, v]),
      );
/** The recall seeded for a valid vector's (kind, normalised form). */
const recordOf = (kind: string, normalized: string) => `V-${kind}-${normalized.replace(/[^A-Za-z0-9]/g, '')}`;
const show = (kind: string, v: Vector) => `${kind} ${JSON.stringify(v.input)}`;

describe('identifier vectors through the API', () => {
  let s: TestService;
  let key: string;
  before(async () => {
    s = await startService();
    key = await s.key('scale');
    const seeded = new Map<string, { kind: IdentifierKind; value: string; normalized: string }>();
    for (const [kind, v] of vectors) {
      if (v.valid)
        seeded.set(recordOf(kind, v.normalized!), {
          kind: kind as IdentifierKind,
          value: v.input,
          normalized: v.normalized!,
        });
    }
    await s.seed(
      [...seeded].map(([id, identifier]) =>
        draft(id, { identifiers: [{ ...identifier, confidence: 'exact' }] }),
      ),
    );
  });
  after(() => s?.close());

  test('GET /v1/identifiers/{kind}/{value}: valid vectors find their recall, the others are 400', async (t) => {
    if (!requireShared(t, file, 'spec/identifier-vectors.json')) return;
    assert.ok(vectors.length > 200, `${vectors.length} vectors`);
    assert.ok(
      vectors.some(([, v]) => v.valid && v.input.includes('\u001d')),
      'a scan with GS is among them',
    );
    for (const [kind, v] of vectors) {
      const res = await s.request(`/v1/identifiers/${kind}/${encodeURIComponent(v.input)}?limit=200`, {
        key,
      });
      const body = await json(res);
      if (v.valid) {
        assert.equal(res.status, 200, `${show(kind, v)}: ${JSON.stringify(body)}`);
        const ids = body.data.map((r: { id: string }) => r.id);
        assert.ok(
          ids.includes(`us-fda-food.${recordOf(kind, v.normalized!)}`),
          `${show(kind, v)} finds ${ids.join(', ')}`,
        );
      } else if (v.input.trim() === '') {
        // An empty path segment is no identifier route at all.
        assert.ok(res.status === 400 || res.status === 404, `${show(kind, v)}: ${res.status}`);
      } else {
        assert.equal(res.status, 400, `${show(kind, v)}: ${JSON.stringify(body)}`);
        assert.equal(body.parameter, 'value', show(kind, v));
      }
    }
  });

  test('POST /v1/checks: valid vectors match their recall, the others are rejected', async (t) => {
    if (!requireShared(t, file, 'spec/identifier-vectors.json')) return;
    const identifiers = vectors.map(([kind, v]) => ({ kind, value: v.input }));
    const res = await s.request('/v1/checks', { key, body: { identifiers } });
    const receipt = (await json(res)).data;
    assert.equal(res.status, 201, JSON.stringify(receipt));
    const rejected = new Set<string>(
      receipt.rejected.map((r: { kind: string; value: string }) => `${r.kind} ${r.value}`),
    );
    const matched = new Set<string>(
      receipt.matches.map(
        (m: { recall_id: string; matched_on: { normalized: string } }) =>
          `${m.recall_id} ${m.matched_on.normalized}`,
      ),
    );
    for (const [kind, v] of vectors) {
      assert.equal(rejected.has(`${kind} ${v.input}`), !v.valid, show(kind, v));
      if (v.valid) {
        const recall = `us-fda-food.${recordOf(kind, v.normalized!)}`;
        assert.ok(
          [...matched].some((m) => m.startsWith(`${recall} `)),
          `${show(kind, v)} matches ${recall}`,
        );
      }
    }
  });

  test('GS in a lot, model or batch is refused through the API, never read as the code without it', async () => {
    await s.seed([
      draft('GS-LOT', {
        identifiers: [{ kind: 'lot', value: '10ABC21X', normalized: '10ABC21X', confidence: 'exact' }],
      }),
    ]);
    for (const kind of ['lot', 'model', 'batch']) {
      const res = await s.request(`/v1/identifiers/${kind}/10ABC%1D21X`, { key });
      const body = await json(res);
      assert.equal(res.status, 400, `${kind}: ${JSON.stringify(body)}`);
      assert.equal(body.parameter, 'value');
    }
    const res = await s.request('/v1/checks', {
      key,
      body: {
        identifiers: [
          { kind: 'lot', value: '10ABC\u001d21X' },
          { kind: 'batch', value: '10ABC\u001d21X' },
        ],
      },
    });
    const receipt = (await json(res)).data;
    assert.equal(res.status, 201, JSON.stringify(receipt));
    assert.deepEqual(receipt.matches, []);
    assert.deepEqual(
      receipt.rejected.map((r: { kind: string; reason: string }) => `${r.kind} ${r.reason}`),
      ['lot invalid_characters', 'batch invalid_characters'],
    );
  });
});
