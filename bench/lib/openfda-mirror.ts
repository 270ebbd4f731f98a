/**
 * An offline mirror in the openFDA enforcement format (`DIR/us-fda-food/page-NNNN.json`, 1000
 * records a page as openFDA serves them) of fictional, project-written records, for the
 * ingest benchmark: it goes through the real pipeline (parse, normalise, extract, upsert).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gs1CheckDigit } from '../../src/domain/identifiers/gs1-check-digits.ts';
import { Rng } from './synthetic.ts';

const REASONS = [
  'Product contains undeclared milk, a known allergen, which is not declared on the label.',
  'Potential contamination with Listeria monocytogenes, an organism which can cause serious and sometimes fatal infections in young children, frail or elderly people, and others with weakened immune systems.',
  'Product may contain fragments of hard plastic that could cause injury if swallowed.',
  'Salmonella contamination found during routine sampling by the firm.',
  'Undeclared peanuts and tree nuts (almonds) in the finished product.',
];

function upc(rng: Rng): string {
  const body = `0${rng.digits(10)}`;
  return `${body}${gs1CheckDigit(body)}`;
}

export function openFdaRecord(rng: Rng, i: number): Record<string, unknown> {
  const year = 2012 + (i % 14);
  const month = String(rng.range(1, 12)).padStart(2, '0');
  const day = String(rng.range(1, 28)).padStart(2, '0');
  const upcs = Array.from({ length: rng.range(1, 3) }, () => upc(rng));
  const lots = Array.from(
    { length: rng.range(1, 4) },
    () => `${rng.digits(2)}${rng.alnum(1, 'ABCDEFGHJK')}${rng.digits(4)}`,
  );
  return {
    recall_number: `F-${String(i).padStart(7, '0')}-${year}`,
    event_id: String(800000 + i),
    status: 'Ongoing',
    classification: ['Class I', 'Class II', 'Class III'][i % 3],
    product_type: 'Food',
    recalling_firm: 'Benchmark Foods (fictional)',
    address_1: '1 Synthetic Way',
    city: 'Testville',
    state: 'ZZ',
    postal_code: '00000',
    country: 'United States',
    voluntary_mandated: 'Voluntary: Firm initiated',
    initial_firm_notification: 'Letter',
    distribution_pattern: 'Nationwide',
    product_description: `BENCHMARK DATA item ${i}, assorted snack mix, 12 oz. bag, ${upcs.map((u) => `UPC ${u}`).join(', ')}`,
    product_quantity: `${rng.range(10, 9000)} cases`,
    reason_for_recall: rng.pick(REASONS),
    recall_initiation_date: `${year}${month}01`,
    center_classification_date: `${year}${month}${day}`,
    report_date: `${year}${month}${day}`,
    termination_date: '',
    code_info: `Lot numbers: ${lots.map((l) => `Lot ${l}`).join('; ')}. Best by ${month}/${day}/${year + 1}.`,
    more_code_info: '',
    openfda: {},
  };
}

/** Writes the mirror (once per size) and returns its folder. */
export function ensureOpenFdaMirror(dir: string, records: number, seed = 7): string {
  const folder = join(dir, 'us-fda-food');
  const marker = join(folder, `.complete-${records}`);
  if (existsSync(marker)) return dir;
  mkdirSync(folder, { recursive: true });
  const rng = new Rng(seed);
  for (let page = 0; page * 1000 < records; page++) {
    const results = [];
    for (let i = page * 1000; i < Math.min(records, (page + 1) * 1000); i++)
      results.push(openFdaRecord(rng, i));
    const body = {
      meta: {
        disclaimer: 'Fictional benchmark data written by the project.',
        terms: 'https://open.fda.gov/terms/',
        license: 'https://open.fda.gov/license/',
        last_updated: '2026-06-17',
        results: { skip: page * 1000, limit: 1000, total: records },
      },
      results,
    };
    writeFileSync(join(folder, `page-${String(page + 1).padStart(4, '0')}.json`), JSON.stringify(body));
  }
  writeFileSync(marker, '');
  return dir;
}
