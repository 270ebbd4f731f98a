/**
 * Canonical content and field diffs: the same record observed in another order is the same
 * content (no revision), and a real change names exactly the public fields that moved
 * (../shared/spec/decisions.md, "Recalls").
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { canonicalContent, contentHash, diffContent } from '../../../src/domain/diff.ts';
import type { Identifier, RecallContent } from '../../../src/domain/recall.ts';

const UPC: Identifier = {
  kind: 'upc',
  value: '0 12000 00789 7',
  normalized: '00012000007897',
  confidence: 'exact',
};
const LOT: Identifier = { kind: 'lot', value: 'Lot 4242', normalized: '4242', confidence: 'inferred' };
const MODEL: Identifier = { kind: 'model', value: 'HGS011', normalized: 'HGS011', confidence: 'exact' };

function content(overrides: Partial<RecallContent> = {}): RecallContent {
  return {
    title: 'Peanut butter',
    summary: 'Undeclared peanut.',
    hazard: { category: 'undeclared_allergen', text: 'Contains peanut.' },
    product: { category: 'food', brands: ['Acme'], models: [] },
    severity: 'serious',
    source_classification: 'Class I',
    remedy: 'refund',
    recall_date: '2024-01-10',
    published_date: '2024-01-17',
    countries: ['CA', 'US'],
    url: 'https://example.test/r/1',
    identifiers: [UPC, LOT],
    ...overrides,
  };
}

const hashOf = (c: RecallContent) => contentHash(canonicalContent(c));

describe('canonical content', () => {
  test('sorts and de-duplicates countries: a reordered record is the same content', () => {
    const a = content({ countries: ['US', 'CA'] });
    const b = content({ countries: ['CA', 'US', 'CA', 'US'] });
    assert.deepEqual(canonicalContent(a).countries, ['CA', 'US']);
    assert.deepEqual(canonicalContent(b).countries, ['CA', 'US']);
    assert.equal(hashOf(a), hashOf(b));
    assert.deepEqual(diffContent(canonicalContent(a), canonicalContent(b)), {});
  });

  test('sorts and de-duplicates identifiers (kind, normalized and value)', () => {
    const a = content({ identifiers: [MODEL, LOT, UPC] });
    const b = content({ identifiers: [UPC, MODEL, LOT, { ...LOT }, UPC] });
    assert.deepEqual(
      canonicalContent(a).identifiers.map((i) => i.kind),
      ['lot', 'model', 'upc'],
    );
    assert.equal(hashOf(a), hashOf(b));
    const twoSpellings = content({ identifiers: [LOT, { ...LOT, value: 'LOT 4242' }] });
    assert.equal(canonicalContent(twoSpellings).identifiers.length, 2, 'another printed value is kept');
  });

  test('keeps only the public fields, whatever else the object carries', () => {
    const withExtra = { ...content(), recordId: 'F-1-2024', first_seen_at: 'x' } as RecallContent;
    assert.equal(hashOf(withExtra), hashOf(content()));
    assert.deepEqual(Object.keys(canonicalContent(withExtra)), Object.keys(content()));
  });

  test('does not change the content it is given', () => {
    const c = content({ countries: ['US', 'CA'], identifiers: [UPC, LOT] });
    canonicalContent(c);
    assert.deepEqual(c.countries, ['US', 'CA']);
    assert.deepEqual(c.identifiers, [UPC, LOT]);
  });

  test('any change to a public field changes the hash', () => {
    const base = hashOf(content());
    assert.match(base, /^[0-9a-f]{64}$/);
    const changes: Partial<RecallContent>[] = [
      { title: 'Peanut butter, crunchy' },
      { summary: null },
      { hazard: { category: 'undeclared_allergen', text: 'Contains peanuts.' } },
      { product: { category: 'food', brands: ['Acme', 'Bee'], models: [] } },
      { severity: 'medium' },
      { countries: ['US'] },
      { identifiers: [UPC] },
      { identifiers: [UPC, { ...LOT, confidence: 'exact' }] },
      { published_date: null },
    ];
    for (const change of changes) assert.notEqual(hashOf(content(change)), base, JSON.stringify(change));
  });
});

describe('field diff', () => {
  test('names each changed field, nested objects by dot path, with from and to', () => {
    const before = canonicalContent(content());
    const after = canonicalContent(
      content({
        severity: 'medium',
        source_classification: 'Class II',
        hazard: { category: 'undeclared_allergen', text: 'Contains peanut and milk.' },
        product: { category: 'food', brands: ['Acme', 'Bee'], models: [] },
      }),
    );
    assert.deepEqual(diffContent(before, after), {
      severity: { from: 'serious', to: 'medium' },
      source_classification: { from: 'Class I', to: 'Class II' },
      'hazard.text': { from: 'Contains peanut.', to: 'Contains peanut and milk.' },
      'product.brands': { from: ['Acme'], to: ['Acme', 'Bee'] },
    });
  });

  test('identifiers change as one key whose from and to are the sorted lists', () => {
    const before = canonicalContent(content({ identifiers: [UPC, LOT] }));
    const after = canonicalContent(content({ identifiers: [MODEL, LOT, UPC] }));
    const diff = diffContent(before, after);
    assert.deepEqual(Object.keys(diff), ['identifiers']);
    assert.deepEqual(diff.identifiers, { from: [LOT, UPC], to: [LOT, MODEL, UPC] });
  });

  test('a value that becomes null, or appears, is reported with null on the other side', () => {
    const diff = diffContent(canonicalContent(content()), canonicalContent(content({ url: null })));
    assert.deepEqual(diff, { url: { from: 'https://example.test/r/1', to: null } });
    const back = diffContent(canonicalContent(content({ recall_date: null })), canonicalContent(content()));
    assert.deepEqual(back, { recall_date: { from: null, to: '2024-01-10' } });
  });

  test('equal content has no changed field', () => {
    assert.deepEqual(diffContent(canonicalContent(content()), canonicalContent(content())), {});
  });
});
