/**
 * Relaying a child process's output (the scheduled `recalls ingest` of `serve`) into serve's own
 * log, one JSON object per line: a child's JSON log line is logged again at its level with its
 * fields kept, and marked with `child`; any other line becomes the message of a line so marked.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';

/** Fields pino writes itself on every line, taken from serve's logger rather than the child's. */
const OWN_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

/** Which child a relayed line came from, and on which stream. */
export interface ChildMark {
  /** The child's name, e.g. `ingest`. */
  child: string;
  childPid?: number;
  stream: 'stdout' | 'stderr';
}

/**
 * Logs one line of a child's output through `logger`. A JSON object line keeps its fields and
 * its level (a numeric pino level or a level name); other lines are logged at `info` (stdout)
 * or `warn` (stderr). Blank lines are dropped.
 */
export function relayChildLine(logger: Logger, line: string, mark: ChildMark): void {
  const text = line.trim();
  if (text === '') return;
  const fallback = mark.stream === 'stdout' ? 'info' : 'warn';
  let record: unknown;
  try {
    record = text.startsWith('{') ? JSON.parse(text) : undefined;
  } catch {
    record = undefined;
  }
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    logger[fallback](mark, text);
    return;
  }
  const child = record as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(child)) if (!OWN_FIELDS.has(key)) fields[key] = value;
  Object.assign(fields, mark);
  const level = levelOf(logger, child.level) ?? fallback;
  verbatim(logger)[level](fields, typeof child.msg === 'string' ? child.msg : '');
}

const verbatimLoggers = new WeakMap<Logger, Logger>();

/** `logger` without its `err` serializer: a child's error is already serialised, and kept as is. */
function verbatim(logger: Logger): Logger {
  let relay = verbatimLoggers.get(logger);
  if (relay === undefined) {
    relay = logger.child({}, { serializers: { err: (value: unknown) => value } });
    verbatimLoggers.set(logger, relay);
  }
  return relay;
}

/** Relays every line of `stream` (see {@link relayChildLine}); lines cut across chunks are joined first. */
export function relayChildOutput(logger: Logger, stream: Readable, mark: ChildMark): void {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) =>
    relayChildLine(logger, line, mark),
  );
}

type LevelName = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

function levelOf(logger: Logger, level: unknown): LevelName | undefined {
  const name = typeof level === 'number' ? logger.levels.labels[level] : level;
  return typeof name === 'string' && ['trace', 'debug', 'info', 'warn', 'error', 'fatal'].includes(name)
    ? (name as LevelName)
    : undefined;
}
