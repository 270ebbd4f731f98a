/**
 * `recalls check FILE`: a whole catalogue against the service, in checks of at most 1000
 * identifiers, each sent with an Idempotency-Key derived from the run; the run is recorded in
 * `--out` after every check, so running the same command again resumes it.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  checkDigestOf,
  RecallsApiError,
  type CheckEnvelope,
  type RecallsClient,
} from '../../client/index.ts';
import { sha256 } from '../../domain/sha256.ts';
import {
  CatalogueError,
  formatOfFileName,
  readCatalogueFile,
  type Catalogue,
  type CatalogueFormat,
} from './catalogue.ts';
import { planChecks, type Chunk, type OccurrenceIndex } from './check-plan.ts';
import { columnMapping, type ColumnMapping } from './column-mapping.ts';
import { CommandFailure, EXIT } from '../exit-codes.ts';
import { formatMatches, matchLines, type ReceiptMatches } from './matches-file.ts';
import { createProgress, type Progress } from './progress.ts';
import {
  loadRun,
  runFiles,
  saveRun,
  writeWhole,
  RUN_FORMAT,
  type ChunkRecord,
  type RunRecord,
} from './run-record.ts';
import { apiKey, connect, describeFailure, isKeyRefused, serviceUrl } from './service-connection.ts';

/** Longest `--label`: a check's label is at most 200 characters and gets ` (i/n)` appended. */
export const MAX_LABEL_LENGTH = 180;

/** A check id safe to use as a file name (the service's are `chk_` and base62). */
const CHECK_ID = /^[A-Za-z0-9_-]{1,128}$/;

export interface CheckCommandOptions {
  url?: string;
  key?: string;
  out: string;
  format?: 'csv' | 'jsonl';
  delimiter?: string;
  column?: { kind: string; column: string }[];
  kindColumn?: string;
  valueColumn?: string;
  idColumn?: string;
  label?: string;
}

function catalogueFormat(file: string, options: CheckCommandOptions): CatalogueFormat {
  const implied = formatOfFileName(file);
  const type = options.format ?? implied?.type;
  if (type === undefined)
    throw new CommandFailure(
      `cannot tell the format of ${basename(file)} by its name: pass --format csv or --format jsonl`,
    );
  if (type === 'jsonl') {
    if (options.delimiter !== undefined) throw new CommandFailure('--delimiter applies to CSV only');
    return { type };
  }
  const delimiter = options.delimiter ?? (implied?.type === 'csv' ? implied.delimiter : ',');
  const unescaped = delimiter === '\\t' ? '\t' : delimiter;
  if ([...unescaped].length !== 1 || /["\r\n]/.test(unescaped))
    throw new CommandFailure(
      `--delimiter must be one character other than a quote or a line break, not "${delimiter}"`,
    );
  return { type: 'csv', delimiter: unescaped };
}

function checkedLabel(label: string | undefined): string | null {
  if (label === undefined) return null;
  if (label.length > MAX_LABEL_LENGTH)
    throw new CommandFailure(`--label is longer than ${MAX_LABEL_LENGTH} characters`);
  if (/[\p{Cc}\p{Cs}]/u.test(label)) throw new CommandFailure('--label holds a control character');
  return label;
}

/** The Idempotency-Key of a chunk: the same for every attempt of this run, new for a new run. */
export function idempotencyKeyOf(
  runId: string,
  catalogueSha256: string,
  mapping: ColumnMapping,
  chunk: number,
): string {
  return `recalls-check-${sha256(JSON.stringify([runId, catalogueSha256, mapping, chunk]))}`;
}

function newRun(
  file: string,
  url: string,
  catalogue: Catalogue,
  format: CatalogueFormat,
  mapping: ColumnMapping,
  label: string | null,
  chunks: Chunk[],
): RunRecord {
  const runId = randomUUID();
  return {
    format: RUN_FORMAT,
    run_id: runId,
    status: 'partial',
    stopped: null,
    service_url: url,
    started_at: new Date().toISOString(),
    finished_at: null,
    catalogue: {
      file: basename(file),
      sha256: catalogue.sha256,
      bytes: catalogue.bytes,
      format: format.type,
      delimiter: format.type === 'csv' ? format.delimiter : null,
      rows: catalogue.rowCount,
      rows_with_identifiers: catalogue.rows.length,
      identifier_cells: catalogue.rows.reduce((n, r) => n + r.identifiers.length, 0),
    },
    mapping: { columns: mapping.columns, kind_column: mapping.kindColumn, id_column: mapping.idColumn },
    label,
    chunks: chunks.map((c) => ({
      chunk: c.number,
      first_row: c.firstRow,
      last_row: c.lastRow,
      sent: c.identifiers.length,
      idempotency_key: idempotencyKeyOf(runId, catalogue.sha256, mapping, c.number),
      status: 'pending',
      check_id: null,
      performed_at: null,
      corpus_as_of: null,
      submitted_digest: null,
      submitted_count: null,
      rejected_count: null,
      result_digest: null,
      match_count: null,
      replayed: null,
      receipt_sha256: null,
    })),
  };
}

/** What keeps `fresh` from resuming `existing`, in words; empty when it can. */
function differences(existing: RunRecord, fresh: RunRecord): string[] {
  const found: string[] = [];
  if (existing.catalogue.sha256 !== fresh.catalogue.sha256)
    found.push('another catalogue (its SHA-256 differs)');
  if (!isDeepStrictEqual(existing.mapping, fresh.mapping)) found.push('another column mapping');
  if (
    existing.catalogue.format !== fresh.catalogue.format ||
    existing.catalogue.delimiter !== fresh.catalogue.delimiter
  )
    found.push('another format or delimiter');
  if (existing.label !== fresh.label) found.push('another --label');
  if (existing.service_url !== fresh.service_url) found.push(`another service (${existing.service_url})`);
  const layout = (r: RunRecord) => r.chunks.map((c) => [c.first_row, c.last_row, c.sent]);
  if (found.length === 0 && !isDeepStrictEqual(layout(existing), layout(fresh)))
    found.push('chunks cut differently (written by another version of recalls)');
  return found;
}

/** The run to carry on with in `out`: the one there (when it is this run), or a new one in an empty folder. */
function openRun(out: string, fresh: RunRecord): { run: RunRecord; resumed: boolean } {
  if (existsSync(out) && !statSync(out).isDirectory())
    throw new CommandFailure(`--out ${out} is not a folder`);
  const existing = loadRun(out);
  if (existing === undefined) {
    if (existsSync(out) && readdirSync(out).length > 0)
      throw new CommandFailure(`--out ${out} is not empty and holds no run.json: name a new or empty folder`);
    return { run: fresh, resumed: false };
  }
  const found = differences(existing, fresh);
  if (found.length > 0)
    throw new CommandFailure(
      `--out ${out} holds another run: ${found.join('; ')}. Name a new folder, or repeat that run's command to resume it.`,
    );
  return { run: existing, resumed: true };
}

/** The saved receipts of checked chunks; a chunk whose file is missing or altered is sent again (replayed). */
function savedReceipts(out: string, run: RunRecord, note: (m: string) => void): Map<number, ReceiptMatches> {
  const saved = new Map<number, ReceiptMatches>();
  for (const c of run.chunks) {
    if (c.status !== 'checked' || c.check_id === null) continue;
    const path = runFiles(out).receipt(c.check_id);
    const text = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    if (text !== undefined && sha256(text) === c.receipt_sha256) {
      const envelope = JSON.parse(text) as CheckEnvelope;
      saved.set(c.chunk, { checkId: c.check_id, matches: envelope.data.matches });
    } else {
      note(
        `chunk ${c.chunk}: ${path} is ${text === undefined ? 'missing' : 'altered'}; asking the service for it again`,
      );
      c.status = 'pending';
    }
  }
  return saved;
}

function writeMatches(
  out: string,
  run: RunRecord,
  receipts: Map<number, ReceiptMatches>,
  index: OccurrenceIndex,
): number {
  const ordered = run.chunks.flatMap((c) => receipts.get(c.chunk) ?? []);
  const { lines, unplaced } = matchLines(ordered, index);
  for (const m of unplaced)
    process.stderr.write(
      `warning: ${m.recall_id} matched ${m.matched_on.kind}:${m.matched_on.normalized}, which no row of the catalogue normalises to (a different normaliser version?); written without a row\n`,
    );
  writeWhole(runFiles(out).matches, formatMatches(lines));
  return lines.length;
}

/** Chunks as runs of consecutive numbers with their rows: `1–40 (rows 2–40001), 42 (rows 41002–42001)`. */
function rowsOf(chunks: readonly ChunkRecord[]): string {
  if (chunks.length === 0) return 'none';
  const runs: ChunkRecord[][] = [];
  for (const c of chunks) {
    const last = runs.at(-1);
    if (last !== undefined && last.at(-1)!.chunk === c.chunk - 1) last.push(c);
    else runs.push([c]);
  }
  return runs
    .map((run) => {
      const [first, last] = [run[0]!, run.at(-1)!];
      const numbers = run.length === 1 ? `${first.chunk}` : `${first.chunk}–${last.chunk}`;
      return `${numbers} (rows ${first.first_row}–${last.last_row})`;
    })
    .join(', ');
}

/** The message of a run stopped by `error` at chunk `at`: what was checked, what was not, and what next. */
function stoppedMessage(run: RunRecord, out: string, error: unknown): string {
  const checked = run.chunks.filter((c) => c.status === 'checked');
  const pending = run.chunks.filter((c) => c.status !== 'checked');
  const quota = error instanceof RecallsApiError && error.status === 402;
  const key = isKeyRefused(error);
  const failure = describeFailure(error, run.service_url);
  return [
    quota
      ? `Stopped: the key's monthly quota is exhausted (${failure}).`
      : key
        ? `Stopped: the service refused the key (${failure}).`
        : `Stopped: ${failure}.`,
    `Checked ${checked.length} of ${run.chunks.length} chunks: ${rowsOf(checked)}.`,
    `Not checked: ${rowsOf(pending)}.`,
    `${out} holds the receipts, matches.csv and run.json (status "partial") for the checked rows only.`,
    quota
      ? 'Run the same command again once the quota allows (next month, or on a larger plan) to check the rest.'
      : key
        ? 'Give a valid key (--key or RECALLS_KEY; the operator issues one), then run the command again to check the rest; checked chunks are not sent again.'
        : 'Run the same command again to resume; checked chunks are not sent again.',
  ].join('\n');
}

async function sendChunk(
  client: RecallsClient,
  out: string,
  run: RunRecord,
  record: ChunkRecord,
  chunk: Chunk,
): Promise<ReceiptMatches> {
  const base = (run.label ?? run.catalogue.file).slice(0, MAX_LABEL_LENGTH);
  const served = await client.runCheck(
    { label: `${base} (${record.chunk}/${run.chunks.length})`, identifiers: chunk.identifiers },
    { idempotencyKey: record.idempotency_key },
  );
  const receipt = served.data.data;
  if (!CHECK_ID.test(receipt.check_id))
    throw new Error(
      `the service answered a check id that is not a file name: ${JSON.stringify(receipt.check_id)}`,
    );
  writeWhole(runFiles(out).receipt(receipt.check_id), served.text);
  const expected = checkDigestOf(chunk.identifiers).submittedDigest;
  if (receipt.submitted_digest !== expected)
    process.stderr.write(
      `warning: chunk ${record.chunk}: the receipt's submitted_digest is ${receipt.submitted_digest}, this client computes ${expected} (recalls verify will report it)\n`,
    );
  Object.assign(record, {
    status: 'checked',
    check_id: receipt.check_id,
    performed_at: receipt.performed_at,
    corpus_as_of: receipt.corpus_as_of ?? null,
    submitted_digest: receipt.submitted_digest,
    submitted_count: receipt.submitted_count,
    rejected_count: receipt.rejected_count ?? 0,
    result_digest: receipt.result_digest ?? null,
    match_count: receipt.match_count,
    replayed: served.replayed,
    receipt_sha256: sha256(served.text),
  } satisfies Partial<ChunkRecord>);
  return { checkId: receipt.check_id, matches: receipt.matches };
}

function summary(run: RunRecord, out: string, matchLineCount: number): string {
  const sum = (f: (c: ChunkRecord) => number | null) => run.chunks.reduce((n, c) => n + (f(c) ?? 0), 0);
  const rejected = sum((c) => c.rejected_count);
  const replayed = run.chunks.filter((c) => c.replayed === true).length;
  const files = runFiles(out);
  return [
    `Checked ${run.catalogue.rows} rows of ${run.catalogue.file}: ${sum((c) => c.submitted_count)} distinct identifiers in ${run.chunks.length} checks` +
      (replayed > 0 ? ` (${replayed} answered by replaying an earlier send, not charged again)` : '') +
      '.',
    ...(rejected > 0
      ? [
          `${rejected} identifiers could not be normalised and were not checked: see "rejected" in the receipts.`,
        ]
      : []),
    `${matchLineCount} match lines (${sum((c) => c.match_count)} matches): ${files.matches}`,
    `Receipts: ${files.receipts}/ (${run.chunks.length}); the run: ${files.run} (status "${run.status}").`,
  ].join('\n');
}

/** A network failure as fetch reports it (after the client's retries), rather than a bug. */
function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError && error.cause !== undefined;
}

/** Records why the run stopped and says so; returns the exit status. A bug is thrown on, once recorded. */
function stopRun(out: string, run: RunRecord, error: unknown): number {
  const quota = error instanceof RecallsApiError && error.status === 402;
  run.stopped = {
    reason: quota ? 'quota_exceeded' : error instanceof RecallsApiError ? 'service_error' : 'unreachable',
    status: error instanceof RecallsApiError ? error.status : null,
    detail: describeFailure(error, run.service_url),
  };
  run.finished_at = new Date().toISOString();
  saveRun(out, run);
  if (!(error instanceof RecallsApiError) && !isNetworkError(error)) throw error;
  process.stderr.write(`${stoppedMessage(run, out, error)}\n`);
  return quota ? EXIT.quotaExceeded : EXIT.failed;
}

/** Runs (or resumes) a catalogue check; returns the exit status. */
export async function runCheckCommand(file: string, options: CheckCommandOptions): Promise<number> {
  const url = serviceUrl(options.url);
  const key = apiKey(options.key);
  const format = catalogueFormat(file, options);
  const mapping = columnMapping(options);
  const label = checkedLabel(options.label);
  let catalogue: Catalogue;
  try {
    catalogue = readCatalogueFile(file, format, mapping);
  } catch (error) {
    if (error instanceof CatalogueError)
      throw new CommandFailure(`${basename(file)}: ${error.message}; nothing was sent`);
    throw error;
  }
  const { chunks, index } = planChecks(catalogue.rows);
  const { run, resumed } = openRun(options.out, newRun(file, url, catalogue, format, mapping, label, chunks));
  if (run.status === 'complete') {
    process.stdout.write(`${options.out} already holds this run, complete; nothing to do.\n`);
    return EXIT.ok;
  }
  const notes: string[] = [];
  const receipts = savedReceipts(options.out, run, (m) => notes.push(m));
  const pending = run.chunks.filter((c) => c.status !== 'checked');
  const progress: Progress = createProgress({
    total: run.chunks.reduce((n, c) => n + c.sent, 0),
    done: run.chunks.reduce((n, c) => n + (c.status === 'checked' ? c.sent : 0), 0),
    unit: 'identifiers',
  });
  for (const n of notes) progress.note(n);
  if (resumed)
    progress.note(`resuming run ${run.run_id}: ${pending.length} of ${run.chunks.length} chunks to check`);
  run.stopped = null;
  run.finished_at = null;
  saveRun(options.out, run);
  writeMatches(options.out, run, receipts, index);
  const client = connect(url, key, (m) => progress.note(m));
  for (const record of pending) {
    try {
      const chunk = chunks[record.chunk - 1]!;
      receipts.set(record.chunk, await sendChunk(client, options.out, run, record, chunk));
    } catch (error) {
      progress.stop();
      return stopRun(options.out, run, error);
    }
    writeMatches(options.out, run, receipts, index);
    saveRun(options.out, run);
    progress.step(
      record.sent,
      `chunk ${record.chunk}/${run.chunks.length}: rows ${record.first_row}–${record.last_row}, ${record.submitted_count} identifiers, ${record.match_count} matches, ${record.check_id}${record.replayed ? ' (replayed, not charged)' : ''}`,
    );
  }
  progress.stop();
  run.status = 'complete';
  run.finished_at = new Date().toISOString();
  saveRun(options.out, run);
  const lines = writeMatches(options.out, run, receipts, index);
  process.stdout.write(`${summary(run, options.out, lines)}\n`);
  return EXIT.ok;
}
