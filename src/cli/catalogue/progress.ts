/** Progress of a run on stderr: a bar on a terminal, one line per step otherwise (logs, CI). */
import cliProgress from 'cli-progress';

export interface Progress {
  /** A step is done: advance by `amount` and, off a terminal, print `line`. */
  step(amount: number, line: string): void;
  /** A message that must be seen (a wait on 429): above the bar on a terminal, a line otherwise. */
  note(message: string): void;
  stop(): void;
}

/** A progress display over `total` units, `done` of them already done. */
export function createProgress(options: { total: number; done: number; unit: string }): Progress {
  const stream = process.stderr;
  if (stream.isTTY !== true) {
    return {
      step: (_amount, line) => stream.write(`${line}\n`),
      note: (message) => stream.write(`${message}\n`),
      stop: () => {},
    };
  }
  const bars = new cliProgress.MultiBar(
    { format: ` checking |{bar}| {value}/{total} ${options.unit} {eta_formatted}`, hideCursor: true, stream },
    cliProgress.Presets.shades_classic,
  );
  const bar = bars.create(options.total, options.done);
  return {
    step: (amount) => bar.increment(amount),
    note: (message) => bars.log(`${message}\n`),
    stop: () => bars.stop(),
  };
}
