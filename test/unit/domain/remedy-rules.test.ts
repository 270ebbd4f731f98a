import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyRemedy } from '../../../src/domain/remedy-rules.ts';

test('maps agency remedy wording to the canonical remedies', () => {
  const cases: [string | string[] | null, string][] = [
    [null, 'unknown'],
    ['', 'unknown'],
    [['Refund'], 'refund'],
    [['Replace', 'Refund'], 'replace'],
    [
      'Consumers should immediately stop using the recalled heaters and contact the firm for a free repair.',
      'repair',
    ],
    ['DEALERS WILL REPLACE THE AIR BAG INFLATOR, FREE OF CHARGE.', 'repair'],
    ['Consumers should immediately stop using the product and contact the firm for a full refund.', 'refund'],
    ['Do not eat the recalled product. Throw it away or return it to the place of purchase.', 'dispose'],
    ['Consumers should stop using the product immediately.', 'stop_use'],
    ['Owners are advised to park outside until the remedy is completed.', 'stop_use'],
    [
      'Consumers are urged not to consume these products. They should be thrown away or returned to the place of purchase.',
      'dispose',
    ],
    ['Withdrawal of the product from the market', 'other'],
    // French (RappelConso)
    [['remboursement', 'ne plus consommer'], 'refund'],
    [['remboursement|echange'], 'replace'],
    ['Échange en magasin', 'replace'],
    ['réparation', 'repair'],
    ['ne plus consommer | rapporter le produit au point de vente', 'dispose'],
    ['détruire le produit', 'dispose'],
    ['ne plus utiliser le produit', 'stop_use'],
    ['contacter le service consommateur', 'other'],
  ];
  for (const [text, expected] of cases) assert.equal(classifyRemedy(text), expected, JSON.stringify(text));
});
