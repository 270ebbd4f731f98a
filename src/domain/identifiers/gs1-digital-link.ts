/** GS1 Digital Link URIs (`https://id.example/01/09520123456788/10/ABC1?17=251231`). */
import { aiSpec, type Gs1Element } from './gs1-ai.ts';
import { reject, type Rejection } from './kinds.ts';

/** Primary-key AIs, which may start the AI part of a DL path. */
const DL_PRIMARY_KEYS = new Set([
  '00',
  '01',
  '253',
  '255',
  '401',
  '402',
  '414',
  '417',
  '8003',
  '8004',
  '8006',
  '8010',
  '8013',
  '8017',
  '8018',
]);

/** Digital Link convenience names for AIs. */
// prettier-ignore
const DL_ALIASES: Readonly<Record<string, string>> = {
  gtin: '01', sscc: '00', lot: '10', ser: '21', cpv: '22', exp: '17', bbd: '15', expdt: '7003',
  gln: '414', itip: '8006', gmn: '8013', cpid: '8010', giai: '8004', grai: '8003',
};

function decode(component: string): string | undefined {
  try {
    return decodeURIComponent(component);
  } catch {
    return undefined;
  }
}

/** AIs from the path (after any stem, convenience names allowed) and the query, percent-decoded. */
export function readDigitalLink(uri: string): Gs1Element[] | Rejection {
  const m = /^https?:\/\/[^/?#\s]+([^?#\s]*)(?:\?([^#\s]*))?(?:#\S*)?$/i.exec(uri);
  if (!m) return reject('invalid_characters', 'not a well-formed Digital Link URI');
  const path = m[1] ?? '';
  const query = m[2] ?? '';
  if (path === '' || path === '/')
    return reject('invalid_characters', 'the Digital Link URI has no GS1 path');
  if (path.endsWith('/')) return reject('invalid_characters', 'a Digital Link URI must not end with a slash');
  const segments: string[] = [];
  for (const raw of path.slice(1).split('/')) {
    const s = decode(raw);
    if (s === undefined) return reject('invalid_characters', 'bad percent-encoding in the Digital Link URI');
    segments.push(s);
  }
  const keyOf = (s: string): string => DL_ALIASES[s] ?? s;
  const isAi = (s: string): boolean => /^\d{2,4}$/.test(s) && aiSpec(s) !== undefined;
  let start = -1;
  for (let i = 0; i + 1 < segments.length; i++) {
    if (!DL_PRIMARY_KEYS.has(keyOf(segments[i] ?? ''))) continue;
    if ((segments.length - i) % 2 !== 0) continue;
    let pairs = true;
    for (let j = i; j < segments.length; j += 2) pairs &&= isAi(keyOf(segments[j] ?? ''));
    if (pairs) {
      start = i;
      break;
    }
  }
  if (start < 0)
    return reject(
      'invalid_characters',
      'no GS1 primary key (such as /01/ and a GTIN) in the Digital Link path',
    );
  const elements: Gs1Element[] = [];
  for (let j = start; j < segments.length; j += 2) {
    elements.push({ ai: keyOf(segments[j] ?? ''), value: segments[j + 1] ?? '' });
  }
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = decode(eq < 0 ? '' : pair.slice(eq + 1));
    if (key === undefined || value === undefined) {
      return reject('invalid_characters', 'bad percent-encoding in the Digital Link query');
    }
    const ai = keyOf(key);
    if (/^\d+$/.test(ai)) {
      if (!isAi(ai))
        return reject(
          'invalid_characters',
          `unknown GS1 application identifier ${ai} in the Digital Link query`,
        );
      elements.push({ ai, value });
    }
    // Other query parameters (linkType, context …) are not GS1 data.
  }
  // A DL path may carry a GTIN-8, -12 or -13: pad to 14.
  for (const el of elements) {
    if (el.ai === '01' && /^(\d{8}|\d{12}|\d{13})$/.test(el.value)) el.value = el.value.padStart(14, '0');
  }
  return elements;
}
