/**
 * The first layer of the code-run reader: the text, its tokens and labels, and what a token or a few
 * together are (a label's start, a code in groups, a barcode in digit groups, a measure, a bracketed detail).
 */
import type { IdentifierKind } from '../../domain/identifiers/kinds.ts';
import { normaliseIdentifier } from '../../domain/identifiers/normalise.ts';
import { isYear } from './code-shapes.ts';
import type { Label } from './labels.ts';
import type { Token } from './tokens.ts';

/** The tokens of a text and the labels among them, as the code-run reader looks at them. */
export abstract class CodeRunTokens {
  private readonly labelAt = new Map<number, Label>();
  /** Whether the text is in capitals (NHTSA), where capitals say nothing; computed when first asked. */
  private capitalsCache: boolean | undefined;

  constructor(
    protected readonly text: string,
    protected readonly tokens: readonly Token[],
    labels: readonly Label[],
  ) {
    for (const label of labels) this.labelAt.set(label.start, label);
  }

  protected get capitals(): boolean {
    if (this.capitalsCache === undefined) {
      const letters = this.text.replace(/[^A-Za-z]/g, '');
      this.capitalsCache = letters.length > 0 && letters.replace(/[^A-Z]/g, '').length / letters.length > 0.7;
    }
    return this.capitalsCache;
  }

  protected tokenAt(offset: number): number {
    let lo = 0;
    let hi = this.tokens.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.tokens[mid]!.start < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  protected labelStartingAt(i: number): Label | undefined {
    const t = this.tokens[i];
    return t === undefined ? undefined : this.labelAt.get(t.start);
  }

  /** How many groups of a code start at token `i`: runs with a digit, one space apart (at most four). */
  protected groupsAt(i: number): number {
    let n = 0;
    for (let j = i; j < this.tokens.length && n < 4; j++) {
      const t = this.tokens[j]!;
      if (!/\d/.test(t.text) || !/^[A-Za-z0-9][A-Za-z0-9-]*$/.test(t.text)) break;
      if (j > i && this.text.slice(this.tokens[j - 1]!.end, t.start) !== ' ') break;
      n += 1;
    }
    return n;
  }

  /** Whether token `i` and the next are one code in two groups ("17348 L24", "2023 32-58"). */
  protected grouped(i: number): boolean {
    const [t, next] = [this.tokens[i], this.tokens[i + 1]];
    return (
      t !== undefined &&
      next !== undefined &&
      /\d/.test(t.text) &&
      (/^[A-Z]{1,2}\d{1,2}$/.test(next.text) || (isYear(t.text) && /^\d{1,2}-\d{1,3}$/.test(next.text))) &&
      this.text.slice(t.end, next.start) === ' '
    );
  }

  protected inBracketsAfterWord(i: number): boolean {
    for (let j = i - 1; j >= 0 && j >= i - 8; j--) {
      const t = this.tokens[j]!.text;
      if (t === ')') return false;
      if (t === '(') {
        const before = this.tokens[j - 1]?.text ?? '';
        return /^[A-Za-z][A-Za-z'’-]*$/.test(before) && !/\d/.test(before);
      }
    }
    return false;
  }

  /** A number with a glued inch or foot mark (`72"`), not the closing quote of `"0214"`. */
  protected isMeasureMark(i: number): boolean {
    const [prev, t, next] = [this.tokens[i - 1], this.tokens[i]!, this.tokens[i + 1]];
    if (next === undefined || next.start !== t.end || !/^["'”’]$/.test(next.text) || !/^\d+$/.test(t.text))
      return false;
    return !(prev !== undefined && prev.end === t.start && /^["'“‘]$/.test(prev.text));
  }

  /** A barcode at token `i`, possibly in digit groups ("0 50875 82840 7"). */
  protected barcodeAt(i: number, kind: IdentifierKind): { value: string; next: number } | null {
    let digits = '';
    let best: { value: string; next: number } | null = null;
    for (let j = i; j < this.tokens.length && j < i + 6; j++) {
      const t = this.tokens[j]!;
      if (!/^\d[\d-]*$/.test(t.text) || (j > i && t.start - this.tokens[j - 1]!.end !== 1)) break;
      digits += t.text.replace(/-/g, '');
      if (digits.length > 14) break;
      if (digits.length >= 11) {
        const value = this.text.slice(this.tokens[i]!.start, t.end);
        if (normaliseIdentifier(kind, value).ok) best = { value, next: j + 1 };
      }
    }
    return best;
  }
}
