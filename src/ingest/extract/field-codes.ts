/**
 * Identifiers from fields dedicated to them (a barcode field, a batch field, a model field),
 * which agencies fill with one value or with several ("5901234123457; 5901234123464",
 * "L2301, L2302 and L2303"). Values from such a field are `exact`; a list is split only when
 * every item looks like a code, and otherwise the field is read as prose by the shared labelled
 * extractor, which keeps its own (lower) confidence. Precision first: a false match tells a
 * merchant to pull a safe product.
 *
 * Shared by the eu-safety-gate, uk-fsa and au-accc adapters. Dates and quantities are told
 * from codes by the same rules as in prose (`code-shapes.ts`).
 */
import type { IdentifierKind } from '../../domain/identifiers/kinds.ts';
import { prepareValue } from '../../domain/identifiers/labels.ts';
import { normaliseIdentifier } from '../../domain/identifiers/normalise.ts';
import { isPlaceholder } from '../../domain/identifiers/text-codes.ts';
import type { Identifier } from '../../domain/recall.ts';
import { isDateLike, leadsWithQuantity } from './code-shapes.ts';
import { extractLabelledIdentifiers, mergeIdentifiers } from './labelled-identifiers.ts';

/** What a dedicated code field yields: its identifiers and its values as printed. */
export interface FieldCodes {
  identifiers: Identifier[];
  /** The field's values as published (split when it is a list of codes), placeholders left out. */
  values: string[];
}

const EMPTY: FieldCodes = { identifiers: [], values: [] };

/** Separators of a list of codes: `;`, `,`, `|`, line breaks, a spaced slash, "and", "&", "or". */
const CODE_SEPARATORS = /\s*(?:[;,|\n\r]+|\s\/\s|\s(?:and|&|or)\s)\s*/i;
/** Barcodes never contain a slash, so an unspaced one separates two of them as well. */
const BARCODE_SEPARATORS = /\s*(?:[;,|\n\r/]+|\s(?:and|&|or)\s)\s*/i;

/**
 * Labels some agencies print inside a code field that the shared label stripper does not know
 * (`Art. no.`, `Item no.`, `Type:`, `Ref.`). Removed before a value is judged and normalised.
 */
const FIELD_LABEL =
  /^(?:art(?:icle)?\.?\s*(?:no|nr|number)\.?|item\s*(?:no|nr|number)\.?|ref(?:erence)?\s*(?:no\.?)?|type(?:\s*(?:no|nr|number))?\.?|model\s*(?:no|nr|number|name)?\.?|batch\s*(?:no|nr|number)?\.?|lot\s*(?:no|nr|number)?\.?)\s*[:#.]\s*/i;

/** A list item that is a name, not a code: one word of three or more letters ("ENFINIGY"). */
const NAME_ITEM = /^\p{L}{3,}$/u;

/** A list item that is a code: letters and digits with inner `-`, `/`, `.`, `*`, `_`, `#`, `+`, at most three words. */
const CODE_SHAPE = /^[A-Za-z0-9][A-Za-z0-9 ./\-_#*+]*$/;

/** The value a list item stands for, without a label printed in front of it. */
function unlabelled(item: string): string {
  const local = item.replace(FIELD_LABEL, '');
  return prepareValue(local).value;
}

function isCodeLike(value: string): boolean {
  return (
    value.length >= 2 &&
    value.length <= 40 &&
    /\d/.test(value) &&
    CODE_SHAPE.test(value) &&
    value.split(/\s+/).length <= 3 &&
    !leadsWithQuantity(value)
  );
}

function withoutParentheticals(text: string): string {
  return text
    .replace(/\([^()]*\)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The values of a field dedicated to `kind` that normalise, as `exact` identifiers as printed.
 * A placeholder or a code whose check digit fails is left out, never repaired.
 */
export function exactIdentifiers(kind: IdentifierKind, values: readonly string[]): Identifier[] {
  const out: Identifier[] = [];
  for (const value of values) {
    const n = normaliseIdentifier(kind, value);
    if (n.ok) out.push({ kind, value, normalized: n.normalized, confidence: 'exact' });
  }
  return out;
}

/** The kinds the prose extractor may return for a field of this kind. */
function proseKinds(kind: IdentifierKind): IdentifierKind[] {
  return kind === 'batch' || kind === 'lot' ? ['batch', 'lot'] : [kind];
}

/**
 * Identifiers of a dedicated model, batch or lot field. One value, or a list whose every item
 * is code-shaped (a digit, at most three words, no prose punctuation) and, in a list, at least
 * three characters once normalised: each becomes an `exact` identifier of `kind`. Placeholders
 * (`Unknown`, `N/A`, `All batches`) and, for batches and lots, dates are skipped. Anything else
 * is prose: only what the shared extractor finds next to a label is taken, at its confidence.
 */
export function codeFieldIdentifiers(
  raw: string | null | undefined,
  kind: 'model' | 'batch' | 'lot',
): FieldCodes {
  const text = (raw ?? '').replace(/\s+/g, (s) => (/[\n\r]/.test(s) ? '\n' : ' ')).trim();
  if (text === '' || isPlaceholder(text) || /^[-–—./\s]+$/.test(text)) return EMPTY;

  const items = text
    .split(CODE_SEPARATORS)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const kept = items.filter(
    (s) =>
      !isPlaceholder(unlabelled(s)) && !((kind === 'batch' || kind === 'lot') && isDateLike(unlabelled(s))),
  );
  const found: Identifier[] = [];
  const codes: string[] = [];
  let allCodes = kept.length > 0;
  for (const item of kept) {
    const value = unlabelled(item);
    // A product name among the codes ("51234-000-0|1030099; NAME", as Safety Gate serves some).
    if (kept.length > 1 && NAME_ITEM.test(item.trim())) continue;
    const n = normaliseIdentifier(kind, value);
    const longEnough = kept.length === 1 || (n.ok && n.normalized.length >= 3);
    if (!isCodeLike(value) || !n.ok || !longEnough) {
      allCodes = false;
      break;
    }
    found.push({ kind, value, normalized: n.normalized, confidence: 'exact' });
    codes.push(item);
  }
  if (allCodes && found.length > 0) return { identifiers: mergeIdentifiers(found), values: codes };
  if (kept.length === 0) return EMPTY;
  const prose = extractLabelledIdentifiers(text, { kinds: proseKinds(kind) });
  return { identifiers: prose, values: [text.replace(/\s+/g, ' ')] };
}

/**
 * Identifiers of a dedicated barcode field: each item of the list (split on `;`, `,`, `/`, `|`,
 * line breaks, "and") is normalised as a GTIN; a valid one is `exact`, one whose check digit
 * or length fails is dropped, never repaired. An item of several complete codes separated by
 * spaces ("5901234123457 5901234123464") is read as that many codes.
 */
export function barcodeFieldIdentifiers(
  raw: string | null | undefined,
  kind: 'gtin' | 'ean' | 'upc' = 'gtin',
): Identifier[] {
  const text = (raw ?? '').trim();
  if (text === '') return [];
  const found: Identifier[] = [];
  for (const item of text.split(BARCODE_SEPARATORS)) {
    const value = withoutParentheticals(item);
    if (value === '') continue;
    const whole = exactIdentifiers(kind, [value]);
    if (whole.length > 0) {
      found.push(...whole);
      continue;
    }
    const tokens = prepareValue(value).value.split(/\s+/);
    if (tokens.length > 1 && tokens.every((t) => /^\d{8,14}$/.test(t)))
      found.push(...exactIdentifiers(kind, tokens));
  }
  return mergeIdentifiers(found);
}
