/**
 * Match rules (../shared/spec/identifiers.md, "Match rules: prefixes and ranges"): a prefix (`STEM*`) or a
 * range (`FROM..TO`) of model or lot values, stored as an identifier whose `normalized` no exact value can
 * take (exact forms hold only `A-Z0-9`).
 *
 * Each rule is stored under one bucket key, and a supplied value probes the few buckets it can fall in, so a
 * lookup reads only the rules that share a bucket with it, by index, and `ruleMatches` confirms each:
 * - a prefix rule's bucket is its stem cut to the longest of {@link STEM_BUCKETS} that fits;
 * - a range's bucket is its ends' shape (digits as `0`, letters as they are) and the digits of their common
 *   beginning (its letters are in the shape) cut to the longest of {@link RANGE_BUCKETS} that fits: a value
 *   inside the range has that shape and begins with that common beginning.
 */
import { normaliseTextCode } from './text-codes.ts';

/** A prefix rule's stem has at least this many characters (and a digit). */
export const MIN_STEM_LENGTH = 5;
/** A range's ends have at least this many characters. */
export const MIN_RANGE_END_LENGTH = 4;

/**
 * The lengths a stem is cut to for its bucket (a value probes each that it reaches), and those the digits of
 * a range's common beginning are. Few and short, so that a value probes three buckets at most and the values
 * of a catalogue check share most of theirs (the statement reads each key once); long enough that a bucket
 * holds the rules of one product family, not all of a shape.
 */
const STEM_BUCKETS = [4] as const;
const RANGE_BUCKETS = [0, 2] as const;

/** The families whose values rules name: models, and lots (lot, batch and serial numbers). */
type RuleFamily = 'model' | 'lot';

/** A stored rule, read from its `normalized` form. */
export type MatchRule = { rule: 'prefix'; stem: string } | { rule: 'range'; from: string; to: string };

/** A rule's stored form: `STEM*` or `FROM..TO` of `A-Z0-9` (a `udi` form such as `hibcc:…` is never one). */
const RULE_FORM = /^([A-Z0-9]+)(?:\*|\.\.([A-Z0-9]+))$/;

/** The rule a stored `normalized` form is, or undefined for an exact value. */
export function parseRule(normalized: string): MatchRule | undefined {
  const m = RULE_FORM.exec(normalized);
  if (m === null) return undefined;
  return m[2] === undefined ? { rule: 'prefix', stem: m[1]! } : { rule: 'range', from: m[1]!, to: m[2] };
}

/** Whether a stored `normalized` form is a rule. */
export function isRule(normalized: string): boolean {
  return RULE_FORM.test(normalized);
}

/** A value's shape: each digit as `0`, letters as they are (`A2001` → `A0000`). */
function shapeOf(value: string): string {
  return value.replace(/[0-9]/g, '0');
}

const hasDigit = (value: string) => /[0-9]/.test(value);

/** A value's digits, in order (`12A34` → `1234`). */
const digitsOf = (value: string) => value.replace(/[^0-9]/g, '');

/** The normalized form of the prefix rule a printed stem names (`KX-2040GC` → `KX2040GC*`), if it may be one. */
export function prefixRule(stem: string): string | undefined {
  const n = normaliseTextCode(stem);
  if (!n.ok || n.normalized.length < MIN_STEM_LENGTH || !hasDigit(n.normalized)) return undefined;
  return `${n.normalized}*`;
}

/**
 * The normalized form of the range two printed ends name (`A2001`, `A-2308` → `A2001..A2308`), if they may
 * be one: the same length (at least 4), the same shape (so equal letters), and from ≤ to.
 */
export function rangeRule(from: string, to: string): string | undefined {
  const a = normaliseTextCode(from);
  const b = normaliseTextCode(to);
  if (!a.ok || !b.ok) return undefined;
  const [lo, hi] = [a.normalized, b.normalized];
  if (lo.length !== hi.length || lo.length < MIN_RANGE_END_LENGTH) return undefined;
  if (shapeOf(lo) !== shapeOf(hi) || lo > hi) return undefined;
  return `${lo}..${hi}`;
}

/** Whether a normalised value lies under a stored rule (by its `normalized` form). */
export function ruleMatches(rule: string, value: string): boolean {
  const parsed = parseRule(rule);
  if (parsed === undefined) return false;
  if (parsed.rule === 'prefix') return value.startsWith(parsed.stem);
  return (
    value.length === parsed.from.length &&
    shapeOf(value) === shapeOf(parsed.from) &&
    parsed.from <= value &&
    value <= parsed.to
  );
}

/** The longest bucket length of `buckets` not over `length`. */
function bucket(buckets: readonly number[], length: number): number {
  let best = buckets[0]!;
  for (const b of buckets) if (b <= length) best = b;
  return best;
}

/** The storage key of a rule of `family` (by its `normalized` form): its bucket. */
export function ruleKey(family: RuleFamily, rule: MatchRule): string {
  if (rule.rule === 'prefix')
    return `${family}*${rule.stem.slice(0, bucket(STEM_BUCKETS, rule.stem.length))}`;
  let common = 0;
  while (common < rule.from.length && rule.from[common] === rule.to[common]) common++;
  const digits = digitsOf(rule.from.slice(0, common));
  return `${family}..${shapeOf(rule.from)}:${digits.slice(0, bucket(RANGE_BUCKETS, digits.length))}`;
}

/** The bucket keys a normalised value of `family` probes for the rules that may hold it. */
export function ruleProbeKeys(family: RuleFamily, value: string): string[] {
  if (value.length < MIN_RANGE_END_LENGTH) return [];
  const keys: string[] = [];
  const digits = digitsOf(value);
  // A stem has at least MIN_STEM_LENGTH characters and a digit, so a value under one has them too.
  if (value.length >= MIN_STEM_LENGTH && digits.length > 0)
    for (const b of STEM_BUCKETS) if (b <= value.length) keys.push(`${family}*${value.slice(0, b)}`);
  const shape = shapeOf(value);
  for (const b of RANGE_BUCKETS)
    if (b <= digits.length) keys.push(`${family}..${shape}:${digits.slice(0, b)}`);
  return keys;
}
