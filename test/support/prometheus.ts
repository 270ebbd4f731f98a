/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), for tests of `/metrics`: every
 * line must be a comment, a HELP or TYPE line, or a sample of a family declared by a TYPE line before it;
 * anything else throws, naming the line.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Family name → its type (counter, gauge, histogram, summary, untyped). */
  types: Map<string, string>;
  samples: Sample[];
  /** The value of the one sample of `name` whose labels include `labels`; undefined when none, throws when several. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** Every sample of `name` whose labels include `labels`. */
  all(name: string, labels?: Record<string, string>): Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/;
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];
const SUFFIXES: Record<string, string[]> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['_sum', '_count', ''],
};

/**
 * A sample's value as Prometheus reads it (Go's `ParseFloat`): a decimal, or NaN and Inf in any case with an
 * optional sign. prom-client writes an empty mean as `Nan`, the event loop lag's before its first sample.
 */
function number(text: string, line: string): number {
  const special = /^([+-]?)(nan|inf|infinity)$/i.exec(text);
  if (special) return special[2]!.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
  const n = Number(text);
  if (text === '' || Number.isNaN(n)) throw new Error(`not a number in: ${line}`);
  return n;
}

function labelsOf(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest !== '') {
    const m = LABEL.exec(rest);
    if (m === null) throw new Error(`bad labels in: ${line}`);
    if (m[1]! in labels) throw new Error(`label ${m[1]} twice in: ${line}`);
    labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(m[0].length);
  }
  return labels;
}

/** The family a sample name belongs to, given the families declared so far. */
function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name) && !SUFFIXES[types.get(name)!]) return name;
  for (const [family, type] of types) {
    for (const suffix of SUFFIXES[type] ?? []) if (name === family + suffix) return family;
  }
  return undefined;
}

export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (m === null) continue; // a plain comment
      if (!new RegExp(`^${NAME}$`).test(m[2]!)) throw new Error(`bad metric name in: ${line}`);
      if (m[1] === 'TYPE') {
        if (!TYPES.includes(m[3]!)) throw new Error(`unknown type in: ${line}`);
        if (types.has(m[2]!)) throw new Error(`TYPE given twice: ${line}`);
        types.set(m[2]!, m[3]!);
      }
      continue;
    }
    const m = SAMPLE.exec(line);
    if (m === null) throw new Error(`not a sample line: ${line}`);
    if (familyOf(m[1]!, types) === undefined) throw new Error(`sample of no declared family: ${line}`);
    samples.push({ name: m[1]!, labels: labelsOf(m[2] ?? '', line), value: number(m[3]!, line) });
  }
  const all = (name: string, labels: Record<string, string> = {}) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return {
    types,
    samples,
    all,
    value(name, labels) {
      const found = all(name, labels);
      if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
      return found[0]?.value;
    },
  };
}
