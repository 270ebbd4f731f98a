/** The GS1 application identifiers (AIs) this parser knows (GS1 General Specifications). */
/** One AI and its value. */
export interface Gs1Element {
  ai: string;
  value: string;
}

/** The value an AI takes: its length range and character set. */
export interface AiSpec {
  readonly pattern: RegExp;
  readonly min: number;
  readonly max: number;
  /** Digits only; otherwise the GS1 82-character set. */
  readonly numeric: boolean;
}

/** The AIs this parser knows, with their value lengths (GS1 General Specifications 3.2). */
const AI_TABLE: readonly AiSpec[] = [
  { pattern: /^00$/, min: 18, max: 18, numeric: true },
  { pattern: /^0[1-3]$/, min: 14, max: 14, numeric: true },
  { pattern: /^10$/, min: 1, max: 20, numeric: false },
  { pattern: /^1[1235-7]$/, min: 6, max: 6, numeric: true },
  { pattern: /^20$/, min: 2, max: 2, numeric: true },
  { pattern: /^2[12]$/, min: 1, max: 20, numeric: false },
  { pattern: /^235$/, min: 1, max: 28, numeric: false },
  { pattern: /^24[01]$/, min: 1, max: 30, numeric: false },
  { pattern: /^242$/, min: 1, max: 6, numeric: true },
  { pattern: /^243$/, min: 1, max: 20, numeric: false },
  { pattern: /^25[01]$/, min: 1, max: 30, numeric: false },
  { pattern: /^253$/, min: 13, max: 30, numeric: false },
  { pattern: /^254$/, min: 1, max: 20, numeric: false },
  { pattern: /^255$/, min: 13, max: 25, numeric: true },
  { pattern: /^30$/, min: 1, max: 8, numeric: true },
  { pattern: /^3[1-6]\d\d$/, min: 6, max: 6, numeric: true },
  { pattern: /^37$/, min: 1, max: 8, numeric: true },
  { pattern: /^39\d\d$/, min: 1, max: 18, numeric: true },
  { pattern: /^40[013]$/, min: 1, max: 30, numeric: false },
  { pattern: /^402$/, min: 17, max: 17, numeric: true },
  { pattern: /^41[0-7]$/, min: 13, max: 13, numeric: true },
  { pattern: /^42[0-7]$/, min: 1, max: 15, numeric: false },
  { pattern: /^43\d\d$/, min: 1, max: 70, numeric: false },
  { pattern: /^70\d\d$/, min: 1, max: 30, numeric: false },
  { pattern: /^71\d$/, min: 1, max: 20, numeric: false },
  { pattern: /^72\d\d$/, min: 1, max: 30, numeric: false },
  { pattern: /^8001$/, min: 14, max: 14, numeric: true },
  { pattern: /^80(06|17|18|26)$/, min: 18, max: 18, numeric: true },
  { pattern: /^80\d\d$/, min: 1, max: 90, numeric: false },
  { pattern: /^8[12]\d\d$/, min: 1, max: 70, numeric: false },
  { pattern: /^90$/, min: 1, max: 30, numeric: false },
  { pattern: /^9[1-9]$/, min: 1, max: 90, numeric: false },
];

/** AIs whose value ends in a GS1 mod-10 check digit. */
export const CHECKED_AIS = /^(00|0[1-3]|41[0-7]|80(17|18))$/;

/** AI prefixes of predefined length (no FNC1 after them) → value length (GS1 GenSpecs fig. 7.8.5-2). */
// prettier-ignore
export const PREDEFINED_LENGTH: Readonly<Record<string, number>> = {
  '00': 18, '01': 14, '02': 14, '03': 14, '04': 16,
  '11': 6, '12': 6, '13': 6, '14': 6, '15': 6, '16': 6, '17': 6, '18': 6, '19': 6, '20': 2,
  '31': 6, '32': 6, '33': 6, '34': 6, '35': 6, '36': 6, '41': 13,
};

/** The GS1 AI encodable character set 82 (no spaces). */
export const CSET82 = /^[!"%&'()*+,\-./0-9:;<=>?A-Z_a-z]+$/;

/** The spec of a known AI; undefined for an AI this parser does not know. */
export function aiSpec(ai: string): AiSpec | undefined {
  return AI_TABLE.find((s) => s.pattern.test(ai));
}

/** The length of the AI at the start of unbracketed data, from its first two digits. */
export function aiLengthAt(data: string): 2 | 3 | 4 | undefined {
  const p = data.slice(0, 2);
  if (/^(0[0-4]|1\d|2[0-2]|30|37|9\d)$/.test(p)) return 2;
  if (/^(2[3-5]|4[0-2]|71)$/.test(p)) return 3;
  if (/^(3[1-69]|43|70|72|8[0-2])$/.test(p)) return 4;
  return undefined;
}
