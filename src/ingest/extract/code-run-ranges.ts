/**
 * The second layer of the code-run reader: ranges ("A thru B", "between … and …", ends in groups that
 * mirror each other) and open bounds ("starting with FC32", "3114 or older") at a token.
 */
import { isDayDate } from './code-shapes.ts';
import { shape } from './code-run-columns.ts';
import { CodeRunTokens } from './code-run-tokens.ts';
import { BOUND_AFTER, BOUND_BEFORE, RANGE_WORDS } from './code-run-words.ts';

/** Ranges and open bounds over the tokens. */
export abstract class CodeRunRanges extends CodeRunTokens {
  /** The two ends of the range {@link boundAt} last found, as printed. */
  protected lastRange: { from: string; to: string; printed: string } | undefined;

  /**
   * The end of a range or open bound at token `i` ("A thru B", "starting with FC32"), or -1. A
   * capitalised word before a body's first value ends its header ("… Serial Number End 010-13").
   */
  protected boundAt(i: number, bodyStart: number): number {
    this.lastRange = undefined;
    const t = this.tokens[i]!;
    if (!/\d/.test(t.text)) return -1;
    const prev = this.tokens[i - 1]?.text ?? '';
    const prev2 = this.tokens[i - 2]?.text ?? '';
    const header = i === bodyStart && /^\p{Lu}/u.test(prev);
    // "ranging from 546515117 to 547916107": "from" opens a range, not a bound.
    const fromTo =
      /^from$/i.test(prev) &&
      RANGE_WORDS.has(this.tokens[i + 1]?.text.toLowerCase() ?? '') &&
      /\d/.test(this.tokens[i + 2]?.text ?? '');
    if (
      !header &&
      !fromTo &&
      (BOUND_BEFORE.test(prev) || (/^(?:with|in|at)$/i.test(prev) && BOUND_BEFORE.test(prev2)))
    ) {
      return i + 1;
    }
    // Ends in several groups, the same number each ("19K 0000000 000 to 22C 9999999 999").
    const groups = this.groupsAt(i);
    // Groups all of one shape are a list written with spaces ("QB1201 QB1388 - QB1499"), not one end.
    const oneShape = new Set(this.tokens.slice(i, i + groups).map((g) => shape(g.text))).size === 1;
    if (groups >= 2 && !oneShape && RANGE_WORDS.has(this.tokens[i + groups]?.text.toLowerCase() ?? '')) {
      const ends = this.mirroredEnds(i, groups);
      if (ends !== undefined) return ends;
    }
    // The first end may be in two groups ("17348 L24 - 23320 K26").
    const end = this.grouped(i) ? i + 2 : i + 1;
    const next = this.tokens[end]?.text.toLowerCase() ?? '';
    const other = this.tokens[end + 1]?.text ?? '';
    // "between 37567 2442 and 37567 2451": ends in groups, one mirroring the other.
    if (/^between$/i.test(prev) && groups >= 2 && this.tokens[i + groups]?.text.toLowerCase() === 'and') {
      const ends = this.mirroredEnds(i, groups);
      if (ends !== undefined) return ends;
    }
    // "between A2001 and A2310", "between 0125 (January 2025) and 0825".
    if (/^between$/i.test(prev)) {
      let word = end;
      if (this.tokens[word]?.text === '(') {
        const close = this.tokens.findIndex((tk, k) => k > word && k <= word + 8 && tk.text === ')');
        if (close !== -1) word = close + 1;
      }
      const after = this.tokens[word + 1]?.text ?? '';
      if (this.tokens[word]?.text.toLowerCase() === 'and' && /\d/.test(after)) {
        const stop = end === i + 2 && this.grouped(word + 1) ? word + 3 : word + 2;
        const r = this.rangeEnds(i, word, stop);
        this.lastRange = { ...this.lastRange!, from: this.text.slice(t.start, this.tokens[end - 1]!.end) };
        return r;
      }
    }
    // "N00265 - 03/31/2025" is a lot and its expiry, not a range; "R09894 - 18Volt Nailer", a dash between
    // a code and a name of another shape, is no range either.
    const dashed = /^[-–—~]$/.test(next) && end === i + 1 && shape(t.text) !== shape(other);
    if (RANGE_WORDS.has(next) && /\d/.test(other) && !isDayDate(other) && !dashed) {
      // The second end is in two groups only when the first is ("… - 40012999 T40" ends before T40).
      return this.rangeEnds(i, end, end === i + 2 && this.grouped(end + 1) ? end + 3 : end + 2);
    }
    if (/^(?:or|and)$/.test(next) && BOUND_AFTER.test(this.tokens[end + 1]?.text ?? '')) return end + 2;
    return -1;
  }

  /**
   * Notes the range whose first end is tokens `from`…`word - 1` and second `word + 1`…`end - 1` (the range
   * word between), for the body to read as a rule; returns `end`.
   */
  private rangeEnds(from: number, word: number, end: number): number {
    const at = (a: number, b: number) => this.text.slice(this.tokens[a]!.start, this.tokens[b - 1]!.end);
    this.lastRange = { from: at(from, word), to: at(word + 1, end), printed: at(from, end) };
    return end;
  }

  /**
   * The end of a range whose first end is the `groups` groups at token `i` and whose second, after one word
   * ("to", "and"), mirrors it group by group in length and shape; undefined when it does not.
   */
  private mirroredEnds(i: number, groups: number): number | undefined {
    const to = i + groups + 1;
    const mirrors = (k: number) => {
      const [a, b] = [this.tokens[i + k]!.text, this.tokens[to + k]?.text ?? ''];
      return a.length === b.length && shape(a) === shape(b);
    };
    if (this.groupsAt(to) < groups || ![...Array(groups).keys()].every(mirrors)) return undefined;
    return this.rangeEnds(i, i + groups, to + groups);
  }
}
