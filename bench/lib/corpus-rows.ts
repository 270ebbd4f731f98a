/** The rows ingestion would have stored for a synthetic record: shared by the corpus builder and its workers. */
import { canonicalContent, contentHash, diffContent } from '../../src/domain/diff.ts';
import { recallId, type RecallContent } from '../../src/domain/recall.ts';
import {
  IDENTIFIER_COLUMNS,
  identifierRows,
  RECALL_COLUMNS,
  recallColumns,
} from '../../src/store/recall-rows.ts';
import type { SyntheticRecall } from './synthetic.ts';

const OBSERVED_FIRST = '2026-06-10T04:00:00.000Z';
export const OBSERVED_LAST = '2026-06-17T04:00:00.000Z';
export const DATA_AS_OF = '2026-06-17';

export { IDENTIFIER_COLUMNS, RECALL_COLUMNS };
export const REVISION_COLUMNS = [
  'recall_id',
  'revision',
  'observed_at',
  'changed_fields',
  'data_as_of',
] as const;

type Row = Record<string, string | number | null>;

/** The rows ingestion would have stored for one synthetic record (after its amendments). */
export function rowsOf(r: SyntheticRecall): { recall: Row; identifiers: Row[]; revisions: Row[] } {
  const id = recallId(r.sourceId, r.draft.recordId);
  const obs = { sourceId: r.sourceId, jurisdiction: r.jurisdiction };
  const content = canonicalContent(r.draft);
  const revisions: Row[] = [];
  let before: RecallContent | undefined;
  for (const [i, earlier] of [...r.earlier, r.draft].entries()) {
    const c = canonicalContent(earlier);
    if (before !== undefined) {
      revisions.push({
        recall_id: id,
        revision: i + 1,
        observed_at: OBSERVED_LAST,
        changed_fields: JSON.stringify(diffContent(before, c)),
        data_as_of: DATA_AS_OF,
      });
    }
    before = c;
  }
  const recall: Row = {
    ...recallColumns(id, obs, r.draft, content, contentHash(content)),
    revision: r.earlier.length + 1,
    first_seen_at: r.earlier.length > 0 ? OBSERVED_FIRST : OBSERVED_LAST,
    last_seen_at: OBSERVED_LAST,
  };
  return { recall, identifiers: identifierRows(id, content), revisions };
}
