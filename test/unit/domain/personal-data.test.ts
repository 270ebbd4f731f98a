import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskEmails } from '../../../src/domain/personal-data.ts';

test('masks e-mail addresses in prose and leaves the rest as published', () => {
  assert.equal(
    maskEmails('Sold by Seller A (jane_99@outlook.com) and B (b.b+x@mail.example.co.uk). Call 800-555-0100.'),
    'Sold by Seller A ([e-mail address removed]) and B ([e-mail address removed]). Call 800-555-0100.',
  );
  assert.equal(maskEmails(null), null);
  assert.equal(maskEmails('No address here; 5 @ 10 lbs.'), 'No address here; 5 @ 10 lbs.');
});
