/**
 * Lot forms of FDA enforcement text that the shared prose rules do not read, each by a general rule:
 *
 * - a lot "may be followed by" a suffix (a footnote, a parenthesis or a clause: "may be followed by
 *   01–99", "followed by a two-digit suffix", "-01 through -99") names every lot that starts with it:
 *   a prefix rule (`../../../../shared/spec/identifiers.md`, "Match rules");
 * - a labelled lot list whose items are a date-like part and a short code glued by a space
 *   (`Lot Numbers: 2019/04 KT, 2019/05 KT`) gives one lot per item.
 */
import { normaliseIdentifier } from '../../../domain/identifiers/normalise.ts';
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
  const lots = dateCodeLots(text);
  if (matches.length === 0 && opts.footnoteAfter !== true)
    return withDateCodeLots(extractLabelledIdentifiers(text), lots);

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
  return withDateCodeLots(
    found.map((id) => {
      if (id.kind !== 'lot' && id.kind !== 'batch') return id;
      const at = cleaned.indexOf(id.value);
      const applies = marked.size > 0 ? marked.has(id.value.toUpperCase()) : at !== -1 && at < head.length;
      if (!applies) return id;
      const rule = prefixRule(id.value);
      return rule === undefined
        ? id
        : { kind: 'lot', value: `${id.value}*`, normalized: rule, confidence: 'inferred' };
    }),
    lots,
  );
}

/** A lot label, then the list: `Lot Numbers:`, `Lots`, `Lot #`, `Lot Codes:`, `Batch No.`. */
const LOT_LIST_LABEL = /\b(?:lot|batch)s?\s{0,3}(?:numbers?|nos?\.?|codes?|#)?\s{0,3}[:#]?\s{0,3}/gi;
/** A date-like part (`2019/04`, `04/2019`, `2019-04`) and a short upper-case code glued by one space. */
const DATE_CODE_ITEM = String.raw`(?:(?:19|20)\d{2}[/.-]\d{1,2}|\d{1,2}[/.-](?:19|20)\d{2})\s[A-Z]{1,3}\d{0,2}(?![A-Za-z0-9/])`;
const DATE_CODE_LIST = new RegExp(
  String.raw`^(${DATE_CODE_ITEM}(?:\s{0,3}(?:[,;&]|\band\b)\s{0,3}${DATE_CODE_ITEM})*)`,
);

/**
 * Lots of a labelled list whose items are a date-like part and a short code (`Lot Numbers: 2019/04
 * KT, 2019/05 KT and 2020/01 AB`): one `lot` each, `inferred`, as printed (`2019/04 KT` → `201904KT`).
 * Only right after a lot label: a date and a code elsewhere are an expiry and a word.
 */
export function dateCodeLots(text: string): Identifier[] {
  const out: Identifier[] = [];
  for (const label of text.matchAll(LOT_LIST_LABEL)) {
    const rest = text.slice(label.index! + label[0].length);
    const list = DATE_CODE_LIST.exec(rest);
    if (list === null) continue;
    for (const item of list[1]!.match(new RegExp(DATE_CODE_ITEM, 'g')) ?? []) {
      const n = normaliseIdentifier('lot', item);
      if (n.ok) out.push({ kind: 'lot', value: item, normalized: n.normalized, confidence: 'inferred' });
    }
  }
  return out;
}

/** The shared rules' identifiers with the date-code lots added and their pieces (`2019/04`, `KT`) removed. */
function withDateCodeLots(found: Identifier[], lots: Identifier[]): Identifier[] {
  if (lots.length === 0) return found;
  const pieces = new Set(lots.flatMap((l) => l.value.toUpperCase().split(' ')));
  return [
    ...found.filter(
      (id) => !((id.kind === 'lot' || id.kind === 'batch') && pieces.has(id.value.toUpperCase())),
    ),
    ...lots,
  ];
}
