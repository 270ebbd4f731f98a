/**
 * Every vector of ../shared/spec/identifier-vectors.json is one test. Skips when the shared
 * folder is absent, unless RECALLS_REQUIRE_SHARED=1.
 */
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normaliseIdentifier } from '../../../src/domain/identifiers/index.ts';
import { requireShared, sharedPath } from '../../support/shared.ts';

interface Vector {
  input: string;
  valid: boolean;
  normalized?: string;
  note: string;
  source: string;
}

const VECTORS_NAME = 'spec/identifier-vectors.json';
const file = sharedPath('spec', 'identifier-vectors.json');

/** Extra expectations read from a vector's note, where it states them unambiguously. */
function checkNote(kind: string, v: Vector, r: ReturnType<typeof normaliseIdentifier>): void {
  if (r.ok) {
    if (kind === 'vin' && /check digit valid/.test(v.note)) assert.equal(r.checkDigitValid, true);
    if (kind === 'vin' && /MISMATCH/.test(v.note)) assert.equal(r.checkDigitValid, false);
    const lot = kind === 'udi' ? /\blot ([A-Z0-9]+)/.exec(v.note) : null;
    if (lot) assert.equal(r.lot, lot[1], 'lot carried by the UDI');
    return;
  }
  const expected = /check digit (?:fails|does not verify) \(expected (\w)\)/.exec(v.note);
  if (expected) {
    assert.equal(r.reason, 'invalid_check_digit');
    assert.match(r.detail, new RegExp(`\\(expected ${expected[1]}\\)`));
  }
  if (/ambiguous/.test(v.note)) assert.equal(r.reason, 'ambiguous');
  if (/contains I, O or Q/.test(v.note)) assert.equal(r.reason, 'invalid_characters');
  if (/length \d+ != 17/.test(v.note)) assert.equal(r.reason, 'invalid_length');
  if (/^placeholder/.test(v.note)) assert.equal(r.reason, 'empty');
}

if (file === undefined) {
  test('identifier vectors', (t) => {
    requireShared(t, file, VECTORS_NAME);
  });
} else {
  const vectors = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Vector[]>;
  for (const [kind, list] of Object.entries(vectors)) {
    describe(`identifier vectors: ${kind}`, () => {
      for (const v of list) {
        const name = `${kind} ${JSON.stringify(v.input)}${v.note ? ` — ${v.note}` : ''}`;
        test(name, () => {
          const r = normaliseIdentifier(kind, v.input);
          assert.equal(r.ok, v.valid, `expected ${v.valid ? 'valid' : 'invalid'}, got ${JSON.stringify(r)}`);
          if (r.ok) {
            assert.equal(r.kind, kind);
            assert.equal(r.normalized, v.normalized);
          } else {
            assert.ok(r.detail.length > 0, 'a rejection carries a detail sentence');
          }
          checkNote(kind, v, r);
        });
      }
    });
  }
}
