/**
 * Conservative extraction from agency prose (../shared/spec/identifiers.md, "Confidence at
 * ingestion"): a value only right after a label naming it, or a GS1 element string; never an
 * unlabelled digit run, since a false match tells a merchant to pull a safe product. This file walks
 * the labels and merges what the list readers (`label-lists.ts`) and the code-run reader (`code-runs.ts`) find.
 */
import { isMoreCertain, type IdentifierKind } from '../../domain/identifiers/kinds.ts';
import type { Identifier } from '../../domain/recall.ts';
import { CodeRunReader } from './code-runs.ts';
import { MIN_CODE_LENGTH } from './code-run-words.ts';
import { isCodeShaped, isQuantity } from './code-shapes.ts';
import { Collector, readBarcodes, readCodes, readNdcs, readUdis, sticky } from './label-lists.ts';
import { findLabels, type Label } from './labels.ts';
import { RANGES_NAMED } from './rule-values.ts';
import { tokenize } from './tokens.ts';

/** What {@link extractLabelledIdentifiers} looks for. */
export interface ExtractOptions {
  /** Default: every kind this extractor knows. */
  kinds?: readonly IdentifierKind[];
}

const GS1_ANYWHERE = /(?<![A-Za-z0-9)])\(01\)\s?\d{14}(?:\s?\(\d{2,4}\)\s?[^\s()]+)*/g;
/**
 * `(01)` and a GTIN printed in digit groups, as on a drug carton: `(01) 0 0361958 01013 9`, maybe with
 * the element strings after it (`(17) 250101 (10) AB12`), spaces and all.
 */
const GS1_GROUPED =
  /(?<![A-Za-z0-9)])\(01\)\s?(\d{1,13}(?: \d{1,13}){1,5})(?![\d(])((?:\s?\(\d{2,4}\)\s?[^\s()]+)*)/g;

const CODE_BEFORE = /(?:^|[\s("“'])([A-Za-z0-9][A-Za-z0-9./_+-]*) $/;
const SPACES = /\s*/y;

/**
 * Identifiers prose names with a label, deduplicated and sorted: valid barcodes, hyphenated NDCs
 * and GS1 UDIs are `extracted`; lots, batches, models and bare 11-digit NDCs `inferred`.
 */
export function extractLabelledIdentifiers(text: string, opts: ExtractOptions = {}): Identifier[] {
  const out = new Collector(opts.kinds ? new Set(opts.kinds) : null);
  if (!text) return [];

  const labels = findLabels(text);
  let runs: CodeRunReader | undefined;
  // A table read after one label also covers the labels of its header and body.
  let readUntil = 0;
  for (const [index, label] of labels.entries()) {
    if (label.start < readUntil) continue;
    if (label.of && label.family !== 'barcode') continue;
    const start = label.end;
    const valueStart = start + sticky(SPACES, text, start)![0].length;
    const before = out.found.length;
    switch (label.family) {
      case 'barcode':
        readBarcodes(text, valueStart, label.kind, out);
        break;
      case 'ndc':
        readNdcs(text, valueStart, out);
        break;
      case 'udi':
        readUdis(text, valueStart, out);
        break;
      case 'lot':
      case 'model':
        readCodes(
          text,
          valueStart,
          label.kind,
          label.family,
          out,
          RANGES_NAMED.test(text.slice(Math.max(0, label.start - 80), valueStart)),
          label.dateCodes,
        );
        break;
    }
    if (label.family !== 'ndc' && label.family !== 'udi') {
      // A lot list read above keeps its grouping ("code 5G6 21X8" is one code, not two).
      const listRead = label.family === 'lot' && out.found.length > before;
      // A barcode or lot label followed by a number heads a plain list, read above.
      const plainList =
        ((label.family === 'barcode' || listRead) && /\d/.test(text.charAt(valueStart))) ||
        headsPlainList(text, label, labels[index + 1]);
      if (!plainList) {
        runs ??= new CodeRunReader(text, tokenize(text), labels, out);
        readUntil = Math.max(readUntil, runs.read(label, { listRead }));
      }
    }
    if (label.bare) readCodeBefore(text, label, out);
  }
  // A GS1 element string anywhere starts with `(01)`; most prose has none.
  if (text.includes('(01)')) {
    for (const m of text.matchAll(GS1_ANYWHERE)) out.addUdi(m[0].replace(/[.,;:]+$/, ''));
    for (const m of text.matchAll(GS1_GROUPED)) {
      const digits = m[1]!.replace(/ /g, '');
      const rest = m[2]!.replace(/\s/g, '').replace(/[.,;:]+$/, '');
      if (digits.length === 14 && !out.addUdi(`(01)${digits}${rest}`)) out.addUdi(`(01)${digits}`);
    }
  }

  return withoutLotsThatAreModels(mergeIdentifiers(withoutCutModels(out.found)));
}

/** Drops a model that is the first part of another model read from the same text ("12345" of "12345 ABC"). */
function withoutCutModels(ids: readonly Identifier[]): Identifier[] {
  // Every first part of a model before one of its spaces, in a set: one look-up a model, not a scan of all.
  const firstParts = new Set<string>();
  for (const i of ids) {
    if (i.kind !== 'model') continue;
    for (let at = i.value.indexOf(' '); at !== -1; at = i.value.indexOf(' ', at + 1))
      firstParts.add(i.value.slice(0, at));
  }
  return ids.filter((i) => i.kind !== 'model' || !firstParts.has(i.value));
}

/** Whether the next label follows at once, same family, heading a plain list ("Lot numbers: Lot 69J0134"). */
function headsPlainList(text: string, label: Label, next: Label | undefined): boolean {
  if (next === undefined || next.family !== label.family) return false;
  return (
    /^[\s:;,.#-]*$/.test(text.slice(label.end, next.start)) &&
    /^\s*\d/.test(text.slice(next.end, next.end + 4))
  );
}

/** Drops inferred lots that are also a model of the recall: as a lot it would match a shop's lot wrongly. */
export function withoutLotsThatAreModels(ids: readonly Identifier[]): Identifier[] {
  const models = new Set(ids.filter((i) => i.kind === 'model').map((i) => i.normalized));
  return ids.filter(
    (i) =>
      !((i.kind === 'lot' || i.kind === 'batch') && i.confidence === 'inferred' && models.has(i.normalized)),
  );
}

/** A model printed before a bare "model" ("the DUAF-10 model"), only if it mixes letters and digits. */
function readCodeBefore(text: string, label: Label, out: Collector): void {
  const before = CODE_BEFORE.exec(text.slice(Math.max(0, label.start - 48), label.start));
  if (before === null) return;
  const value = before[1]!;
  if (
    /[A-Za-z]/.test(value) &&
    /\d/.test(value) &&
    isCodeShaped(value, 'model') &&
    !isQuantity(value.replace(/-/g, ''))
  ) {
    out.add('model', value, 'inferred', MIN_CODE_LENGTH);
  }
}

/** Deduplicates by (kind, normalized), keeping the most certain, then first, value; sorted by key. */
export function mergeIdentifiers(...lists: readonly (readonly Identifier[])[]): Identifier[] {
  const byKey = new Map<string, Identifier>();
  for (const list of lists) {
    for (const id of list) {
      const key = `${id.kind}:${id.normalized}`;
      const seen = byKey.get(key);
      if (seen === undefined || isMoreCertain(id.confidence, seen.confidence)) byKey.set(key, id);
    }
  }
  return [...byKey.values()].sort((a, b) =>
    a.kind !== b.kind
      ? a.kind < b.kind
        ? -1
        : 1
      : a.normalized < b.normalized
        ? -1
        : a.normalized > b.normalized
          ? 1
          : 0,
  );
}
