/**
 * Records the text and parameters of every statement this process runs on a database, below our code: the
 * methods that run a better-sqlite3 statement (SQLite) and pg's `Client#query` (PostgreSQL) are wrapped while
 * recording, so a test can count what a request costs the database, or ask for a statement's plan.
 */
import pg from 'pg';
import { SQLite } from '../../src/store/engines/sqlite-driver.ts';

export interface StatementRecording {
  /** Statement texts, in the order they ran. */
  readonly texts: string[];
  /** Each statement's parameters, beside its text. */
  readonly params: unknown[][];
  /** Puts the driver methods back. */
  stop(): void;
}

type Method = (this: unknown, ...args: unknown[]) => unknown;

function wrap(
  target: Record<string, unknown>,
  names: string[],
  textOf: (self: any, args: unknown[]) => string,
  paramsOf: (args: unknown[]) => unknown[],
) {
  const texts: string[] = [];
  const params: unknown[][] = [];
  const originals = names.map((name) => [name, target[name] as Method] as const);
  for (const [name, original] of originals) {
    target[name] = function (this: unknown, ...args: unknown[]) {
      texts.push(textOf(this, args));
      params.push(paramsOf(args));
      return original.apply(this, args);
    };
  }
  return {
    texts,
    params,
    stop() {
      for (const [name, original] of originals) target[name] = original;
    },
  };
}

/** Starts recording the statements run on `engine` by anything in this process. */
export function recordStatements(engine: 'sqlite' | 'postgres'): StatementRecording {
  if (engine === 'postgres') {
    return wrap(
      pg.Client.prototype as never,
      ['query'],
      (_self, [config]) =>
        typeof config === 'string' ? config : String((config as { text?: unknown } | undefined)?.text),
      ([config, values]) =>
        Array.isArray(values) ? values : ((config as { values?: unknown[] } | undefined)?.values ?? []),
    );
  }
  const probe = new SQLite(':memory:');
  const statementPrototype = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, unknown>;
  probe.close();
  return wrap(
    statementPrototype,
    ['all', 'get', 'run', 'iterate'],
    (self) => String(self.source),
    (args) => (args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args),
  );
}
