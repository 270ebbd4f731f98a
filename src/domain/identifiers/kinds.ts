/** The identifier kinds, rejection reasons, and the result type of the one shared normaliser. */
import { StringEnum } from '../json-schema.ts';

/** The nine identifier kinds of the contract. */
export const IDENTIFIER_KINDS = ['gtin', 'upc', 'ean', 'vin', 'ndc', 'udi', 'model', 'lot', 'batch'] as const;
export type IdentifierKind = (typeof IDENTIFIER_KINDS)[number];
export const IdentifierKindSchema = StringEnum(IDENTIFIER_KINDS, { $id: 'IdentifierKind' });

/** Why a value can be refused. */
export const REJECTION_REASONS = [
  'unknown_kind',
  'empty',
  'invalid_characters',
  'invalid_length',
  'invalid_check_digit',
  'ambiguous',
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

/** How an identifier was obtained at ingestion (../shared/spec/identifiers.md, "Confidence at ingestion"). */
export const CONFIDENCES = ['exact', 'extracted', 'inferred'] as const;
export type Confidence = (typeof CONFIDENCES)[number];
export const ConfidenceSchema = StringEnum(CONFIDENCES, {
  $id: 'Confidence',
  description:
    '`exact` from a dedicated field; `extracted` mined from prose and passed a checksum; `inferred` matched on shape only',
});

/** Whether confidence `a` is more certain than `b` (exact, then extracted, then inferred). */
export function isMoreCertain(a: Confidence, b: Confidence): boolean {
  return CONFIDENCES.indexOf(a) < CONFIDENCES.indexOf(b);
}

/** The outcome of normalising one value: its canonical form, or why it has none. */
export type Normalised =
  | {
      ok: true;
      kind: IdentifierKind;
      /** Canonical form used for matching (GTIN-14 digits, `hibcc:<DI>`, 11- or 9-digit NDC, …). */
      normalized: string;
      /** VINs only: whether the position-9 check digit holds. */
      checkDigitValid?: boolean;
      /** For UDIs carrying a lot (AI 10, HIBCC or ICCBBA lot): that lot, to store separately. */
      lot?: string;
    }
  | { ok: false; reason: RejectionReason; detail: string };

/** A value refused, with the reason and a short sentence for API users. */
export type Rejection = Extract<Normalised, { ok: false }>;

/** A refusal for `reason`, explained by `detail`. */
export function reject(reason: RejectionReason, detail: string): Rejection {
  return { ok: false, reason, detail };
}

/** Case-insensitive and trimmed. */
export function parseKind(kind: string): IdentifierKind | undefined {
  const k = kind.trim().toLowerCase();
  return (IDENTIFIER_KINDS as readonly string[]).includes(k) ? (k as IdentifierKind) : undefined;
}
