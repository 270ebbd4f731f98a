/**
 * No personal data in the corpus: builds the whole corpus from every real sample (the main mirror
 * and `_incoming`, the records no adapter read before) and every project fixture, then scans
 * everything stored (recalls, identifiers, revisions) for the e-mail addresses that any field held
 * and the phone numbers and personal names that the agencies' contact fields held.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SQLite } from '../../src/store/engines/sqlite-driver.ts';
import { corpusPathOf } from '../../src/store/engines/sqlite-files.ts';
import { createArchive } from '../../src/ingest/archive.ts';
import { createUpstreamClient } from '../../src/ingest/http-client.ts';
import { runIngest } from '../../src/ingest/pipeline.ts';
import { SOURCE_ADAPTERS, SOURCE_IDS } from '../../src/ingest/registry.ts';
import { openStore } from '../../src/store/database.ts';
import { sqliteOnly } from '../support/database.ts';
import { requireShared, sharedPath } from '../support/shared.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const SAMPLES = fileURLToPath(new URL('../../samples/', import.meta.url));

const EMAIL = /[\w.+-]+@[\w-]+(\.[\w-]+)+/g;
const PHONE = /(\+?1[-. ]?)?\(?\b\d{3}\)?[-. ]\d{3}[-. ]\d{4}\b/g;
/** A French number as RappelConso's `numero_contact` holds it: `0251501313`, `02 51 50 13 13`, `+33 2 51…`. */
const FRENCH_PHONE = /(?<!\d)(?:\+33 ?|0)[1-9](?:[ .-]?\d{2}){4}(?!\d)/g;
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
function peopleIn(key: string, value: string, firms: Set<string>): string[] {
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
      if (lines[0] !== undefined) firms.add(lines[0]);
      const person = lines[1];
      if (person !== undefined && !PHONE_OR_EMAIL.test(person)) candidates.push(person.split(',')[0]!);
    }
  }
  return candidates.map(tidy).filter((c) => PERSON.test(c) && !NOT_A_PERSON.test(c));
}
const PHONE_OR_EMAIL = /@|\d{3}[-. )]\d{3}/;

/** Matches `text` where no letter or digit adjoins it. */
function wholeWord(text: string): RegExp {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'u');
}

interface Contacts {
  emails: Set<string>;
  phones: Set<string>;
  names: Set<string>;
  /** The firm lines of the contact blocks: firm, product and place names, never looked for. */
  firms: Set<string>;
}

/** Collects the e-mail addresses of every field, and what every contact field holds, of every JSON file under `dir`. */
function collectContacts(dir: string, into: Contacts): void {
  const visit = (value: unknown, key: string | undefined): void => {
    if (typeof value === 'string') {
      // An address anywhere ("contact … by email at …" in advice prose) is masked where prose is kept.
      for (const m of value.matchAll(EMAIL)) into.emails.add(m[0]);
      if (key === undefined || !/contact/i.test(key)) return;
      for (const m of value.matchAll(PHONE)) into.phones.add(m[0].replace(/^\+?1[-. ]?/, '').trim());
      for (const m of value.matchAll(FRENCH_PHONE))
        into.phones.add(m[0].replace(/^\+33 ?/, '0').replace(/[ .-]/g, ''));
      for (const person of peopleIn(key, value, into.firms)) into.names.add(person);
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

const skip = sqliteOnly('reads its own SQLite file');

test('no e-mail, phone number or name from a contact field is stored anywhere', { skip }, async (t) => {
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
    const ingest = async (from: string) => {
      const result = await runIngest(deps, { from, force: true });
      assert.equal(result.status, 'completed');
      return result.status === 'completed' ? result.sources : [];
    };
    // The real records are what this test is about: each source that has them is ingested from
    // them. A project fixture stands in only for a source without real records, never for one
    // whose real records failed.
    // `_incoming/` holds real records kept apart from the main mirror (RappelConso's, among others).
    const incoming = join(shared, '_incoming');
    const realMirrors = [shared, ...(existsSync(incoming) ? [incoming] : [])];
    const ingested = new Set<string>();
    for (const mirror of realMirrors) {
      const real = new Map((await ingest(mirror)).map((o) => [o.sourceId, o]));
      for (const id of readdirSync(mirror).filter((name) => SOURCE_IDS.includes(name))) {
        // A folder whose adapter reads none of its files yet is left for the adapter that will.
        const adapter = SOURCE_ADAPTERS.find((a) => a.meta.id === id)!;
        if (!readdirSync(join(mirror, id)).some((f) => adapter.acceptsFile(f))) continue;
        const { status, reason } = real.get(id) ?? {};
        assert.equal(status, 'ok', `${id} ingested from its real records in ${mirror}: ${reason}`);
        ingested.add(id);
      }
    }
    for (const id of ['ca-hc', 'eu-safety-gate', 'fr-rappelconso'])
      assert.ok(ingested.has(id), `${id} ingested from its real records`);
    const mirrors = [...realMirrors, SAMPLES, ...(existsSync(FIXTURES) ? [FIXTURES] : [])];
    for (const from of mirrors.slice(realMirrors.length))
      for (const o of await ingest(from)) if (o.status === 'ok') ingested.add(o.sourceId);
    assert.deepEqual(
      [...ingested].sort(),
      [...SOURCE_IDS].sort(),
      'every source contributed records from a sample or a fixture',
    );

    const contacts: Contacts = { emails: new Set(), phones: new Set(), names: new Set(), firms: new Set() };
    for (const from of [shared, ...mirrors.slice(realMirrors.length)]) collectContacts(from, contacts);
    assert.ok(
      contacts.emails.size > 0 && contacts.phones.size > 0 && contacts.names.size > 0,
      'the samples do hold contact data to look for',
    );
    // The people the real FSIS records name are looked for; their firms (Yu Shang Food, Jen’s
    // Breakfast Burritos, conSup North America, Salm Partners) and the products and places in
    // firm names are not people, and are not.
    for (const person of ['Ling Li', 'Michael Martinez', 'Meredith Carothers', 'Charles O’Neill'])
      assert.ok(contacts.names.has(person), `${person} is looked for`);
    assert.ok(contacts.firms.size > 0);
    // RappelConso's `numero_contact` numbers (real ones, and the fixture's fictional 01 99 00 …).
    assert.ok(contacts.phones.has('0199001234'), "the fixture notice's number is looked for");
    assert.ok(
      [...contacts.phones].filter((p) => /^0[1-9]\d{8}$/.test(p) && !p.startsWith('0199')).length >= 20,
      "the real notices' numbers are looked for",
    );
    for (const firm of contacts.firms)
      for (const n of contacts.names) assert.ok(!firm.includes(n), `"${n}" is in the firm line "${firm}"`);
    for (const firm of ['Yu Shang', 'Breakfast Burritos', 'North America', 'Salm Partners', 'San Antonio'])
      assert.ok(![...contacts.names].some((n) => n.includes(firm)), `${firm} is not a person`);

    const db = new SQLite(corpusPathOf(join(dir, 'r.db')), { readonly: true });
    const corpus = ['recalls', 'identifiers', 'revisions']
      .map((table) => JSON.stringify(db.prepare(`SELECT * FROM ${table}`).all()))
      .join('\n');
    db.close();
    const digitsOnly = corpus.replace(/\D+/g, ' ');
    const leaks: string[] = [];
    for (const e of contacts.emails) if (corpus.toLowerCase().includes(e.toLowerCase())) leaks.push(e);
    for (const p of contacts.phones) {
      const digits = p.replace(/\D/g, '');
      const french = /^0[1-9]\d{8}$/.test(digits);
      if (
        corpus.includes(p) ||
        digitsOnly.includes(` ${digits.slice(0, 3)} ${digits.slice(3, 6)} ${digits.slice(6)} `) ||
        (french && digitsOnly.includes(` ${digits.replace(/(\d{2})(?=\d)/g, '$1 ')} `))
      )
        leaks.push(p);
    }
    // A name is found as a whole name, not inside a longer word ("Tim Yu" is not in "Tim Yung").
    for (const n of contacts.names) if (wholeWord(n).test(corpus)) leaks.push(n);
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
