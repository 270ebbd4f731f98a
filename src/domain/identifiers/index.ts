/** Product identifiers: kinds, the shared normaliser, per-family rules and match keys. Pure. */
export {
  CONFIDENCES,
  IDENTIFIER_KINDS,
  REJECTION_REASONS,
  parseKind,
  type Confidence,
  type IdentifierKind,
  type Normalised,
  type RejectionReason,
} from './kinds.ts';
export { MAX_VALUE_LENGTH, normaliseIdentifier } from './normalise.ts';
export {
  lookupKeys,
  matchFamily,
  storageKeys,
  type LookupKeys,
  type MatchFamily,
  type StorageKeys,
} from './match-keys.ts';
export { cleanText, prepareValue, stripLabel } from './labels.ts';
export {
  expandUpcE,
  gs1CheckDigit,
  hasValidGs1CheckDigit,
  isValidIsbn10,
  isbn10ToIsbn13,
} from './gs1-check-digits.ts';
export {
  GS,
  looksLikeGs1Syntax,
  parseGs1,
  type Gs1Data,
  type Gs1Element,
  type Gs1ParseResult,
} from './gs1-syntax.ts';
export { normaliseGtin, type GtinKind, type GtinResult } from './gtin.ts';
export { normaliseVin, vinCheckDigit, type VinResult } from './vin.ts';
export { normaliseNdc, type NdcResult } from './ndc.ts';
export { hibccCheckCharacter, normaliseUdi, type UdiResult } from './udi.ts';
export { isPlaceholder, normaliseTextCode, type TextCodeResult } from './text-codes.ts';
