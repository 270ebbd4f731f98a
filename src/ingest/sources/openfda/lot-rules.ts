/**
 * A lot form of FDA enforcement text that the shared prose rules do not read: a lot "may be followed by" a
 * suffix (a footnote, a parenthesis or a clause: "may be followed by 01–99", "followed by a two-digit
 * suffix", "-01 through -99") names every lot that starts with it, a prefix rule
 * (`../../../../shared/spec/identifiers.md`, "Match rules").
 */
import { prefixRule } from '../../../domain/identifiers/match-rules.ts';
import type { Identifier } from '../../../domain/recall.ts';
import { extractLabelledIdentifiers } from '../../extract/labelled-identifiers.ts';

/** A suffix's span: `01-99`, `01–99`, `-01 through -99`, `01 to 99`. */
const SUFFIX_SPAN = String.raw`-?\d{1,3}\s{0,3}(?:[-\u2010-\u2015]|to|through|thru)\s{0,3}-?\d{1,3}`;

/**
 * The words saying a printed lot is only the beginning of the lots it names, up to the clause's end:
 * "may be followed by …", "(can be) followed by a two-digit suffix", "with a suffix -01 to -99",
 * or a bare suffix span after a lot's first suffix ("1234567-01 through -99"). The subject before
 * them ("*Lot numbers", "each lot", "which") goes with them, and what follows up to the clause's
 * end (`.`, `,`, `;`, `)`, a line break); a parenthesis around them too. Every repetition is bounded
 * (a few spaces between words, four subject words, 300 characters of clause), so the pattern, tried at
 * every position, costs time in proportion to the text's length whatever runs of spaces or words it holds.
 */
const FOLLOWED_BY = new RegExp(
  String.raw`\(?\s{0,3}(?:\*{1,3}\s{0,3})?(?:(?:the|each|all|these|any|above|listed|which|that|and)\s{1,3}){0,4}` +
    String.raw`(?:(?:lot|batch|serial)s?\s{0,3}(?:numbers?|nos?\.?|codes?|#)?\s{0,3})?` +
    String.raw`(?:(?:may|can|could|will|might)\s{1,3}(?:also\s{1,3})?(?:be\s{1,3})?(?:followed|succeeded|appended)\s{1,3}(?:by|with)` +
    String.raw`|followed\s{1,3}by\s{1,3}(?:an?\s{1,3}|any\s{1,3})?(?:one|two|three|1|2|3)[-\s]digit` +
    String.raw`|with\s{1,3}(?:an?\s{1,3}|any\s{1,3})?(?:(?:one|two|three|1|2|3)[-\s]digit\s{1,3})?suffix(?:es)?\s{1,3}${SUFFIX_SPAN}` +
    String.raw`|(?<=\d)-\d{1,3}\s{1,3}(?:to|through|thru)\s{1,3}-\d{1,3}(?![\d]))` +
    String.raw`[^.,;)\n]{0,300}\)?`,
  'gi',
);

/** A lot marked as the footnote's (`1234567*`): its stem. */
const MARKED = /([A-Za-z0-9](?:[A-Za-z0-9./-]*[A-Za-z0-9])?)\*(?![A-Za-z0-9])/g;

/** Whether a text says its lots "may be followed by" a suffix. */
export function saysFollowedBy(text: string | null | undefined): boolean {
  return [...(text ?? '').matchAll(FOLLOWED_BY)].length > 0;
}

/**
 * The identifiers of one FDA text field, with "may be followed by" lots as prefix rules. Without
 * such words (in the field, or after it: `footnoteAfter`, for `code_info` when `more_code_info`,
 * its continuation, holds them), exactly the shared rules' answer. With them, the words are removed
 * and the field is read again; its lots become prefix rules (`STEM*`, confidence `inferred`): the
 * lots marked with a `*` when any is, else every lot printed before the words. A stem too short for
 * a rule (under 5 characters or no digit) stays the lot it was.
 */
export function fieldIdentifiers(text: string, opts: { footnoteAfter?: boolean } = {}): Identifier[] {
  const matches = [...text.matchAll(FOLLOWED_BY)];
  if (matches.length === 0 && opts.footnoteAfter !== true) return extractLabelledIdentifiers(text);

  const marked = new Set<string>();
  const unmarked = (t: string) =>
    t.replace(MARKED, (_all, stem: string) => {
      marked.add(stem.toUpperCase());
      return stem;
    });
  let end = 0;
  let head = '';
  for (const m of matches) {
    head += text.slice(end, m.index);
    end = m.index! + m[0].length;
  }
  head = unmarked(head + (matches.length === 0 ? text : ''));
  const cleaned = matches.length === 0 ? head : `${head} ${unmarked(text.slice(end))}`;
  const found = extractLabelledIdentifiers(cleaned);
  return found.map((id) => {
    if (id.kind !== 'lot' && id.kind !== 'batch') return id;
    const at = cleaned.indexOf(id.value);
    const applies = marked.size > 0 ? marked.has(id.value.toUpperCase()) : at !== -1 && at < head.length;
    if (!applies) return id;
    const rule = prefixRule(id.value);
    return rule === undefined
      ? id
      : { kind: 'lot', value: `${id.value}*`, normalized: rule, confidence: 'inferred' };
  });
}
