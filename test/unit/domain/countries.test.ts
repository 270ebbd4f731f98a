import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KNOWN_COUNTRY_CODES, countryCode } from '../../../src/domain/countries.ts';

test('maps English country names and their common variants to ISO 3166-1 alpha-2 codes', () => {
  const cases: [string, string][] = [
    ['Germany', 'DE'],
    ['Czechia', 'CZ'],
    ['Czech Republic', 'CZ'],
    ['The Netherlands', 'NL'],
    ['Netherlands', 'NL'],
    ['United Kingdom', 'GB'],
    ['UK', 'GB'],
    ['Northern Ireland (UK)', 'GB'],
    ['Scotland', 'GB'],
    ['United States of America', 'US'],
    ['U.S.A.', 'US'],
    ["People's Republic of China", 'CN'],
    ['China', 'CN'],
    ['Hong Kong', 'HK'],
    ['Korea, Republic of', 'KR'],
    ['Türkiye', 'TR'],
    ['Turkey', 'TR'],
    ['Viet Nam', 'VN'],
    ['Slovak Republic', 'SK'],
    ['Bosnia & Herzegovina', 'BA'],
    ['Iceland', 'IS'],
    ['Liechtenstein', 'LI'],
    ['Norway', 'NO'],
    ['New Zealand', 'NZ'],
    ['Australia', 'AU'],
    ['Canada', 'CA'],
  ];
  for (const [name, code] of cases) assert.equal(countryCode(name), code, name);
});

test('ignores case, accents, surrounding space and a leading "the"', () => {
  assert.equal(countryCode('  FRANCE '), 'FR');
  assert.equal(countryCode('the united kingdom'), 'GB');
  assert.equal(countryCode('TURKIYE'), 'TR');
  assert.equal(countryCode('czech  republic'), 'CZ');
});

test('covers every EU and EEA country', () => {
  const eea = [
    ['Austria', 'AT'],
    ['Belgium', 'BE'],
    ['Bulgaria', 'BG'],
    ['Croatia', 'HR'],
    ['Cyprus', 'CY'],
    ['Czechia', 'CZ'],
    ['Denmark', 'DK'],
    ['Estonia', 'EE'],
    ['Finland', 'FI'],
    ['France', 'FR'],
    ['Germany', 'DE'],
    ['Greece', 'GR'],
    ['Hungary', 'HU'],
    ['Ireland', 'IE'],
    ['Italy', 'IT'],
    ['Latvia', 'LV'],
    ['Lithuania', 'LT'],
    ['Luxembourg', 'LU'],
    ['Malta', 'MT'],
    ['Netherlands', 'NL'],
    ['Poland', 'PL'],
    ['Portugal', 'PT'],
    ['Romania', 'RO'],
    ['Slovakia', 'SK'],
    ['Slovenia', 'SI'],
    ['Spain', 'ES'],
    ['Sweden', 'SE'],
    ['Iceland', 'IS'],
    ['Liechtenstein', 'LI'],
    ['Norway', 'NO'],
  ];
  for (const [name, code] of eea) assert.equal(countryCode(name!), code, name);
});

test('accepts a known two-letter code and refuses what it does not know', () => {
  assert.equal(countryCode('de'), 'DE');
  assert.equal(countryCode('GB'), 'GB');
  assert.equal(countryCode('EU'), null, 'the EU is not a country');
  assert.equal(countryCode('XX'), null);
  assert.equal(countryCode('Unknown'), null);
  assert.equal(countryCode('Atlantis'), null);
  assert.equal(countryCode(''), null);
  assert.equal(countryCode('   '), null);
  assert.equal(countryCode('America'), null, 'ambiguous, never guessed');
});

test('returns only two-letter upper-case codes', () => {
  for (const code of KNOWN_COUNTRY_CODES) assert.match(code, /^[A-Z]{2}$/);
});
