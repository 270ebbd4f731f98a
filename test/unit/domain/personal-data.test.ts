import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EMAIL_PLACEHOLDER, maskEmails } from '../../../src/domain/personal-data.ts';

/** The pattern the masking follows, applied as a regular expression: the reference on short texts. */
const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;

test('masks e-mail addresses in prose and leaves the rest as published', () => {
  assert.equal(
    maskEmails('Sold by Seller A (jane_99@outlook.com) and B (b.b+x@mail.example.co.uk). Call 800-555-0100.'),
    'Sold by Seller A ([e-mail address removed]) and B ([e-mail address removed]). Call 800-555-0100.',
  );
  assert.equal(maskEmails(null), null);
  assert.equal(maskEmails('No address here; 5 @ 10 lbs.'), 'No address here; 5 @ 10 lbs.');
});

test('masks exactly what the address pattern matches, on texts made of its edge cases', () => {
  const parts = [
    'a',
    'b.c',
    '@',
    '@@',
    '.',
    '-',
    '+',
    '_',
    'x.y',
    ' ',
    'é',
    'mail@example.org',
    '.com',
    '@d.e',
  ];
  // A fixed pseudo-random walk over the parts: the same texts every run.
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let n = 0; n < 3000; n++) {
    let text = '';
    for (let k = next() % 12; k >= 0; k--) text += parts[next() % parts.length];
    assert.equal(maskEmails(text), text.replace(EMAIL, EMAIL_PLACEHOLDER), JSON.stringify(text));
  }
});

test('a field of 1 MB and one of 10 MB are masked in time proportional to their length (issue 37)', () => {
  // Long runs of word characters with no address: the regular expression took 8 s for 100 KB of these.
  for (const size of [1, 10]) {
    const run = 'a'.repeat(size * 1024 * 1024);
    assert.equal(maskEmails(run), run);
    const withAt = `${run}@${run}`;
    assert.equal(maskEmails(withAt), withAt);
    const masked = maskEmails(`${run} write to x@example.org or ${'b.'.repeat(1000)}@`);
    assert.ok(masked.endsWith(` write to ${EMAIL_PLACEHOLDER} or ${'b.'.repeat(1000)}@`));
  }
});
