/**
 * The files of one `recalls check` run in its output folder: `run.json` binding the run, the
 * receipts as served (`receipts/<check_id>.json`) and `matches.csv`. Every file is replaced
 * whole (written beside, then renamed), so a run stopped at any point leaves them consistent.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { Nullable } from '../../domain/json-schema.ts';
import { firstError } from '../../ingest/validate.ts';

/** The `format` of run.json; a later layout gets a new one. */
export const RUN_FORMAT = 'recalls-check-run/1';

const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' });

const ChunkRecordSchema = Type.Object({
  chunk: Type.Integer({ minimum: 1 }),
  first_row: Type.Integer({ minimum: 1 }),
  last_row: Type.Integer({ minimum: 1 }),
  /** Identifiers sent (distinct kind and text; the service counts distinct canonical pairs). */
  sent: Type.Integer({ minimum: 1 }),
  idempotency_key: Type.String(),
  /** `checked` once its receipt is saved. */
  status: Type.Union([Type.Literal('pending'), Type.Literal('checked')]),
  check_id: Nullable(Type.String({ pattern: '^[A-Za-z0-9_-]{1,128}$' })),
  performed_at: Nullable(Type.String()),
  corpus_as_of: Nullable(Type.String()),
  submitted_digest: Nullable(Sha256),
  submitted_count: Nullable(Type.Integer()),
  rejected_count: Nullable(Type.Integer()),
  result_digest: Nullable(Sha256),
  match_count: Nullable(Type.Integer()),
  /** Whether the service answered with the receipt of an earlier send of this chunk (not charged again). */
  replayed: Nullable(Type.Boolean()),
  /** SHA-256 of `receipts/<check_id>.json` as written. */
  receipt_sha256: Nullable(Sha256),
});
/** One chunk of the run and, once checked, what its receipt says. */
export type ChunkRecord = Static<typeof ChunkRecordSchema>;

const RunRecordSchema = Type.Object({
  format: Type.Literal(RUN_FORMAT),
  run_id: Type.String({ pattern: '^[0-9a-f-]{36}$' }),
  status: Type.Union([Type.Literal('complete'), Type.Literal('partial')]),
  /** Why a partial run stopped (null while running, when complete, or when killed). */
  stopped: Type.Union([
    Type.Null(),
    Type.Object({ reason: Type.String(), status: Nullable(Type.Integer()), detail: Type.String() }),
  ]),
  service_url: Type.String(),
  started_at: Type.String(),
  finished_at: Nullable(Type.String()),
  catalogue: Type.Object({
    file: Type.String(),
    sha256: Sha256,
    bytes: Type.Integer({ minimum: 0 }),
    format: Type.Union([Type.Literal('csv'), Type.Literal('jsonl')]),
    delimiter: Nullable(Type.String()),
    rows: Type.Integer({ minimum: 0 }),
    rows_with_identifiers: Type.Integer({ minimum: 0 }),
    identifier_cells: Type.Integer({ minimum: 0 }),
  }),
  mapping: Type.Object({
    columns: Type.Array(Type.Object({ kind: Type.String(), column: Type.String() })),
    kind_column: Type.Union([Type.Null(), Type.Object({ kind: Type.String(), value: Type.String() })]),
    id_column: Nullable(Type.String()),
  }),
  label: Nullable(Type.String()),
  chunks: Type.Array(ChunkRecordSchema, { minItems: 1 }),
});
/** run.json: what binds the receipts of one catalogue run together. */
export type RunRecord = Static<typeof RunRecordSchema>;

/** The run folder's files. */
export function runFiles(dir: string) {
  return {
    run: join(dir, 'run.json'),
    matches: join(dir, 'matches.csv'),
    receipts: join(dir, 'receipts'),
    receipt: (checkId: string) => join(dir, 'receipts', `${checkId}.json`),
  };
}

/** A run folder that cannot be used as asked (missing, not a run, of another catalogue …). */
export class RunFolderError extends Error {}

/** Replaces `path` with `content` whole: written beside it, then renamed over it. */
export function writeWhole(path: string, content: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, path);
}

/** Writes run.json (whole). */
export function saveRun(dir: string, run: RunRecord): void {
  mkdirSync(runFiles(dir).receipts, { recursive: true });
  writeWhole(runFiles(dir).run, `${JSON.stringify(run, null, 2)}\n`);
}

/** run.json of `dir`, validated; undefined when there is none. */
export function loadRun(dir: string): RunRecord | undefined {
  const path = runFiles(dir).run;
  if (!existsSync(path)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new RunFolderError(`${path} is not JSON: ${(error as Error).message}`);
  }
  if (!Value.Check(RunRecordSchema, value)) {
    const first = firstError(Value.Errors(RunRecordSchema, value)) ?? 'unknown shape';
    throw new RunFolderError(`${path} is not a run record of this version (${first})`);
  }
  return value;
}

/** run.json of `dir`, which must exist. */
export function requireRun(dir: string): RunRecord {
  const run = loadRun(dir);
  if (run === undefined)
    throw new RunFolderError(`${dir} holds no run.json: is it the --out folder of recalls check?`);
  return run;
}
