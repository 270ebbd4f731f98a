/**
 * How identifier extraction scores on the validation part of the hand-labelled truth set (`test/truth/`,
 * records labelled by reading them under ../shared/spec/labelling.md; no rule is written from this part).
 * `docs/extraction.md` explains the measure; `recalls report` prints these figures with their date, and a test
 * fails when extraction no longer scores exactly this, so the figures cannot go stale.
 */

/** One source's counts on the validation part. */
export interface ValidationScore {
  /** Labelled records of the source in the validation part. */
  records: number;
  /** Firm identifiers labelled in them. */
  firm: number;
  /** Firm identifiers extraction finds. */
  found: number;
  /** Extractions that count (not matching an optional item only), and of them those matching a firm item. */
  extractions: number;
  correct: number;
  /** Records read exactly right: no wrong extraction and no firm identifier missed. */
  exact: number;
}

/** The day the figures were measured (UTC). */
export const EXTRACTION_MEASURED_ON = '2026-11-28';

/** Per source with real labelled records. */
export const VALIDATION_SCORES: Readonly<Record<string, ValidationScore>> = {
  'uk-fsa': { records: 18, firm: 0, found: 0, extractions: 0, correct: 0, exact: 18 },
  'us-cpsc': { records: 181, firm: 758, found: 714, extractions: 756, correct: 715, exact: 160 },
  'us-fda-device': { records: 4, firm: 12, found: 12, extractions: 12, correct: 12, exact: 4 },
  'us-fda-drug': { records: 2, firm: 7, found: 7, extractions: 7, correct: 7, exact: 2 },
  'us-fda-food': { records: 15, firm: 18, found: 18, extractions: 18, correct: 18, exact: 15 },
  'us-fsis': { records: 16, firm: 41, found: 41, extractions: 41, correct: 41, exact: 16 },
};

/** The share of records read exactly right, with its counts: `0.950 (172/181)`. */
function exactShare(score: ValidationScore): string {
  return `${(score.records === 0 ? 1 : score.exact / score.records).toFixed(3)} (${score.exact}/${score.records})`;
}

/** One line for a report: precision, recall and records read exactly right, or why there are none. */
export function describeScore(score: ValidationScore): string {
  if (score.firm === 0) {
    return (
      `no firm identifier in its ${score.records} labelled validation records (${score.extractions} extracted), ` +
      `records read exactly right ${exactShare(score)}`
    );
  }
  const precision = score.extractions === 0 ? 1 : score.correct / score.extractions;
  return (
    `precision ${precision.toFixed(3)} (${score.correct}/${score.extractions}), ` +
    `recall ${(score.found / score.firm).toFixed(3)} (${score.found}/${score.firm}), ` +
    `records read exactly right ${exactShare(score)} ` +
    `on ${score.records} hand-labelled validation records`
  );
}
