/**
 * No personal data in the corpus: builds the whole corpus from every real sample and every
 * project fixture, then scans everything stored (recalls, identifiers, revisions) for the
 * e-mail addresses, phone numbers and personal names that the agencies' contact fields held.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import { createArchive } from '../../src/ingest/archive.ts';
import { createUpstreamClient } from '../../src/ingest/http-client.ts';
import { runIngest } from '../../src/ingest/pipeline.ts';
import { SOURCE_ADAPTERS } from '../../src/ingest/registry.ts';
import { openStore } from '../../src/store/database.ts';
import { requireShared, sharedPath } from '../support/shared.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const SAMPLES = fileURLToPath(new URL('../../samples/', import.meta.url));

const EMAIL = /[\w.+-]+@[\w-]+(\.[\w-]+)+/g;
const PHONE = /(\+?1[-. ]?)?\(?\b\d{3}\)?[-. ]\d{3}[-. ]\d{4}\b/g;
/**
 * A person's name as FSIS contact fields print it: two to four capitalised words, with initials,
 * hyphens and apostrophes (`Charles O’Neill`, `Nikki Credic-Barrett`, `Marwan Mahaboob Basha`).
 */
const PERSON = /^\p{Lu}[\p{L}’'.-]*(?: \p{Lu}[\p{L}’'.-]*){1,3}$/u;
/** Words that make a contact line a firm or a desk rather than a person ("Perdue Consumer Care"). */
const NOT_A_PERSON =
  /\b(Provisions|Foods?|Farms?|Inc|LLC|Ltd|Company|Co|Corp|Meats?|Market|Brands?|Products|Packing|Kitchen|Bakery|Dairy|Services?|Group|Sausage|Poultry|Seafood|Consumer|Customer|Care|Line|Media|Press|Relations|Affairs|Office|Department|Team|Hotline)\b/;

/**
 * The people an FSIS contact field names. `field_media_contact` holds one person (the FSIS press
 * officer). `field_company_media_contact` holds blocks of "Company Contact", the firm (sometimes
 * after a job title), then the person, optionally followed by their job title after a comma,
 * then a phone number and an e-mail address. The person is that third line; the firm line is
 * never taken, so firm, product and place names are not mistaken for people.
 */
function peopleIn(key: string, value: string): string[] {
  const tidy = (s: string) =>
    s
      .replace(/&amp;/g, '&')
      .replace(/&#0?39;/g, "'")
      .replace(/\s+/g, ' ')
      .trim();
  const candidates: string[] = [];
  if (/^field_media_contact$/.test(key)) candidates.push(...value.split(/[,;\n]/));
  if (/^field_company_media_contact$/.test(key)) {
    for (const block of value.split(/Company Contact/).slice(1)) {
      const lines = block
        .split('\n')
        .map(tidy)
        .filter((l) => l !== '');
      const person = lines[1];
      if (person !== undefined && !PHONE_OR_EMAIL.test(person)) candidates.push(person.split(',')[0]!);
    }
  }
  return candidates.map(tidy).filter((c) => PERSON.test(c) && !NOT_A_PERSON.test(c));
}
const PHONE_OR_EMAIL = /@|\d{3}[-. )]\d{3}/;

interface Contacts {
  emails: Set<string>;
  phones: Set<string>;
  names: Set<string>;
}

/** Collects what every contact field of every JSON file under `dir` holds. */
function collectContacts(dir: string, into: Contacts): void {
  const visit = (value: unknown, key: string | undefined): void => {
    if (typeof value === 'string') {
      if (key === undefined || !/contact/i.test(key)) return;
      for (const m of value.matchAll(EMAIL)) into.emails.add(m[0]);
      for (const m of value.matchAll(PHONE)) into.phones.add(m[0].replace(/^\+?1[-. ]?/, '').trim());
      for (const person of peopleIn(key, value)) into.names.add(person);
    } else if (Array.isArray(value)) {
      for (const v of value) visit(v, key);
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) visit(v, /contact/i.test(key ?? '') ? key : k);
    }
  };
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collectContacts(path, into);
    else if (name.endsWith('.json')) {
      try {
        visit(JSON.parse(readFileSync(path, 'utf8')), undefined);
      } catch {
        // not JSON (a deliberately broken fixture): holds no contact field to collect
      }
    }
  }
}

test('no e-mail, phone number or name from a contact field is stored anywhere', async (t) => {
  const shared = sharedPath('upstream-samples');
  if (!requireShared(t, shared, 'upstream-samples')) return;
  const dir = mkdtempSync(join(tmpdir(), 'recalls-pii-'));
  const store = await openStore({ engine: 'sqlite', path: join(dir, 'r.db') });
  try {
    const deps = {
      store,
      adapters: SOURCE_ADAPTERS,
      archive: createArchive(join(dir, 'archive')),
      client: createUpstreamClient(),
      sourceUrls: {},
    };
    const mirrors = [shared, SAMPLES, ...(existsSync(FIXTURES) ? [FIXTURES] : [])];
    const ingested = new Set<string>();
    for (const from of mirrors) {
      const result = await runIngest(deps, { from, force: true });
      assert.equal(result.status, 'completed');
      if (result.status !== 'completed') return;
      for (const s of result.sources) if (s.status === 'ok') ingested.add(s.sourceId);
    }
    assert.deepEqual(
      [...ingested].sort(),
      SOURCE_ADAPTERS.map((a) => a.meta.id).sort(),
      'every source contributed records from a sample or a fixture',
    );

    const contacts: Contacts = { emails: new Set(), phones: new Set(), names: new Set() };
    for (const from of mirrors) collectContacts(from, contacts);
    assert.ok(
      contacts.emails.size > 0 && contacts.phones.size > 0 && contacts.names.size > 0,
      'the samples do hold contact data to look for',
    );
    // The people the real FSIS records name; their firms (Yu Shang Food, Jen’s Breakfast Burritos,
    // conSup North America, Salm Partners) are not people and are not looked for.
    for (const person of ['Ling Li', 'Michael Martinez', 'Meredith Carothers', 'Charles O’Neill'])
      assert.ok(contacts.names.has(person), `${person} is looked for`);
    for (const firm of ['Yu Shang', 'Breakfast Burritos', 'North America', 'Salm Partners'])
      assert.ok(![...contacts.names].some((n) => n.includes(firm)), `${firm} is a firm, not a person`);

    const db = new SQLite(join(dir, 'r.db'), { readonly: true });
    const corpus = ['recalls', 'identifiers', 'revisions']
      .map((table) => JSON.stringify(db.prepare(`SELECT * FROM ${table}`).all()))
      .join('\n');
    db.close();
    const digitsOnly = corpus.replace(/\D+/g, ' ');
    const leaks: string[] = [];
    for (const e of contacts.emails) if (corpus.toLowerCase().includes(e.toLowerCase())) leaks.push(e);
    for (const p of contacts.phones) {
      const digits = p.replace(/\D/g, '');
      if (
        corpus.includes(p) ||
        digitsOnly.includes(` ${digits.slice(0, 3)} ${digits.slice(3, 6)} ${digits.slice(6)} `)
      )
        leaks.push(p);
    }
    for (const n of contacts.names) if (corpus.includes(n)) leaks.push(n);
    assert.deepEqual(
      leaks,
      [],
      `personal data found in the corpus (${contacts.emails.size} e-mails, ${contacts.phones.size} phones, ${contacts.names.size} names looked for)`,
    );
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
