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
/** Two or three capitalised words: how a person is named in a media-contact field. */
const NAME = /\b[A-Z][a-z]+(?: [A-Z]\.)? [A-Z][a-z]+(?:-[A-Z][a-z]+)?\b/g;
/** Firms are named in contact fields too; they are not personal data. */
const BUSINESS =
  /\b(Provisions|Foods?|Farms?|Inc|LLC|Ltd|Company|Co|Corp|Meats?|Market|Brands?|Products|Packing|Kitchen|Bakery|Dairy|Services?|Group|Sausage|Poultry|Seafood)\b/;
const NOT_NAMES =
  /^(Media|Press|Public|Consumer|Customer|Contact|Office|Affairs|Relations|Phone|Email|Inquiries|Food|Safety|Inspection|Service|Department|Agriculture|Company|United|States|Monday|Friday|Eastern|Time|Toll|Free)\b/;

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
      if (/media_contact/i.test(key)) {
        for (const m of value.matchAll(NAME))
          if (!NOT_NAMES.test(m[0]) && !BUSINESS.test(m[0])) into.names.add(m[0]);
      }
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
      contacts.emails.size > 0 && contacts.phones.size > 0,
      'the samples do hold contact data to look for',
    );

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
