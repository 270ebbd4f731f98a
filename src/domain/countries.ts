/** English country names as agencies print them → ISO 3166-1 alpha-2. Pure: no I/O, no imports. */

/** Canonical English names and common variants, keyed by code. Keys of the lookup are folded (see `fold`). */
const NAMES: Readonly<Record<string, readonly string[]>> = {
  // European Union
  AT: ['Austria'],
  BE: ['Belgium'],
  BG: ['Bulgaria'],
  HR: ['Croatia'],
  CY: ['Cyprus'],
  CZ: ['Czechia', 'Czech Republic'],
  DK: ['Denmark'],
  EE: ['Estonia'],
  FI: ['Finland'],
  FR: ['France'],
  DE: ['Germany', 'Federal Republic of Germany'],
  GR: ['Greece', 'Hellas'],
  HU: ['Hungary'],
  IE: ['Ireland', 'Republic of Ireland', 'Eire'],
  IT: ['Italy'],
  LV: ['Latvia'],
  LT: ['Lithuania'],
  LU: ['Luxembourg'],
  MT: ['Malta'],
  NL: ['Netherlands', 'The Netherlands', 'Holland', 'Kingdom of the Netherlands'],
  PL: ['Poland'],
  PT: ['Portugal'],
  RO: ['Romania'],
  SK: ['Slovakia', 'Slovak Republic'],
  SI: ['Slovenia'],
  ES: ['Spain'],
  SE: ['Sweden'],
  // EEA and EFTA
  IS: ['Iceland'],
  LI: ['Liechtenstein'],
  NO: ['Norway'],
  CH: ['Switzerland'],
  // United Kingdom: ISO 3166-1 has one code for the whole state, its nations included
  GB: [
    'United Kingdom',
    'United Kingdom of Great Britain and Northern Ireland',
    'UK',
    'U.K.',
    'Great Britain',
    'Britain',
    'England',
    'Scotland',
    'Wales',
    'Northern Ireland',
    'Northern Ireland (UK)',
    'United Kingdom (Northern Ireland)',
  ],
  // North America and Oceania
  US: ['United States', 'United States of America', 'USA', 'U.S.A.', 'US', 'U.S.'],
  CA: ['Canada'],
  MX: ['Mexico'],
  AU: ['Australia'],
  NZ: ['New Zealand', 'Aotearoa New Zealand'],
  // Asia
  CN: [
    'China',
    "People's Republic of China",
    'PR China',
    'P.R. China',
    'PRC',
    "China (People's Republic of)",
  ],
  HK: ['Hong Kong', 'Hong Kong SAR', 'Hong Kong, China', 'Hong Kong SAR, China'],
  MO: ['Macao', 'Macau'],
  TW: ['Taiwan', 'Taiwan, Province of China', 'Chinese Taipei'],
  JP: ['Japan'],
  KR: ['South Korea', 'Korea, Republic of', 'Republic of Korea', 'Korea (Republic of)', 'Korea, South'],
  IN: ['India'],
  PK: ['Pakistan'],
  BD: ['Bangladesh'],
  LK: ['Sri Lanka'],
  VN: ['Vietnam', 'Viet Nam'],
  TH: ['Thailand'],
  MY: ['Malaysia'],
  ID: ['Indonesia'],
  PH: ['Philippines', 'The Philippines'],
  SG: ['Singapore'],
  KH: ['Cambodia'],
  MM: ['Myanmar', 'Burma'],
  // Europe outside the EEA, Middle East, Africa, South America
  TR: ['Turkey', 'Türkiye', 'Turkiye'],
  RU: ['Russia', 'Russian Federation'],
  UA: ['Ukraine'],
  BY: ['Belarus'],
  MD: ['Moldova', 'Republic of Moldova'],
  RS: ['Serbia'],
  BA: ['Bosnia and Herzegovina', 'Bosnia & Herzegovina', 'Bosnia-Herzegovina'],
  ME: ['Montenegro'],
  MK: ['North Macedonia', 'Macedonia', 'Republic of North Macedonia'],
  AL: ['Albania'],
  IL: ['Israel'],
  AE: ['United Arab Emirates', 'UAE', 'U.A.E.'],
  SA: ['Saudi Arabia'],
  IR: ['Iran', 'Iran, Islamic Republic of'],
  EG: ['Egypt'],
  MA: ['Morocco'],
  TN: ['Tunisia'],
  ZA: ['South Africa'],
  BR: ['Brazil'],
  AR: ['Argentina'],
  CL: ['Chile'],
  PE: ['Peru'],
  CO: ['Colombia'],
};

/** Folds a name: no accents, lower case, `&` → `and`, no punctuation, collapsed spaces, no leading "the". */
function fold(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .replace(/^the /, '');
}

const LOOKUP: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  for (const [code, names] of Object.entries(NAMES)) {
    for (const name of names) map.set(fold(name), code);
  }
  return map;
})();

/** Every code this module can return, for callers that validate a stored value. */
export const KNOWN_COUNTRY_CODES: ReadonlySet<string> = new Set(Object.keys(NAMES));

/** Alpha-2 code of a name ("Northern Ireland (UK)" → `GB`) or code (`UK` → `GB`); else null: never guesses. */
export function countryCode(name: string): string | null {
  const folded = fold(name);
  if (folded === '') return null;
  const byName = LOOKUP.get(folded);
  if (byName !== undefined) return byName;
  const upper = folded.toUpperCase();
  return /^[A-Z]{2}$/.test(upper) && KNOWN_COUNTRY_CODES.has(upper) ? upper : null;
}
