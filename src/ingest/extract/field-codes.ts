/** Identifiers from dedicated code fields: `exact` when every item is code-shaped, else read as prose. */
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
  /** As published (split when a list of codes), placeholders left out. */
  values: string[];
}

const EMPTY: FieldCodes = { identifiers: [], values: [] };

/** `;`, `,`, `|`, line breaks, a spaced slash, "and", "&", "or". */
const CODE_SEPARATORS = /\s*(?:[;,|\n\r]+|\s\/\s|\s(?:and|&|or)\s)\s*/i;
/** Barcodes never contain a slash, so an unspaced one separates them too. */
const BARCODE_SEPARATORS = /\s*(?:[;,|\n\r/]+|\s(?:and|&|or)\s)\s*/i;

/** Labels inside code fields the shared stripper does not know (`Art. no.`, `Type:`, `Ref.`). */
const FIELD_LABEL =
  /^(?:art(?:icle)?\.?\s*(?:no|nr|number)\.?|item\s*(?:no|nr|number)\.?|ref(?:erence)?\s*(?:no\.?)?|type(?:\s*(?:no|nr|number))?\.?|model\s*(?:no|nr|number|name)?\.?|batch\s*(?:no|nr|number)?\.?|lot\s*(?:no|nr|number)?\.?)\s*[:#.]\s*/i;

/** A name, not a code: one word of three or more letters ("ENFINIGY"). */
const NAME_ITEM = /^\p{L}{3,}$/u;

const CODE_SHAPE = /^[A-Za-z0-9][A-Za-z0-9 ./\-_#*+]*$/;

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

/** The values that normalise, as `exact` identifiers; failed check digits are left out, never repaired. */
export function exactIdentifiers(kind: IdentifierKind, values: readonly string[]): Identifier[] {
  const out: Identifier[] = [];
  for (const value of values) {
    const n = normaliseIdentifier(kind, value);
    if (n.ok) out.push({ kind, value, normalized: n.normalized, confidence: 'exact' });
  }
  return out;
}

function proseKinds(kind: IdentifierKind): IdentifierKind[] {
  return kind === 'batch' || kind === 'lot' ? ['batch', 'lot'] : [kind];
}

/** A model, batch or lot field: code-shaped items (≥ 3 characters in a list) `exact`; else read as prose. */
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
    // A product name among the codes ("51234-000-0|1030099; NAME", Safety Gate).
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

/** A barcode field: each list item (or spaced run of whole codes) as an `exact` GTIN; failures dropped. */
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
