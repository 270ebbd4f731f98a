/**
 * Match rules read from prose (../shared/spec/identifiers.md, "Match rules: prefixes and ranges"): a value
 * printed with a trailing wildcard (`KX2040GC*`, `AB12xxxx`) is a prefix rule, and the two ends of a range
 * ("40012000 to 40098999", `A2001-A2308`) a range rule, each only when the domain's rules allow one.
 * Anything else yields nothing: an end of a range is never a value, nor a wildcard's stem.
 */
import { prefixRule, rangeRule } from '../../domain/identifiers/match-rules.ts';
import { isDateLike } from './code-shapes.ts';

/**
 * A value and its trailing wildcard: `*`, a run of two or more `x`, or of three or more `X` (a code may
 * end in `XX` as printed, rarely in lower-case `xx`).
 */
const WILDCARD = /^([A-Za-z0-9](?:[A-Za-z0-9]|[-/.](?=[A-Za-z0-9]))*?)(?:\*+|x{2,}|X{3,})$/;
/** A wildcard token in running text, for sticky reads. */
export const WILDCARD_TOKEN =
  /[A-Za-z0-9](?:[A-Za-z0-9]|[-/.](?=[A-Za-z0-9]))*?(?:\*+|x{2,}|X{3,})(?![A-Za-z0-9*])/y;

/** Whether a token is printed with a trailing wildcard (whether or not its stem makes a rule). */
export function isWildcard(printed: string): boolean {
  const m = WILDCARD.exec(printed);
  // "xxxxx2308xxxxx" masks a position, "20XX" describes a format: a stem holds a digit and no run of x.
  return m !== null && /\d/.test(m[1]!) && !/[xX]{3,}/.test(m[1]!);
}

/** The prefix rule (`STEM*`) a wildcard value names, or undefined (no wildcard, or too short a stem). */
export function prefixOf(printed: string): string | undefined {
  if (!isWildcard(printed)) return undefined;
  return prefixRule(WILDCARD.exec(printed)![1]!);
}

/** A date whose order as a string is not its order in time: month or day first (`07/2021`, `15/08/2022`). */
function isUnorderedDate(end: string): boolean {
  return isDateLike(end) && !/^(?:19|20)\d{2}/.test(end);
}

/** A date code written month first without separators: `0722` (MMYY), `031924` (MMDDYY). */
const MONTH_FIRST_CODE = /^(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])?\d{2}$/;

/**
 * The range rule (`FROM..TO`) two printed ends name, or undefined: ends of two shapes, a from after its to,
 * dates written month or day first (of date codes, also without separators: `031924`), or the placeholder
 * span "0000000 to 9999999", which names every value.
 */
export function rangeOf(from: string, to: string, dateCodes = false): string | undefined {
  if (isUnorderedDate(from.trim()) || isUnorderedDate(to.trim())) return undefined;
  if (dateCodes && MONTH_FIRST_CODE.test(from.trim()) && MONTH_FIRST_CODE.test(to.trim())) return undefined;
  const rule = rangeRule(from, to);
  if (rule === undefined) return undefined;
  const [lo, hi] = rule.split('..') as [string, string];
  if (/^0+$/.test(lo) && /^9+$/.test(hi)) return undefined;
  return rule;
}

/** The two ends of a range glued by one dash (`40512-41780`, `A2001–A2308`) when they share one shape. */
export function gluedEnds(printed: string): [string, string] | undefined {
  const m = /^([A-Za-z0-9]+)[-\u2010-\u2013]([A-Za-z0-9]+)$/.exec(printed);
  if (m === null) return undefined;
  const [from, to] = [m[1]!, m[2]!];
  return rangeOf(from, to) === undefined ? undefined : [from, to];
}

/**
 * Whether a glued pair is a range rather than one code with a dash: its ends are long (seven characters
 * and more, where a code rarely repeats its shape around a dash), or the text says it lists ranges.
 */
export function readsAsRange(ends: readonly [string, string], rangesNamed: boolean): boolean {
  return rangesNamed || ends[0].length >= 7;
}

/** Words saying a text lists ranges: "serial number ranges", "ranging", "between", "within". */
export const RANGES_NAMED = /\brang(?:e|es|ing)\b|\bbetween\b|\bwithin\b/i;
