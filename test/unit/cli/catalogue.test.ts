import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  CATALOGUE_LIMITS,
  CatalogueError,
  formatOfFileName,
  parseCatalogue,
  readCatalogueFile,
  type CatalogueFormat,
} from '../../../src/cli/catalogue/catalogue.ts';
import { columnMapping, parseColumnOption } from '../../../src/cli/catalogue/column-mapping.ts';
import { sha256 } from '../../../src/domain/sha256.ts';

const CSV: CatalogueFormat = { type: 'csv', delimiter: ',' };
const JSONL: CatalogueFormat = { type: 'jsonl' };
const upcAndModel = columnMapping({
  column: parseColumnOption('model=Model No', parseColumnOption('upc=UPC')),
  idColumn: 'sku',
});

function read(text: string, format = CSV, mapping = upcAndModel) {
  return parseCatalogue(Buffer.from(text), format, mapping);
}

function refuses(text: string, message: RegExp, format = CSV, mapping = upcAndModel) {
  assert.throws(
    () => read(text, format, mapping),
    (e: unknown) => e instanceof CatalogueError && message.test(e.message),
  );
}

describe('reading a catalogue', () => {
  test('maps each row through the named columns: rows numbered as a spreadsheet does, empty cells skipped', () => {
    const text =
      'sku,Description,UPC,Model No\nA-1,"Kettle, ""steel""",036000291452, MX-1 \nA-2,Mug,,\nA-3,"two\nlines",,MX-2\n';
    const c = read(text);
    assert.equal(c.rowCount, 3);
    assert.equal(c.sha256, sha256(text));
    assert.equal(c.bytes, Buffer.byteLength(text));
    assert.deepEqual(c.rows, [
      {
        row: 2,
        id: 'A-1',
        identifiers: [
          { kind: 'upc', value: '036000291452' },
          { kind: 'model', value: ' MX-1 ' },
        ],
      },
      { row: 4, id: 'A-3', identifiers: [{ kind: 'model', value: 'MX-2' }] },
    ]);
  });

  test('reads a byte-order mark, a tab-separated file and a kind column', () => {
    const mapping = columnMapping({ kindColumn: 'Kind', valueColumn: 'Code' });
    const c = read(
      '\uFEFFKind\tCode\n UPC \t036000291452\n\t\nlot\tL-1\n',
      { type: 'csv', delimiter: '\t' },
      mapping,
    );
    assert.deepEqual(
      c.rows.map((r) => r.identifiers),
      [[{ kind: 'upc', value: '036000291452' }], [{ kind: 'lot', value: 'L-1' }]],
    );
    refuses('Kind,Code\nupcc,1\n', /row 2: the kind in "Kind" is "upcc"; use one of gtin, upc/, CSV, mapping);
    refuses('Kind,Code\n,1\n', /the kind in "Kind" is empty/, CSV, mapping);
  });

  test('reads JSON lines: strings, exact integers and null; refuses anything else with the line', () => {
    const mapping = columnMapping({ column: [{ kind: 'upc', column: 'upc' }], idColumn: 'sku' });
    const c = read(
      '{"sku":"A","upc":"036000291452"}\n\n{"sku":7,"upc":36000291452}\r\n{"sku":null,"upc":null}\n',
      JSONL,
      mapping,
    );
    assert.deepEqual(c.rowCount, 3);
    assert.deepEqual(c.rows, [
      { row: 1, id: 'A', identifiers: [{ kind: 'upc', value: '036000291452' }] },
      { row: 3, id: '7', identifiers: [{ kind: 'upc', value: '36000291452' }] },
    ]);
    refuses(
      '{"upc":"1"}\n{"upc":12345678901234567}\n',
      /line 2: "upc" is a number that is not an exact integer/,
      JSONL,
      mapping,
    );
    refuses('{"upc":true}\n', /line 1: "upc" is a boolean; a string is expected/, JSONL, mapping);
    refuses('{"upc":"1"}\n[1]\n', /line 2: a JSON object is expected/, JSONL, mapping);
    refuses('{"upc":"1"}\n{"upc":\n', /line 2: not JSON/, JSONL, mapping);
    refuses('{"upc":"\\ud800"}\n', /line 1: the value in "upc" is not Unicode text/, JSONL, mapping);
  });

  test('refuses malformed CSV, naming the line', () => {
    refuses(
      'sku,UPC,Model No\nA,1,2\nB,"3,4\nC,5,6\n',
      /malformed CSV: row 3 opens a quote that is never closed/,
    );
    refuses('sku,UPC,Model No\nA,1,2\nB,3\n', /malformed CSV: .*expect 3, got 2 on line 3/);
    refuses('sku,UPC,Model No\nA,1,2\nB,"3"x,4\n', /malformed CSV: .*line 3/);
  });

  test('refuses text that is not UTF-8, naming the line', () => {
    const bytes = Buffer.concat([
      Buffer.from('sku,UPC,Model No\nA,1,2\nB,'),
      Buffer.from([0xe9]),
      Buffer.from(',3\n'),
    ]);
    assert.throws(() => parseCatalogue(bytes, CSV, upcAndModel), /line 3: the catalogue is not UTF-8 text/);
  });

  test('refuses a header without a mapped column, or naming it twice, and a catalogue without identifiers', () => {
    refuses(
      'sku,Barcode,Model No\nA,1,2\n',
      /no column "UPC" in the header; its columns are: "sku", "Barcode", "Model No"/,
    );
    refuses('sku,UPC,UPC,Model No\nA,1,1,2\n', /the header names "UPC" 2 times \(columns 2, 3\)/);
    refuses(
      'sku,UPC,Model No\nA,, \n',
      /no row has a value in the identifier columns \(upc="UPC", model="Model No"\)/,
    );
    refuses('', /the catalogue is empty: a header row is expected first/);
  });

  test('the format follows the file name', () => {
    assert.deepEqual(formatOfFileName('shop.CSV'), { type: 'csv', delimiter: ',' });
    assert.deepEqual(formatOfFileName('shop.tsv'), { type: 'csv', delimiter: '\t' });
    assert.deepEqual(formatOfFileName('shop.ndjson'), { type: 'jsonl' });
    assert.deepEqual(formatOfFileName('shop.jsonl'), { type: 'jsonl' });
    assert.equal(formatOfFileName('shop.xlsx'), undefined);
  });
});

describe('the bounds of a catalogue', () => {
  const dir = mkdtempSync(join(tmpdir(), 'recalls-catalogue-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const upc = columnMapping({ column: [{ kind: 'upc', column: 'UPC' }] });

  test(`a file over ${CATALOGUE_LIMITS.maxBytes} bytes is refused before it is read`, () => {
    const path = join(dir, 'huge.csv');
    writeFileSync(path, 'UPC\n1\n');
    assert.equal(readCatalogueFile(path, CSV, upc).rowCount, 1);
    truncateSync(path, CATALOGUE_LIMITS.maxBytes + 1); // sparse: its size is what is checked
    assert.throws(
      () => readCatalogueFile(path, CSV, upc),
      /is 67108865 bytes; at most 67108864 \(64 MiB\) are read/,
    );
  });

  test(`at most ${CATALOGUE_LIMITS.maxRows} data rows, in CSV and in JSON lines`, () => {
    const rows = (n: number) => `UPC\n${'1\n'.repeat(n)}`;
    assert.equal(read(rows(CATALOGUE_LIMITS.maxRows), CSV, upc).rowCount, CATALOGUE_LIMITS.maxRows);
    refuses(rows(CATALOGUE_LIMITS.maxRows + 1), /more than 200000 data rows/, CSV, upc);
    const jsonUpc = columnMapping({ column: [{ kind: 'upc', column: 'UPC' }] });
    const lines = (n: number) => '{"UPC":"1"}\n'.repeat(n);
    assert.equal(read(lines(CATALOGUE_LIMITS.maxRows), JSONL, jsonUpc).rowCount, CATALOGUE_LIMITS.maxRows);
    refuses(lines(CATALOGUE_LIMITS.maxRows + 1), /more than 200000 data rows/, JSONL, jsonUpc);
  });

  test(`at most ${CATALOGUE_LIMITS.maxColumns} columns`, () => {
    const header = (n: number) => ['UPC', ...Array.from({ length: n - 1 }, (_, i) => `c${i}`)];
    const csv = (n: number) => `${header(n).join(',')}\n${['1', ...Array(n - 1).fill('')].join(',')}\n`;
    assert.equal(read(csv(CATALOGUE_LIMITS.maxColumns), CSV, upc).rows.length, 1);
    refuses(csv(CATALOGUE_LIMITS.maxColumns + 1), /the header has 257 columns; at most 256/, CSV, upc);
    const object = (n: number) => JSON.stringify(Object.fromEntries(header(n).map((k) => [k, '1'])));
    assert.equal(read(`${object(CATALOGUE_LIMITS.maxColumns)}\n`, JSONL, upc).rows.length, 1);
    refuses(`${object(CATALOGUE_LIMITS.maxColumns + 1)}\n`, /line 1: more than 256 keys/, JSONL, upc);
  });

  test(`identifier and row-id cells of at most ${CATALOGUE_LIMITS.maxValueLength} characters`, () => {
    const mapping = columnMapping({ column: [{ kind: 'model', column: 'M' }], idColumn: 'sku' });
    const long = 'A'.repeat(CATALOGUE_LIMITS.maxValueLength);
    assert.equal(read(`sku,M\n${long},${long}\n`, CSV, mapping).rows[0]!.identifiers[0]!.value, long);
    refuses(
      `sku,M\nS,${long}B\n`,
      /row 2: the value in "M" is 513 characters long; at most 512/,
      CSV,
      mapping,
    );
    refuses(`sku,M\n${long}B,M1\n`, /row 2: the value in "sku" is 513 characters long/, CSV, mapping);
    const other = `sku,M,notes\nS,M1,${'x'.repeat(10_000)}\n`;
    assert.equal(read(other, CSV, mapping).rows.length, 1, 'other cells are bounded by the field size only');
  });

  test(`a CSV field or JSON line of at most ${CATALOGUE_LIMITS.maxFieldChars} characters`, () => {
    const huge = 'x'.repeat(CATALOGUE_LIMITS.maxFieldChars);
    assert.equal(read(`UPC,notes\n1,"${huge}"\n`, CSV, upc).rows.length, 1);
    refuses(
      `UPC,notes\n1,"${huge}x"\n`,
      /line 2: a field is longer than 1048576 characters \(an unclosed quote\?\)/,
      CSV,
      upc,
    );
    const line = `{"UPC":"1","notes":"${huge.slice(0, -22)}"}`;
    assert.equal(line.length, CATALOGUE_LIMITS.maxFieldChars);
    assert.equal(read(`${line}\n`, JSONL, upc).rows.length, 1);
    refuses(`${line} \n`, /line 1: longer than 1048576 characters/, JSONL, upc);
  });
});
