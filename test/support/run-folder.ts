/**
 * `recalls check` run folders written without a service, each file as the command writes it (the catalogue,
 * run.json, one receipt per chunk, matches.csv), so that `verify` and `diff` can be tested on one change at
 * a time in milliseconds. Catalogues have columns `sku` and `upc`; every record is a fictional TEST RECORD.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { planChecks } from '../../src/cli/catalogue/check-plan.ts';
import { readCatalogueFile } from '../../src/cli/catalogue/catalogue.ts';
import { formatMatches, matchLines, type ReceiptMatches } from '../../src/cli/catalogue/matches-file.ts';
import { RUN_FORMAT, runFiles, saveRun, type RunRecord } from '../../src/cli/catalogue/run-record.ts';
import {
  checkDigestOf,
  normaliseIdentifier,
  resultDigestOf,
  type MatchEntry,
} from '../../src/client/index.ts';
import { sha256 } from '../../src/domain/sha256.ts';

export interface RunFolder {
  /** The run's --out folder. */
  dir: string;
  /** The catalogue file the run read. */
  catalogue: string;
}

export interface RunFolderSpec {
  /** The catalogue's rows in order: the row id (`sku`) and its UPC. */
  rows: readonly (readonly [sku: string, upc: string])[];
  /** Which recalls the service matched, each on one UPC. */
  recalls: readonly (readonly [recallId: string, upc: string])[];
  /** Whether the run named `sku` as its --id-column (true by default). */
  idColumn?: boolean;
  /** Identifiers per check (to get several chunks from a few rows). */
  chunkSize?: number;
}

/** A fictional match of `recallId` on a UPC. */
function match(recallId: string, upc: string): MatchEntry {
  const n = normaliseIdentifier('upc', upc);
  if (!n.ok) throw new Error(`${upc} is not a valid UPC`);
  return {
    recall_id: recallId,
    matched_on: { kind: 'upc', normalized: n.normalized },
    revision_at_check: 1,
    title: `TEST RECORD ${recallId}`,
    jurisdiction: 'US',
    recall_date: '2024-01-10',
    severity: 'high',
    url: null,
  };
}

/** Writes a complete run of `spec` to `root/name` (catalogue beside it, as `root/name.csv`). */
export function writeRunFolder(root: string, name: string, spec: RunFolderSpec): RunFolder {
  const dir = join(root, name);
  const catalogue = join(root, `${name}.csv`);
  mkdirSync(runFiles(dir).receipts, { recursive: true });
  writeFileSync(catalogue, ['sku,upc', ...spec.rows.map(([sku, upc]) => `${sku},${upc}`), ''].join('\n'));
  const mapping = {
    columns: [{ kind: 'upc', column: 'upc' }],
    kindColumn: null,
    idColumn: spec.idColumn === false ? null : 'sku',
  };
  const read = readCatalogueFile(catalogue, { type: 'csv', delimiter: ',' }, mapping);
  const { chunks, index } = planChecks(read.rows, spec.chunkSize);
  const receipts: ReceiptMatches[] = [];
  const run: RunRecord = {
    format: RUN_FORMAT,
    run_id: '00000000-0000-4000-8000-000000000000',
    status: 'complete',
    stopped: null,
    service_url: 'http://127.0.0.1:9',
    started_at: '2026-06-17T10:00:00.000Z',
    finished_at: '2026-06-17T10:00:01.000Z',
    catalogue: {
      file: `${name}.csv`,
      sha256: read.sha256,
      bytes: read.bytes,
      format: 'csv',
      delimiter: ',',
      rows: read.rowCount,
      rows_with_identifiers: read.rows.length,
      identifier_cells: read.rows.reduce((n, r) => n + r.identifiers.length, 0),
    },
    mapping: { columns: mapping.columns, kind_column: null, id_column: mapping.idColumn },
    label: null,
    chunks: chunks.map((c) => {
      const checkId = `chk_${name}_${c.number}`;
      const sent = new Set(c.identifiers.map((i) => i.value));
      const matches = spec.recalls.filter(([, upc]) => sent.has(upc)).map(([id, upc]) => match(id, upc));
      const digest = checkDigestOf(c.identifiers);
      const data = {
        check_id: checkId,
        label: null,
        performed_at: '2026-06-17T10:00:00.500Z',
        corpus_as_of: '2026-06-17T04:00:00.000Z',
        submitted_digest: digest.submittedDigest,
        submitted_count: digest.submittedCount,
        rejected_count: digest.rejectedCount,
        rejected: digest.rejected,
        match_count: matches.length,
        result_digest: resultDigestOf(matches),
        matches,
      };
      const text = JSON.stringify({ data, meta: { data_as_of: '2026-06-17', attribution: [] } });
      writeReceipt({ dir, catalogue }, checkId, text);
      receipts.push({ checkId, matches });
      return {
        chunk: c.number,
        first_row: c.firstRow,
        last_row: c.lastRow,
        sent: c.identifiers.length,
        idempotency_key: `recalls-check-${name}-${c.number}`,
        status: 'checked' as const,
        check_id: checkId,
        performed_at: data.performed_at,
        corpus_as_of: data.corpus_as_of,
        submitted_digest: data.submitted_digest,
        submitted_count: data.submitted_count,
        rejected_count: data.rejected_count,
        result_digest: data.result_digest,
        match_count: data.match_count,
        replayed: false,
        receipt_sha256: sha256(text),
      };
    }),
  };
  saveRun(dir, run);
  writeFileSync(runFiles(dir).matches, formatMatches(matchLines(receipts, index).lines));
  return { dir, catalogue };
}

function writeReceipt(f: RunFolder, checkId: string, text: string): void {
  writeFileSync(runFiles(f.dir).receipt(checkId), text);
}

/** run.json of a run folder, as written. */
export function readRun(f: RunFolder): RunRecord {
  return JSON.parse(readFileSync(runFiles(f.dir).run, 'utf8')) as RunRecord;
}

/** Rewrites run.json of a run folder with `change` applied. */
export function changeRun(f: RunFolder, change: (run: RunRecord) => void): void {
  const run = readRun(f);
  change(run);
  saveRun(f.dir, run);
}

/**
 * Rewrites chunk `chunk`'s receipt with `change` applied to its `data`, and records the new file's SHA-256
 * in run.json: a receipt changed consistently, which its SHA-256 alone cannot tell.
 */
export function changeReceipt(
  f: RunFolder,
  chunk: number,
  change: (data: Record<string, any>) => void,
): void {
  const run = readRun(f);
  const record = run.chunks.find((c) => c.chunk === chunk)!;
  const path = runFiles(f.dir).receipt(record.check_id!);
  const envelope = JSON.parse(readFileSync(path, 'utf8')) as { data: Record<string, any> };
  change(envelope.data);
  const text = JSON.stringify(envelope);
  writeReceipt(f, record.check_id!, text);
  record.receipt_sha256 = sha256(text);
  saveRun(f.dir, run);
}
