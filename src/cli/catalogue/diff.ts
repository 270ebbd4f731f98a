/**
 * `recalls diff OLD_DIR NEW_DIR`: per catalogue row, the recalls matched now and not before and
 * the reverse, from two complete runs' matches.csv. Rows are paired by their row id when both
 * runs have one (`--id-column`), else by row number.
 */
import { CommandFailure, EXIT } from '../exit-codes.ts';
import { readMatches, type MatchLine } from './matches-file.ts';
import { requireRun, runFiles, type RunRecord } from './run-record.ts';

/** A recall matched on a row in one run and not in the other. */
export interface RowChange {
  row: number | null;
  row_id: string | null;
  recall_id: string;
  title: string;
  severity: string;
  recall_date: string;
  jurisdiction: string;
  url: string;
  check_id: string;
  /** The row's identifier cells that matched it. */
  matched_on: { kind: string; value: string; normalized: string }[];
}

export interface RunDiff {
  keyed_by: 'row_id' | 'row';
  old: RunSummary;
  new: RunSummary;
  /** Matched in the new run and not in the old. */
  added: RowChange[];
  /** Matched in the old run and not in the new. */
  removed: RowChange[];
}

interface RunSummary {
  dir: string;
  run_id: string;
  catalogue: string;
  finished_at: string | null;
  /** The oldest `corpus_as_of` among the run's receipts. */
  corpus_as_of: string | null;
}

function completeRun(dir: string): RunRecord {
  const run = requireRun(dir);
  if (run.status !== 'complete') {
    const pending = run.chunks
      .filter((c) => c.status !== 'checked')
      .map((c) => `${c.first_row}–${c.last_row}`);
    throw new CommandFailure(
      `${dir} is a partial run (rows ${pending.join(', ')} not checked): resume it with recalls check first, so that unchecked rows do not show as differences`,
    );
  }
  return run;
}

function summaryOf(dir: string, run: RunRecord): RunSummary {
  const stamps = run.chunks.flatMap((c) => (c.corpus_as_of === null ? [] : [c.corpus_as_of])).sort();
  return {
    dir,
    run_id: run.run_id,
    catalogue: run.catalogue.file,
    finished_at: run.finished_at,
    corpus_as_of: stamps[0] ?? null,
  };
}

/** Matches grouped by row key, then recall id. */
function byRow(lines: readonly MatchLine[], keyedById: boolean): Map<string, Map<string, MatchLine[]>> {
  const rows = new Map<string, Map<string, MatchLine[]>>();
  for (const line of lines) {
    const key = keyedById && line.row_id !== '' ? `id\u0000${line.row_id}` : `row\u0000${line.row}`;
    const recalls = rows.get(key) ?? new Map<string, MatchLine[]>();
    rows.set(key, recalls);
    recalls.set(line.recall_id, [...(recalls.get(line.recall_id) ?? []), line]);
  }
  return rows;
}

/** What `from` has that `to` has not, per row and recall. */
function missingFrom(
  from: Map<string, Map<string, MatchLine[]>>,
  to: Map<string, Map<string, MatchLine[]>>,
): RowChange[] {
  const changes: RowChange[] = [];
  for (const [key, recalls] of from) {
    for (const [recallId, lines] of recalls) {
      if (to.get(key)?.has(recallId) === true) continue;
      const first = lines[0]!;
      changes.push({
        row: first.row === '' ? null : Number(first.row),
        row_id: first.row_id === '' ? null : first.row_id,
        recall_id: recallId,
        title: first.title,
        severity: first.severity,
        recall_date: first.recall_date,
        jurisdiction: first.jurisdiction,
        url: first.url,
        check_id: first.check_id,
        matched_on: lines.map((l) => ({ kind: l.kind, value: l.value, normalized: l.normalized })),
      });
    }
  }
  return changes.sort(
    (a, b) => (a.row ?? Infinity) - (b.row ?? Infinity) || (a.recall_id < b.recall_id ? -1 : 1),
  );
}

/** The differences between two complete runs. */
export function diffRuns(oldDir: string, newDir: string): RunDiff {
  const oldRun = completeRun(oldDir);
  const newRun = completeRun(newDir);
  const keyedById = oldRun.mapping.id_column !== null && newRun.mapping.id_column !== null;
  const before = byRow(readMatches(runFiles(oldDir).matches), keyedById);
  const now = byRow(readMatches(runFiles(newDir).matches), keyedById);
  return {
    keyed_by: keyedById ? 'row_id' : 'row',
    old: summaryOf(oldDir, oldRun),
    new: summaryOf(newDir, newRun),
    added: missingFrom(now, before),
    removed: missingFrom(before, now),
  };
}

function describeChange(sign: '+' | '-', c: RowChange): string {
  const row = c.row === null ? 'no row' : `row ${c.row}`;
  const where = c.row_id === null ? row : `${row} (${c.row_id})`;
  const facts = [c.severity, c.jurisdiction, c.recall_date].filter((f) => f !== '').join(', ');
  const via = c.matched_on.map((m) => `${m.kind} ${m.value}`).join(', ');
  return `${sign} ${where}: ${c.recall_id} "${c.title}"${facts === '' ? '' : ` [${facts}]`} via ${via}${c.url === '' ? '' : ` ${c.url}`}`;
}

/** The diff for people: both runs, then one line per change, then the counts. */
export function formatDiff(d: RunDiff): string {
  const run = (name: string, s: RunSummary) =>
    `${name}: ${s.dir} (run ${s.run_id}, ${s.catalogue}, finished ${s.finished_at ?? '?'}, corpus as of ${s.corpus_as_of ?? 'unknown'})`;
  return [
    run('old', d.old),
    run('new', d.new),
    `rows paired by ${d.keyed_by === 'row_id' ? 'row id' : 'row number'}`,
    ...(d.added.length > 0
      ? ['', 'Matched now and not before:', ...d.added.map((c) => describeChange('+', c))]
      : []),
    ...(d.removed.length > 0
      ? ['', 'Matched before and not now:', ...d.removed.map((c) => describeChange('-', c))]
      : []),
    '',
    `${d.added.length} recall match(es) new, ${d.removed.length} gone.`,
  ].join('\n');
}

/** Prints the diff (text or JSON); exits 0 when there is no difference and 1 when there is, as diff(1). */
export function runDiffCommand(oldDir: string, newDir: string, options: { json?: boolean }): number {
  let d: RunDiff;
  try {
    d = diffRuns(oldDir, newDir);
  } catch (error) {
    if (error instanceof CommandFailure) throw error;
    throw new CommandFailure((error as Error).message);
  }
  process.stdout.write(options.json === true ? `${JSON.stringify(d, null, 2)}\n` : `${formatDiff(d)}\n`);
  return d.added.length + d.removed.length === 0 ? EXIT.ok : EXIT.failed;
}
