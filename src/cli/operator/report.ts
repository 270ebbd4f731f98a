/** Formats the data-quality report, and an ingest's outcome per source, for a terminal or a note. */
import {
  describeScore,
  EXTRACTION_MEASURED_ON,
  VALIDATION_SCORES,
} from '../../ingest/extract/extraction-scores.ts';
import type { SourceOutcome } from '../../ingest/pipeline.ts';
import type { SourceQuality } from '../../store/report-store.ts';

function pct(n: number, of: number): string {
  return of === 0 ? '–' : `${((100 * n) / of).toFixed(1)} %`;
}

function distribution(counts: Record<string, number>, total: number): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([k, n]) => `${k} ${n} (${pct(n, total)})`)
    .join(', ');
}

export function formatQualityReport(rows: SourceQuality[]): string {
  if (rows.length === 0) return 'no records\n';
  const lines: string[] = [];
  for (const r of rows) {
    const unknownSeverity = (r.severity.unknown ?? 0) + (r.severity.null ?? 0);
    const unknownRemedy = (r.remedy.unknown ?? 0) + (r.remedy.null ?? 0);
    const noHazard = (r.hazard.other ?? 0) + (r.hazard.null ?? 0);
    lines.push(`## ${r.sourceId}`);
    lines.push(`records: ${r.records}`);
    lines.push(`with at least one identifier: ${r.withIdentifier} (${pct(r.withIdentifier, r.records)})`);
    const idTotal = r.identifiers.reduce((s, i) => s + i.count, 0);
    lines.push(
      `identifiers: ${idTotal}${idTotal === 0 ? '' : ` — ${r.identifiers.map((i) => `${i.kind}/${i.confidence} ${i.count}`).join(', ')}`}`,
    );
    const score = VALIDATION_SCORES[r.sourceId];
    lines.push(
      score === undefined
        ? 'identifier extraction: not measured (no hand-labelled real records)'
        : `identifier extraction, measured ${EXTRACTION_MEASURED_ON}: ${describeScore(score)}`,
    );
    lines.push(`severity: ${distribution(r.severity, r.records)}`);
    lines.push(`remedy: ${distribution(r.remedy, r.records)}`);
    lines.push(`hazard: ${distribution(r.hazard, r.records)}`);
    lines.push(
      `unknown: severity ${pct(unknownSeverity, r.records)}, remedy ${pct(unknownRemedy, r.records)}, hazard other/none ${pct(noHazard, r.records)}`,
    );
    lines.push(`set aside in the last run: ${r.setAside.count}`);
    for (const s of r.setAside.first) lines.push(`  ${s.record}: ${s.reason}`);
    if (r.setAside.count > r.setAside.first.length) {
      lines.push(`  … and ${r.setAside.count - r.setAside.first.length} more`);
    }
    lines.push('');
  }
  return `${lines.join('\n')}`;
}

/** One line of `recalls ingest` per source: what the run did with it. */
export function describeOutcome(outcome: SourceOutcome): string {
  if (outcome.status === 'ok') {
    const setAside = outcome.setAside ? `; ${outcome.setAside} set aside (see recalls report)` : '';
    const skipped = outcome.skippedPages ?? [];
    const skippedText =
      skipped.length === 0
        ? ''
        : `; ${skipped.length} page(s) not read, their records kept as the feed gives them and asked for again next run: ${skipped
            .slice(0, 3)
            .map((p) => `${p.url} (${p.reason})`)
            .join('; ')}${skipped.length > 3 ? `; … and ${skipped.length - 3} more` : ''}`;
    return `${outcome.sourceId}: ok, ${outcome.records} records from ${outcome.pages} page(s): ${outcome.inserted} new, ${outcome.amended} amended, ${outcome.unchanged} unchanged${setAside}${skippedText}`;
  }
  return `${outcome.sourceId}: ${outcome.status}${outcome.reason === undefined ? '' : `: ${outcome.reason}`}`;
}
