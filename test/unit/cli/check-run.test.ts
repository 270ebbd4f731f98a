import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidArgumentError } from 'commander';
import type { CatalogueRow } from '../../../src/cli/catalogue/catalogue.ts';
import { CHECK_SIZE, identifiersOfRows, planChecks } from '../../../src/cli/catalogue/check-plan.ts';
import { idempotencyKeyOf } from '../../../src/cli/catalogue/check-run.ts';
import {
  columnMapping,
  MAX_MAPPED_COLUMNS,
  parseColumnOption,
} from '../../../src/cli/catalogue/column-mapping.ts';
import { CommandFailure } from '../../../src/cli/exit-codes.ts';
import { formatMatches, matchLines } from '../../../src/cli/catalogue/matches-file.ts';
import { apiKey, serviceUrl } from '../../../src/cli/catalogue/service-connection.ts';
import { firstDifference } from '../../../src/cli/catalogue/verify.ts';
import { checkDigestOf, type IdentifierKind, type MatchEntry } from '../../../src/client/index.ts';

function row(n: number, ...identifiers: [string, string][]): CatalogueRow {
  return { row: n, id: `SKU-${n}`, identifiers: identifiers.map(([kind, value]) => ({ kind, value })) };
}

function match(kind: IdentifierKind, normalized: string, recallId: string): MatchEntry {
  return {
    recall_id: recallId,
    matched_on: { kind, normalized },
    revision_at_check: 1,
    title: `TEST RECORD ${recallId}`,
    jurisdiction: 'US',
    recall_date: '2024-01-10',
    severity: 'high',
    url: null,
  };
}

describe('cutting a catalogue into checks', () => {
  test('sends each identifier once, with the first row holding it in any written form', () => {
    const rows = [
      row(2, ['upc', '036000291452'], ['model', 'MX-1']),
      row(3, ['upc', '0 36000 29145 2'], ['model', 'mx 1']), // the same two, written otherwise
      row(4, ['ean', '0036000291452'], ['lot', 'N/A'], ['lot', 'N/A']), // ean is another kind; a placeholder
    ];
    const { chunks, index } = planChecks(rows);
    assert.deepEqual(chunks, [
      {
        number: 1,
        firstRow: 2,
        lastRow: 4,
        identifiers: [
          { kind: 'upc', value: '036000291452' },
          { kind: 'model', value: 'MX-1' },
          { kind: 'ean', value: '0036000291452' },
          { kind: 'lot', value: 'N/A' },
        ],
      },
    ]);
    assert.deepEqual(
      index.get('upc:00036000291452')?.map((o) => [o.row, o.value]),
      [
        [2, '036000291452'],
        [3, '0 36000 29145 2'],
      ],
    );
    assert.equal(index.has('lot:N/A'), false, 'a rejected value is on no match key');
    const digest = checkDigestOf(chunks[0]!.identifiers);
    assert.equal(digest.submittedCount, 3);
    assert.equal(digest.rejectedCount, 1);
  });

  test(`cuts consecutive row ranges whose new identifiers fit ${CHECK_SIZE}, rows kept whole`, () => {
    const rows = Array.from({ length: 1200 }, (_, i) =>
      row(i + 2, ['model', `M${i}`], ['lot', `L${Math.floor(i / 2)}`]),
    );
    const { chunks } = planChecks(rows);
    assert.deepEqual(
      chunks.map((c) => [c.number, c.firstRow, c.lastRow, c.identifiers.length]),
      [
        [1, 2, 667, 999], // 666 rows: 666 models and 333 lots; the next row's 2 would make 1001
        [2, 668, 1201, 801],
      ],
    );
    assert.ok(chunks.every((c) => c.identifiers.length <= CHECK_SIZE));
    const small = planChecks(rows.slice(0, 10), 4).chunks;
    assert.deepEqual(
      small.map((c) => [c.firstRow, c.lastRow, c.identifiers.length]),
      [
        [2, 3, 3], // row 2 brings M0 and L0, row 3 M1 (L0 again); row 4's two would make 5
        [4, 5, 3],
        [6, 7, 3],
        [8, 9, 3],
        [10, 11, 3],
      ],
    );
  });

  test('a recorded row range gives back exactly the identifiers its chunk sent', () => {
    const rows = Array.from({ length: 50 }, (_, i) =>
      row(i * 2 + 2, ['model', `M${i % 17}`], ['upc', `0360002914${i % 3}`]),
    );
    const { chunks } = planChecks(rows, 7);
    const recomputed = identifiersOfRows(rows, chunks);
    assert.deepEqual(
      recomputed,
      chunks.map((c) => c.identifiers),
    );
  });
});

describe('matches placed back on rows', () => {
  test('every row holding the matched identifier gets a line; a match on no row is kept, without a row', () => {
    const rows = [row(2, ['upc', '036000291452']), row(3, ['model', 'MX-1']), row(9, ['upc', '36000291452'])];
    const { index } = planChecks(rows);
    const { lines, unplaced } = matchLines(
      [
        {
          checkId: 'chk_1',
          matches: [match('upc', '00036000291452', 'r-b'), match('model', 'OTHER', 'r-c')],
        },
        { checkId: 'chk_2', matches: [match('model', 'MX1', 'r-a')] },
      ],
      index,
    );
    assert.deepEqual(
      lines.map((l) => [l.row, l.row_id, l.kind, l.value, l.normalized, l.recall_id, l.check_id]),
      [
        ['2', 'SKU-2', 'upc', '036000291452', '00036000291452', 'r-b', 'chk_1'],
        ['3', 'SKU-3', 'model', 'MX-1', 'MX1', 'r-a', 'chk_2'],
        ['9', 'SKU-9', 'upc', '36000291452', '00036000291452', 'r-b', 'chk_1'],
        ['', '', 'model', '', 'OTHER', 'r-c', 'chk_1'],
      ],
    );
    assert.deepEqual(
      unplaced.map((m) => m.recall_id),
      ['r-c'],
    );
  });

  test('a cell a spreadsheet would run as a formula is written as text, after a quote', () => {
    const rows = [row(2, ['model', '=MX-1']), row(3, ['model', 'MX-2'])];
    const { index } = planChecks(rows);
    const formulas = ['=HYPERLINK("http://x.test")', '+1', '-2+3', '@SUM(A1)', '\tTAB', '\rCR'];
    const receipts = formulas.map((title, n) => ({
      checkId: `chk_${n}`,
      matches: [{ ...match('model', n % 2 === 0 ? 'MX1' : 'MX2', `r-${n}`), title }],
    }));
    const text = formatMatches(matchLines(receipts, index).lines);
    for (const title of formulas) {
      const quoted =
        title.includes('"') || title.includes('\r') ? `"'${title.replace(/"/g, '""')}"` : `'${title}`;
      assert.ok(text.includes(`,${quoted},`), `${JSON.stringify(title)} is written as ${quoted}`);
    }
    assert.ok(text.includes(",'=MX-1,"), 'a catalogue cell too');
    assert.ok(!/,[=+@-]/.test(text), 'no cell starts a formula');
  });
});

describe('the pieces of a run', () => {
  test('an Idempotency-Key is the same for the same run and chunk, and differs otherwise', () => {
    const mapping = { columns: [{ kind: 'upc', column: 'UPC' }], kindColumn: null, idColumn: null };
    const sha = 'a'.repeat(64);
    const key = idempotencyKeyOf('run-1', sha, mapping, 1);
    assert.match(key, /^recalls-check-[0-9a-f]{64}$/);
    assert.equal(idempotencyKeyOf('run-1', sha, mapping, 1), key);
    assert.notEqual(idempotencyKeyOf('run-1', sha, mapping, 2), key);
    assert.notEqual(idempotencyKeyOf('run-2', sha, mapping, 1), key);
    assert.notEqual(idempotencyKeyOf('run-1', 'b'.repeat(64), mapping, 1), key);
    assert.notEqual(idempotencyKeyOf('run-1', sha, { ...mapping, idColumn: 'sku' }, 1), key);
  });

  test(`--column takes KIND=COLUMN with one of the nine kinds, each column once, at most ${MAX_MAPPED_COLUMNS}`, () => {
    assert.deepEqual(parseColumnOption(' UPC = Bar code'), [{ kind: 'upc', column: 'Bar code' }]);
    assert.deepEqual(parseColumnOption('model=a=b'), [{ kind: 'model', column: 'a=b' }]);
    const refused = (text: string, previous: { kind: string; column: string }[] = []) =>
      assert.throws(() => parseColumnOption(text, previous), InvalidArgumentError);
    refused('UPC');
    refused('upc=');
    refused('sku=UPC');
    refused('lot=A', [{ kind: 'upc', column: 'A' }]);
    const full = Array.from({ length: MAX_MAPPED_COLUMNS }, (_, i) => ({ kind: 'lot', column: `c${i}` }));
    refused('lot=another', full);
  });

  test('firstDifference names the first differing place, or nothing when equal', () => {
    const a = { data: { matches: [{ title: 'A' }, { title: 'B' }], n: 1 }, meta: { count: 1 } };
    assert.equal(firstDifference(a, structuredClone(a)), undefined);
    assert.equal(firstDifference(a, { ...a, data: { ...a.data, n: 2 } }), 'data.n');
    assert.equal(
      firstDifference(a, { ...a, data: { ...a.data, matches: [{ title: 'A' }, { title: 'C' }] } }),
      'data.matches[1].title',
    );
    assert.equal(
      firstDifference(a, { ...a, data: { ...a.data, matches: [] } }),
      'data.matches (2 items against 0)',
    );
    assert.equal(firstDifference(a, { ...a, extra: true }), 'extra');
    assert.equal(firstDifference(1, '1'), '(the whole document)');
  });
});

describe('the arguments of the catalogue commands', () => {
  test('a mapping needs identifier columns, and --kind-column and --value-column go together', () => {
    assert.throws(
      () => columnMapping({}),
      (e: unknown) => e instanceof CommandFailure && /name the identifier columns/.test(e.message),
    );
    assert.throws(() => columnMapping({ kindColumn: 'K' }), /--kind-column and --value-column go together/);
    assert.throws(() => columnMapping({ valueColumn: 'V' }), /--kind-column and --value-column go together/);
    assert.deepEqual(columnMapping({ kindColumn: 'K', valueColumn: 'V', idColumn: 'sku' }), {
      columns: [],
      kindColumn: { kind: 'K', value: 'V' },
      idColumn: 'sku',
    });
  });

  test('the service address must be an http(s) URL and the key must be given', () => {
    assert.equal(serviceUrl(' http://127.0.0.1:8080/ '), 'http://127.0.0.1:8080');
    assert.equal(serviceUrl('https://recalls.example/base/'), 'https://recalls.example/base');
    assert.throws(() => serviceUrl(undefined), /no service address: pass --url or set RECALLS_URL/);
    assert.throws(() => serviceUrl('localhost:8080'), /must be http or https/);
    assert.throws(() => serviceUrl('not a url'), /is not a URL/);
    assert.throws(() => apiKey(''), /no API key: pass --key or set RECALLS_KEY/);
    assert.equal(apiKey(' rk_live_x '), 'rk_live_x');
  });
});
