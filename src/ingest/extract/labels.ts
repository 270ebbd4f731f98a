/** Labels that name an identifier in agency prose (`UPC`, `Lot #`, `Model No.`, Spanish and French forms). */
import type { IdentifierKind } from '../../domain/identifiers/kinds.ts';

export type LabelFamily = 'barcode' | 'ndc' | 'udi' | 'lot' | 'model' | 'vin';

/** One label found in a text. */
export interface Label {
  family: LabelFamily;
  kind: IdentifierKind;
  /** Offsets of the label with its qualifier and punctuation. */
  start: number;
  end: number;
  /** A date-code label: its values may look like dates (`JUL24`). */
  dateCodes: boolean;
  /** A bare `model`, which may follow its value ("the DUAF-10 model"). */
  bare: boolean;
  /** `of` follows ("a lot of"); only a barcode label survives it. */
  of: boolean;
}

/**
 * A head, optional qualifier (`No.`, `#` …), parenthetical, punctuation and filler (`is`, `of`).
 * Ordinary-word heads (`Item`) need a qualifier; a bare `code` is a lot unless {@link NOT_A_LOT_CODE}.
 */
const LABEL = new RegExp(
  String.raw`(?<![A-Za-z0-9])(?:` +
    String.raw`(?<upc>UPC(?:-?[AE])?s?)` +
    String.raw`|(?<ean>EAN(?:-?(?:13|8))?s?)` +
    String.raw`|(?<gtin>GTIN(?:-?(?:8|12|13|14))?s?|bar ?codes?)` +
    String.raw`|(?<ndc>NDCs?)` +
    String.raw`|(?<udi>UDI(?:[-/ ]?DI)?s?)` +
    String.raw`|(?<vin>VINs?|vehicle identification numbers?(?:\s*\(VINs?\))?)` +
    String.raw`|(?<batch>batch(?:es|\(es\))?(?:\s*\/\s*lots?)?)` +
    String.raw`|(?<datecode>date\s+codes?|julian(?:\s+(?:dates?|codes?))?)` +
    String.raw`|(?<lot>lot(?:s|\(s\))?(?:\s*\/\s*batch(?:es)?)?|(?:c[oó]digos?|n[uú]meros?)\s+de\s+lotes?|lotes?|(?:num[ée]ros?|codes?)\s+de\s+lots?|chargen(?:nummer|-?nr\.?))` +
    String.raw`|(?<serial>serial(?=\s*(?:numbers?|nos?\b|#))|serials|serial\s+ranges?)` +
    String.raw`|(?<model>models?(?:\(s\))?(?:\s*\/\s*(?:catalog(?:ue)?|SKU))?|modelos?|mod[eè]les?|P\/N|REF|SKUs?)` +
    String.raw`|(?<modelq>(?:catalog(?:ue)?|cat\.?|part|item|kit|product(?:\s+identification)?|style)(?=\s*(?:codes?|numbers?|nos?\b|nbr\b|#)))` +
    String.raw`|(?<code>codes?)` +
    String.raw`)(?![A-Za-z])` +
    String.raw`(?<qualifier>[ \t]*(?:codes?|numbers?|nos?\.?|nbr\.?|num\.?)(?![A-Za-z]))?` +
    String.raw`(?:\s*\((?:s|REF|#)\))?` +
    String.raw`(?:\s*(?:#s(?![A-Za-z])|[:#=]+))?` +
    String.raw`(?:\s+(?<filler>is|are|of)(?![A-Za-z]))?`,
  'gi',
);

/** Words before a bare `code` that make it something other than a lot code ("zip code", "QR code"). */
const NOT_A_LOT_CODE =
  /(?:iff|supplier|vendor|customer|internal|zip|postal|area|promo|promotional|discount|coupon|qr|color|colour|country|bar|access|security|penal|federal|source|error|fault|event|diagnostic|trouble|tariff|time|phone|dialing|the|a|this|that|building|fire|safety|regulations|establishment|plant|tracking|reference|verification|activation|confirmation|order|offer)\s*$/i;

/** A label's record (a module function, not a closure: it runs for every label). */
function labelAt(
  family: LabelFamily,
  kind: IdentifierKind,
  start: number,
  end: number,
  of: boolean,
  dateCodes: boolean,
  bare: boolean,
): Label {
  return { family, kind, start, end, dateCodes, bare, of };
}

function labelOf(m: RegExpExecArray, text: string): Label | null {
  const g = m.groups ?? {};
  const start = m.index;
  const end = start + m[0].length;
  // "a lot of", "codes of": not a label; "the serial range of the units" still is one.
  const of =
    g.filler !== undefined && g.filler.toLowerCase() === 'of' && !/^serial\s+ranges?$/i.test(g.serial ?? '');
  if (g.upc !== undefined) return labelAt('barcode', 'upc', start, end, of, false, false);
  if (g.ean !== undefined) return labelAt('barcode', 'ean', start, end, of, false, false);
  if (g.gtin !== undefined) return labelAt('barcode', 'gtin', start, end, of, false, false);
  if (g.ndc !== undefined) return labelAt('ndc', 'ndc', start, end, of, false, false);
  if (g.udi !== undefined) return labelAt('udi', 'udi', start, end, of, false, false);
  if (g.vin !== undefined) return labelAt('vin', 'vin', start, end, of, false, false);
  if (g.batch !== undefined) return labelAt('lot', 'batch', start, end, of, false, false);
  if (g.datecode !== undefined) return labelAt('lot', 'lot', start, end, of, true, false);
  if (g.lot !== undefined || g.serial !== undefined)
    return labelAt('lot', 'lot', start, end, of, false, false);
  if (g.code !== undefined) {
    return NOT_A_LOT_CODE.test(text.slice(Math.max(0, start - 24), start))
      ? null
      : labelAt('lot', 'lot', start, end, of, false, false);
  }
  if (g.model !== undefined) {
    // `REF` only in capitals, as on device labels.
    if (/^ref$/i.test(g.model) && g.model !== 'REF') return null;
    // "Model Name" introduces names (unless "Model Name/Number"), "Model Year" years.
    if (g.qualifier === undefined) {
      const after = text.slice(end, end + 16);
      if (/^\s*names?\b(?!\s*\/\s*(?:numbers?|nos?\b))/i.test(after) || /^\s*years?\b/i.test(after))
        return null;
    }
    return labelAt(
      'model',
      'model',
      start,
      end,
      of,
      false,
      g.qualifier === undefined && /^models?$/i.test(g.model),
    );
  }
  if (g.modelq !== undefined) return labelAt('model', 'model', start, end, of, false, false);
  return null;
}

/** Every label in `text`, in order. */
export function findLabels(text: string): Label[] {
  const out: Label[] = [];
  // An exec loop: matchAll clones the large expression on every call.
  LABEL.lastIndex = 0;
  for (let m = LABEL.exec(text); m !== null; m = LABEL.exec(text)) {
    const label = labelOf(m, text);
    if (label !== null) out.push(label);
  }
  return out;
}
