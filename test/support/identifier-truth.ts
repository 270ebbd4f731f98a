/**
 * Scoring identifier extraction against the hand-labelled truth set in `test/truth/` (labels
 * made by reading real records, following `../shared/spec/labelling.md`). Extraction is run
 * the way ingestion runs it: every page of the real-record mirror through its source adapter.
 * Items are compared on their match keys after normalisation, so `KX-200A/BK` labelled as a
 * model matches `KX200ABK` extracted as a model, and a UPC matches the same code as a GTIN.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IDENTIFIER_KINDS, type IdentifierKind } from '../../src/domain/identifiers/kinds.ts';
import { matchFamily } from '../../src/domain/identifiers/match-keys.ts';
import { prefixRule, rangeRule } from '../../src/domain/identifiers/match-rules.ts';
import { normaliseIdentifier } from '../../src/domain/identifiers/normalise.ts';
import type { Identifier } from '../../src/domain/recall.ts';
import { readMirror } from '../../src/ingest/archive.ts';
import { SOURCE_ADAPTERS } from '../../src/ingest/registry.ts';

export const TRUTH_DIR = fileURLToPath(new URL('../truth/', import.meta.url));

/**
 * One labelled identifier: firm, or optional when `ambiguous` (neither a miss nor a false positive). Besides a
 * value as printed, an item may be a match rule (../shared/spec/labelling.md): a prefix printed with its
 * wildcard (`{ kind: 'model', value: 'KX2040GC*', rule: 'prefix' }`) or a range by its two ends
 * (`{ kind: 'lot', range: ['40012000', '40098999'] }`).
 */
export interface TruthItem {
  kind: IdentifierKind;
  /** As printed, label removed; a prefix item keeps its wildcard. Absent on a range item. */
  value?: string;
  rule?: 'prefix';
  range?: [string, string];
  ambiguous?: boolean;
}

export interface TruthRecord {
  source: string;
  record_id: string;
  identifiers: TruthItem[];
  notes?: string;
}

/** The two parts of the truth set: rules are written from `development` only; `validation` is only counted. */
export type TruthPart = 'development' | 'validation';
export const TRUTH_PARTS: readonly TruthPart[] = ['development', 'validation'];

/**
 * The truth records of `test/truth/<part>/<source>.json`, of one part or both. Each part has a folder of its
 * own, so that writing rules from the development part never opens a validation record.
 */
export function loadTruth(part?: TruthPart, dir = TRUTH_DIR): TruthRecord[] {
  return (part === undefined ? TRUTH_PARTS : [part]).flatMap((p) =>
    readdirSync(join(dir, p))
      .filter((name) => name.endsWith('.json'))
      .sort()
      .flatMap(
        (name) =>
          (JSON.parse(readFileSync(join(dir, p, name), 'utf8')) as { records: TruthRecord[] }).records,
      ),
  );
}

/**
 * The fixed split: a record is `validation` when the first byte of SHA-256(`<source> <record id>`) is a
 * multiple of 3 (about one record in three), so a record newly labelled joins its part by the same rule.
 */
export function partOf(record: Pick<TruthRecord, 'source' | 'record_id'>): TruthPart {
  const first = createHash('sha256').update(`${record.source} ${record.record_id}`).digest()[0]!;
  return first % 3 === 0 ? 'validation' : 'development';
}

/** The match key of a kind and value, or null when the value does not normalise. */
export function matchKeyOf(kind: IdentifierKind, value: string): string | null {
  const n = normaliseIdentifier(kind, value);
  return n.ok ? keyOf(kind, n.normalized) : null;
}

/**
 * The key an identifier is compared on: `<family>:<normalized>`, a rule's `normalized` being `STEM*` or
 * `FROM..TO` (its storage key is a bucket many rules share, so it is not compared on that).
 */
export function keyOf(kind: IdentifierKind, normalized: string): string {
  return `${matchFamily(kind, normalized)}:${normalized}`;
}

/** A prefix item's printed stem: its value without the trailing wildcard (`*`, or a run of `x`). */
export function stemOf(printed: string): string {
  const starred = printed.replace(/\s*\*+$/, '');
  return starred !== printed ? starred : printed.replace(/[xX]+$/, '');
}

/**
 * The key a truth item is compared on, or null when it names nothing that can match: a value that does not
 * normalise, a prefix whose stem is too short, a range whose ends differ in shape (such items are optional).
 */
export function truthKeyOf(item: TruthItem): string | null {
  if (item.range !== undefined) {
    const rule = rangeRule(item.range[0], item.range[1]);
    return rule === undefined ? null : keyOf(item.kind, rule);
  }
  if (item.value === undefined) return null;
  if (item.rule === 'prefix') {
    const rule = prefixRule(stemOf(item.value));
    return rule === undefined ? null : keyOf(item.kind, rule);
  }
  return matchKeyOf(item.kind, item.value);
}

/** A truth item as a diagnostic shows it: `model "KX2040GC*"`, `lot 40012000–40098999`. */
export function describeItem(item: TruthItem): string {
  return item.range !== undefined
    ? `${item.kind} range "${item.range[0]}" to "${item.range[1]}"`
    : `${item.kind} "${item.value ?? ''}"`;
}

/** The identifiers ingestion extracts for each record of a mirror, keyed `<source> <record id>`. */
export async function extractMirror(mirror: string): Promise<Map<string, Identifier[]>> {
  const out = new Map<string, Identifier[]>();
  for (const adapter of SOURCE_ADAPTERS) {
    const pages = await readMirror(mirror, adapter.meta.id, (name) => adapter.acceptsFile(name));
    for (const page of pages) {
      for (const draft of adapter.parse(page).drafts) {
        out.set(`${adapter.meta.id} ${draft.recordId}`, draft.identifiers);
      }
    }
  }
  return out;
}

export interface SourceScore {
  source: string;
  records: number;
  firm: number;
  optional: number;
  /** Firm items extracted. */
  found: number;
  /** Extractions that count: those not matching an optional item only. */
  extractions: number;
  /** Extractions matching a firm item. */
  correct: number;
  /** Records read exactly right: no extraction that is wrong and no firm item missed. */
  exact: number;
  precision: number;
  recall: number;
  misses: string[];
  falsePositives: string[];
}

/**
 * Precision and recall per source: precision = extractions matching a firm item / extractions
 * that match a firm item or nothing (those matching only an optional item are left out); recall
 * = firm items extracted / firm items. With nothing to count, a figure is 1. The third figure,
 * `exact`, counts the records with no wrong extraction and no firm miss.
 */
export function scoreExtraction(
  truth: readonly TruthRecord[],
  extracted: Map<string, Identifier[]>,
): SourceScore[] {
  const bySource = new Map<string, SourceScore>();
  for (const record of truth) {
    const score =
      bySource.get(record.source) ??
      bySource
        .set(record.source, {
          source: record.source,
          records: 0,
          firm: 0,
          optional: 0,
          found: 0,
          extractions: 0,
          correct: 0,
          exact: 0,
          precision: 1,
          recall: 1,
          misses: [],
          falsePositives: [],
        })
        .get(record.source)!;
    score.records += 1;
    const key = `${record.source} ${record.record_id}`;
    const ids = extracted.get(key);
    if (ids === undefined) throw new Error(`${key} is in the truth set but was not ingested`);
    const firm = new Map<string, TruthItem>();
    const optional = new Set<string>();
    for (const item of record.identifiers) {
      const k = truthKeyOf(item);
      // A rule that cannot be one (a short stem, ends of two shapes) is optional whatever its label says.
      const isOptional =
        item.ambiguous === true || (k === null && (item.range !== undefined || item.rule !== undefined));
      if (isOptional) {
        score.optional += 1;
        if (k !== null) optional.add(k);
      } else {
        if (k === null) throw new Error(`${key}: firm ${describeItem(item)} does not normalise`);
        if (!firm.has(k)) firm.set(k, item);
      }
    }
    const got = new Set(ids.map((i) => keyOf(i.kind, i.normalized)));
    const [misses, wrong] = [score.misses.length, score.falsePositives.length];
    score.firm += firm.size;
    for (const [k, item] of firm) {
      if (got.has(k)) score.found += 1;
      else score.misses.push(`${key}: ${describeItem(item)}`);
    }
    for (const id of ids) {
      const k = keyOf(id.kind, id.normalized);
      if (firm.has(k)) {
        score.extractions += 1;
        score.correct += 1;
      } else if (!optional.has(k)) {
        score.extractions += 1;
        score.falsePositives.push(`${key}: ${id.kind} "${id.value}" (${id.confidence})`);
      }
    }
    if (score.misses.length === misses && score.falsePositives.length === wrong) score.exact += 1;
  }
  for (const s of bySource.values()) {
    s.precision = s.extractions === 0 ? 1 : s.correct / s.extractions;
    s.recall = s.firm === 0 ? 1 : s.found / s.firm;
  }
  return [...bySource.values()].sort((a, b) => (a.source < b.source ? -1 : 1));
}

/** A per-source table of the scores, for a test's diagnostics or a note. */
export function formatScores(scores: readonly SourceScore[]): string {
  const rows = scores.map(
    (s) =>
      `${s.source.padEnd(14)} records ${String(s.records).padStart(3)}  firm ${String(s.firm).padStart(4)}  optional ${String(s.optional).padStart(4)}  precision ${s.precision.toFixed(3)} (${s.correct}/${s.extractions})  recall ${s.recall.toFixed(3)} (${s.found}/${s.firm})  exactly right ${(s.exact / Math.max(1, s.records)).toFixed(3)} (${s.exact}/${s.records})`,
  );
  return rows.join('\n');
}

/** The kinds a truth file may name. */
export const TRUTH_KINDS: ReadonlySet<string> = new Set(IDENTIFIER_KINDS);
