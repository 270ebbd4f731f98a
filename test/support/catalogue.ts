/**
 * Synthetic shop catalogues for the catalogue commands: every product is "TEST PRODUCT n", every
 * SKU "TEST-SKU-n", every UPC a restricted-circulation code (leading 2) that no real product has.
 */
import { gs1CheckDigit } from '../../src/domain/identifiers/index.ts';

/** The valid UPC-A of product `n`: 2, then n on 10 digits, then its check digit. */
export function testUpc(n: number): string {
  const body = `2${String(n).padStart(10, '0')}`;
  return `${body}${gs1CheckDigit(body)}`;
}

/** The model number of product `n`: shared by three consecutive products. */
export function testModel(n: number): string {
  return `TM-${Math.ceil(n / 3)}`;
}

export interface TestCatalogue {
  csv: string;
  /** Data row `n` is spreadsheet row n + 1. */
  rowOf(n: number): number;
  /** Distinct identifiers the service will check (valid UPCs and models). */
  distinct: number;
  /** UPC cells with a wrong check digit (rejected, never charged). */
  invalid: number;
}

/**
 * `rows` products: columns sku, "Description" (with a comma and quotes), UPC, "Model No".
 * Every 50th UPC is empty and every 97th has a wrong check digit; every 7th model is empty.
 */
export function testCatalogue(rows: number): TestCatalogue {
  const lines = ['sku,Description,UPC,Model No'];
  const upcs = new Set<string>();
  const models = new Set<string>();
  let invalid = 0;
  for (let n = 1; n <= rows; n++) {
    let upc = n % 50 === 0 ? '' : testUpc(n);
    if (n % 97 === 0 && upc !== '') {
      upc = `${upc.slice(0, -1)}${(Number(upc.slice(-1)) + 1) % 10}`;
      invalid++;
    } else if (upc !== '') upcs.add(upc);
    const model = n % 7 === 0 ? '' : testModel(n);
    if (model !== '') models.add(model);
    lines.push(`TEST-SKU-${n},"TEST PRODUCT ${n}, size ""M""",${upc},${model}`);
  }
  return { csv: `${lines.join('\n')}\n`, rowOf: (n) => n + 1, distinct: upcs.size + models.size, invalid };
}
