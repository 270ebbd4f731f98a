/** Registers `recalls check`, `verify` and `diff`: a shop's catalogue against a running service. */
import { CommanderError, InvalidArgumentError, Option, type Command } from 'commander';
import { CATALOGUE_LIMITS } from './catalogue.ts';
import { CHECK_SIZE } from './check-plan.ts';
import { MAX_LABEL_LENGTH, runCheckCommand, type CheckCommandOptions } from './check-run.ts';
import { MAX_MAPPED_COLUMNS, parseColumnOption } from './column-mapping.ts';
import { runDiffCommand } from './diff.ts';
import { CommandFailure, EXIT } from '../exit-codes.ts';
import { RunFolderError } from './run-record.ts';
import { runVerifyCommand, type VerifyCommandOptions } from './verify.ts';

const CHECK_HELP = `
Columns: --column KIND=COLUMN names a column of identifiers of one kind (repeatable, at most
${MAX_MAPPED_COLUMNS}); KIND is one of gtin, upc, ean, vin, ndc, udi, model, lot, batch. Or
--kind-column K --value-column V for one identifier a row whose kind is in column K. Empty cells
are skipped. In JSON lines, COLUMN is a key of each line's object.

Checks: each identifier (same kind and canonical form, by the service's normaliser) is sent once,
with the first row holding it; rows are cut into consecutive ranges whose new identifiers fit one
check of at most ${CHECK_SIZE}. Each check carries an Idempotency-Key derived from the run (its id,
the catalogue's SHA-256, the mapping and the chunk number).

Resuming: run the same command with the same --out again. Checks whose receipts are saved are not
sent again; a check whose answer was lost is sent with the same Idempotency-Key and the service
replays its receipt free of charge. The service keeps Idempotency-Keys for 24 hours: after that a
lost answer is checked, and charged, again.

Output in --out DIR (a new or empty folder, or the folder of the run to resume):
  matches.csv               one line per catalogue row, identifier and matched recall: row, row_id,
                            kind, value (as written), normalized, recall_id, title, severity,
                            recall_date, jurisdiction, url, check_id. "row" is the CSV record's
                            number as a spreadsheet shows it (the header is row 1; blank lines
                            are skipped and not counted); in JSON lines, the line number.
  receipts/<check_id>.json  each receipt exactly as served
  run.json                  the run: catalogue SHA-256 and file name, mapping, every check with its
                            rows, digests and counts, the service, start and end, complete/partial

Bounds: a catalogue of at most ${CATALOGUE_LIMITS.maxBytes} bytes (64 MiB), ${CATALOGUE_LIMITS.maxRows} data rows and
${CATALOGUE_LIMITS.maxColumns} columns; identifier and row-id cells of at most ${CATALOGUE_LIMITS.maxValueLength} characters;
a CSV field or JSON line of at most ${CATALOGUE_LIMITS.maxFieldChars} characters; --label of at most ${MAX_LABEL_LENGTH}.
A catalogue outside them, or malformed, is refused with the row or line, and nothing is sent.

A 429 is waited out as the service's Retry-After says (each wait is shown).

Exit status: 0 complete; 1 stopped by a service error (run.json "partial"; run again to resume);
2 bad arguments or catalogue, nothing sent; 3 the key's monthly quota is exhausted (402): the
message says which rows were checked, run.json is "partial", run again when the quota allows.
`;

const VERIFY_HELP = `
Offline: the catalogue's SHA-256 against run.json; each check's submitted_digest recomputed from
the catalogue's rows with the service's own normaliser; each result_digest recomputed over its
receipt's matches; each receipt file against the SHA-256 run.json recorded; matches.csv against
what the receipts and the catalogue give.
Online (unless --offline): each receipt re-read from the service (GET /v1/checks/{id}, with the
key that ran the check) and compared with the saved one: all of "data", and "meta" except
meta.data_as_of, which is the corpus's freshness at the time of reading (the receipt's own
corpus_as_of is compared).

Exit status: 0 everything verified; 1 a difference (each is printed); 2 bad arguments, an
unreadable run folder, or the service unreachable or refusing the key.
`;

const DIFF_HELP = `
Both folders must hold complete runs of recalls check. Rows are paired by row id when both runs
used --id-column (so inserted rows do not shift the comparison), else by row number.

Exit status, as diff(1): 0 no difference; 1 differences; 2 trouble (a folder is not a complete run).
`;

/** Maps an action's failures to a message on stderr and the exit status. */
function guarded<A extends unknown[]>(action: (...args: A) => Promise<number> | number) {
  return async (...args: A): Promise<void> => {
    try {
      process.exitCode = await action(...args);
    } catch (error) {
      if (error instanceof CommandFailure || error instanceof RunFolderError) {
        process.stderr.write(`error: ${error.message}\n`);
        process.exitCode = error instanceof CommandFailure ? error.exitCode : EXIT.usage;
        return;
      }
      throw error;
    }
  };
}

/** Commander's own argument errors (a missing option, an unknown one) exit 2 here, as ours do. */
function usageExits(command: Command): Command {
  return command
    .showHelpAfterError(`(recalls ${command.name()} --help shows the options)`)
    .exitOverride((err) => {
      throw err.exitCode === 0 ? err : new CommanderError(EXIT.usage, err.code, err.message);
    });
}

function serviceOptions(command: Command, need: string): Command {
  return command
    .addOption(new Option('--url <url>', `the service's address${need}`).env('RECALLS_URL'))
    .addOption(new Option('--key <key>', 'API key').env('RECALLS_KEY'));
}

function oneCharacter(value: string): string {
  if (value !== '\\t' && [...value].length !== 1)
    throw new InvalidArgumentError('one character (\\t for a tab)');
  return value;
}

/** Adds check, verify and diff to `program`. */
export function registerCatalogueCommands(program: Command): void {
  const check = serviceOptions(
    program
      .command('check <file>')
      .description(
        'Check a catalogue (CSV or JSON lines) against the service; write matches.csv, receipts and run.json',
      ),
    '',
  )
    .requiredOption('--out <dir>', 'folder for matches.csv, receipts/ and run.json (run again to resume)')
    .option('--column <kind=column>', 'identifier column and its kind (repeatable)', parseColumnOption)
    .option('--kind-column <column>', "column holding each row's identifier kind")
    .option('--value-column <column>', "column holding each row's identifier (with --kind-column)")
    .option('--id-column <column>', 'column naming the row in the outputs (a SKU)')
    .option('--label <text>', "your reference, sent as each check's label with (i/n) appended")
    .addOption(
      new Option('--format <format>', 'catalogue format (default: by file extension)').choices([
        'csv',
        'jsonl',
      ]),
    )
    .option('--delimiter <char>', 'CSV delimiter (default , or tab for .tsv)', oneCharacter)
    .addHelpText('after', CHECK_HELP)
    .action(guarded((file: string, options: CheckCommandOptions) => runCheckCommand(file, options)));
  usageExits(check);

  const verify = serviceOptions(
    program
      .command('verify <dir>')
      .description("Verify a check run's receipts against its catalogue and the service")
      .requiredOption('--catalogue <file>', 'the catalogue the run checked')
      .option('--offline', 'do not ask the service; check the files only'),
    " (default: run.json's)",
  )
    .addHelpText('after', VERIFY_HELP)
    .action(guarded((dir: string, options: VerifyCommandOptions) => runVerifyCommand(dir, options)));
  usageExits(verify);

  const diff = program
    .command('diff <old_dir> <new_dir>')
    .description(
      'Recalls matched now and not before (and the reverse), per catalogue row, between two check runs',
    )
    .option('--json', 'print the differences as JSON')
    .addHelpText('after', DIFF_HELP)
    .action(
      guarded((oldDir: string, newDir: string, options: { json?: boolean }) =>
        runDiffCommand(oldDir, newDir, options),
      ),
    );
  usageExits(diff);
}
