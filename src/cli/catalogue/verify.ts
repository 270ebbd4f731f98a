/**
 * `recalls verify DIR --catalogue FILE`: is a run's evidence intact? Offline, the catalogue's
 * SHA-256, every `submitted_digest` recomputed from the catalogue with the shared normaliser, every
 * `result_digest` over its receipt's matches, the receipt files against run.json and matches.csv
 * against the receipts; online, every saved receipt against the service's copy.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import {
  checkDigestOf,
  RecallsApiError,
  resultDigestOf,
  type CheckEnvelope,
  type RecallsClient,
} from '../../client/index.ts';
import { sha256 } from '../../domain/sha256.ts';
import { CatalogueError, readCatalogueFile, type Catalogue } from './catalogue.ts';
import { identifiersOfRows, planChecks } from './check-plan.ts';
import { CommandFailure, EXIT } from '../exit-codes.ts';
import { formatMatches, matchLines, type ReceiptMatches } from './matches-file.ts';
import { requireRun, runFiles, type ChunkRecord, type RunRecord } from './run-record.ts';
import { apiKey, connect, describeFailure, isKeyRefused, serviceUrl } from './service-connection.ts';

export interface VerifyCommandOptions {
  catalogue: string;
  url?: string;
  key?: string;
  offline?: boolean;
}

/** The first place where `a` and `b` differ, as a JSON path (`data.matches[2].title`); undefined when equal. */
export function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (Object.is(a, b)) return undefined;
  if (
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a === null ||
    b === null ||
    Array.isArray(a) !== Array.isArray(b)
  )
    return path || '(the whole document)';
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path} (${a.length} items against ${b.length})`;
    for (let i = 0; i < a.length; i++) {
      const found = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  for (const key of new Set([...Object.keys(ra), ...Object.keys(rb)])) {
    const found = firstDifference(ra[key], rb[key], path === '' ? key : `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** What is compared with the service: the whole served document but `meta.data_as_of`, the corpus's freshness now. */
function comparable(envelope: CheckEnvelope): unknown {
  const { data_as_of: _now, ...meta } = envelope.meta;
  return { data: envelope.data, meta };
}

/** The saved receipt of a chunk and what is wrong with it, offline. */
function readSavedReceipt(
  dir: string,
  c: ChunkRecord & { check_id: string },
): { envelope?: CheckEnvelope; problems: string[] } {
  const path = runFiles(dir).receipt(c.check_id);
  if (!existsSync(path)) return { problems: [`${path} is missing`] };
  const text = readFileSync(path, 'utf8');
  const problems: string[] = [];
  if (sha256(text) !== c.receipt_sha256)
    problems.push(`${basename(path)} changed since the run (its SHA-256 is not the one in run.json)`);
  let envelope: CheckEnvelope;
  try {
    envelope = JSON.parse(text) as CheckEnvelope;
  } catch {
    return { problems: [...problems, `${basename(path)} is not JSON`] };
  }
  const r = envelope.data;
  if (typeof r !== 'object' || r === null)
    return { problems: [...problems, `${basename(path)} holds no receipt`] };
  if (r.check_id !== c.check_id) problems.push(`the receipt's check_id is ${JSON.stringify(r.check_id)}`);
  if (r.submitted_digest !== c.submitted_digest)
    problems.push("the receipt's submitted_digest is not the one in run.json");
  // A saved file is read as written by anyone: a receipt whose matches were removed is checked as matching nothing.
  const matches = Array.isArray(r.matches) ? r.matches : [];
  const recomputed = resultDigestOf(matches);
  if (r.result_digest !== recomputed)
    problems.push(
      `result_digest over the receipt's ${matches.length} matches is ${recomputed}, the receipt says ${r.result_digest}`,
    );
  if (r.match_count !== matches.length)
    problems.push(`match_count is ${r.match_count} for ${matches.length} matches`);
  return { envelope, problems };
}

/** Compares the saved receipt with the service's copy; the problem found, if any. */
async function compareWithService(
  client: RecallsClient,
  url: string,
  saved: CheckEnvelope | undefined,
  checkId: string,
): Promise<string | undefined> {
  let served;
  try {
    served = await client.getCheck(checkId);
  } catch (error) {
    if (error instanceof RecallsApiError && error.status === 404)
      return `the service has no receipt ${checkId} for this key`;
    if (isKeyRefused(error))
      throw new CommandFailure(`the service refused the key: ${describeFailure(error, url)}`);
    throw new CommandFailure(`cannot re-read ${checkId}: ${describeFailure(error, url)}`);
  }
  if (saved === undefined) return undefined;
  const at = firstDifference(comparable(saved), comparable(served.data));
  return at === undefined ? undefined : `the saved receipt differs from the service's at ${at}`;
}

function readCatalogue(path: string, run: RunRecord): { catalogue?: Catalogue; problem?: string } {
  const format =
    run.catalogue.format === 'csv'
      ? { type: 'csv' as const, delimiter: run.catalogue.delimiter ?? ',' }
      : { type: 'jsonl' as const };
  const mapping = {
    columns: run.mapping.columns,
    kindColumn: run.mapping.kind_column,
    idColumn: run.mapping.id_column,
  };
  try {
    return { catalogue: readCatalogueFile(path, format, mapping) };
  } catch (error) {
    if (error instanceof CatalogueError)
      return { problem: `cannot be read as the run read it: ${error.message}` };
    throw error;
  }
}

function chunkName(c: ChunkRecord): string {
  return `chunk ${c.chunk} (rows ${c.first_row}–${c.last_row})`;
}

/** Verifies a run folder; prints one line per check and a last line (to stdout, or `out`); returns the exit status. */
export async function runVerifyCommand(
  dir: string,
  options: VerifyCommandOptions,
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  const run = requireRun(dir);
  if (!existsSync(options.catalogue))
    throw new CommandFailure(`--catalogue ${options.catalogue} does not exist`);
  const url = options.offline === true ? undefined : serviceUrl(options.url ?? run.service_url);
  const client =
    url === undefined ? undefined : connect(url, apiKey(options.key), (m) => process.stderr.write(`${m}\n`));
  let failures = 0;
  const fail = (line: string) => {
    failures++;
    out(line);
  };

  const { catalogue, problem } = readCatalogue(options.catalogue, run);
  const fileSha = existsSync(options.catalogue) ? sha256(readFileSync(options.catalogue)) : undefined;
  if (fileSha === run.catalogue.sha256)
    out(`catalogue ${basename(options.catalogue)}: SHA-256 ${fileSha}, as recorded`);
  else
    fail(
      `catalogue ${basename(options.catalogue)}: NOT the catalogue of the run: SHA-256 ${fileSha ?? '(unreadable)'}, run.json records ${run.catalogue.sha256}`,
    );
  if (problem !== undefined) fail(`catalogue ${basename(options.catalogue)}: ${problem}`);

  const checked = run.chunks.filter(
    (c): c is ChunkRecord & { check_id: string } => c.status === 'checked' && c.check_id !== null,
  );
  const recomputed =
    catalogue === undefined
      ? undefined
      : identifiersOfRows(
          catalogue.rows,
          checked.map((c) => ({ firstRow: c.first_row, lastRow: c.last_row })),
        );
  const receipts: ReceiptMatches[] = [];
  for (const [i, c] of checked.entries()) {
    const { envelope, problems } = readSavedReceipt(dir, c);
    if (envelope !== undefined) receipts.push({ checkId: c.check_id, matches: envelope.data.matches });
    const identifiers = recomputed?.[i];
    if (identifiers !== undefined) {
      const digest = checkDigestOf(identifiers);
      if (digest.submittedDigest !== c.submitted_digest)
        problems.push(
          `submitted_digest recomputed from the catalogue's rows ${c.first_row}–${c.last_row} is ${digest.submittedDigest}, the run recorded ${c.submitted_digest}`,
        );
      else if (digest.submittedCount !== c.submitted_count)
        problems.push(
          `the catalogue's rows give ${digest.submittedCount} identifiers, the receipt counted ${c.submitted_count}`,
        );
    }
    if (client !== undefined && url !== undefined) {
      const found = await compareWithService(client, url, envelope, c.check_id);
      if (found !== undefined) problems.push(found);
    }
    if (problems.length === 0) out(`check ${c.check_id}, ${chunkName(c)}: verified`);
    else fail(`check ${c.check_id}, ${chunkName(c)}: NOT verified: ${problems.join('; ')}`);
  }
  for (const c of run.chunks.filter((c) => c.status !== 'checked'))
    out(`${chunkName(c)}: not checked (the run is partial)`);

  if (catalogue !== undefined && receipts.length === checked.length) {
    const expected = formatMatches(matchLines(receipts, planChecks(catalogue.rows).index).lines);
    const path = runFiles(dir).matches;
    const actual = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    if (actual === expected) out('matches.csv: as the receipts and the catalogue give it');
    else
      fail(
        `matches.csv: ${actual === undefined ? 'missing' : 'NOT what the receipts and the catalogue give'}`,
      );
  }
  const where =
    client === undefined ? 'offline, not compared with the service' : 'and compared with the service';
  out(
    failures === 0
      ? `verified: ${checked.length} checks of run ${run.run_id} (${run.status}), ${where}`
      : `NOT verified: ${failures} problem(s) in run ${run.run_id}`,
  );
  return failures === 0 ? EXIT.ok : EXIT.failed;
}
