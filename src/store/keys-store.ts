/** API keys: created, found by hash, listed, revoked. Only hashes are stored. */
import type { Kysely } from 'kysely';
import { generateApiKey, hashApiKey, looksLikeApiKey, sameHash } from '../domain/api-keys.ts';
import { compile } from './compiled.ts';
import type { Engine } from './engine.ts';
import type { Database } from './schema.ts';

export interface ApiKeyRecord {
  id: string;
  prefix: string;
  name: string | null;
  plan: string;
  created_at: string;
  revoked_at: string | null;
}

/** One index probe by hash, joined to the corpus version: a keyed request's one read before its query. */
const selectByHash = (db: Kysely<Database>, hash: string) =>
  db
    .selectFrom('corpus_state as c')
    .leftJoin('api_keys as k', (join) => join.on('k.key_hash', '=', hash))
    .select([
      'k.id',
      'k.prefix',
      'k.key_hash',
      'k.name',
      'k.plan',
      'k.created_at',
      'k.revoked_at',
      'c.version as corpus_version',
    ])
    .where('c.id', '=', 1);

/** A presented key's record (when it exists) and the corpus version, read together. */
export interface Authentication {
  record: ApiKeyRecord | undefined;
  corpusVersion: number;
}

export class KeysStore {
  private readonly byHash;

  constructor(
    private readonly db: Kysely<Database>,
    engine: Engine,
  ) {
    this.byHash = compile(engine, (p: { hash: string }) => selectByHash(db, p.hash));
  }

  /** Creates a key; the returned `key` is the only time it exists in clear. */
  async create(plan: string, name: string | null, now: Date): Promise<ApiKeyRecord & { key: string }> {
    const { key, id, prefix } = generateApiKey();
    const record = { id, prefix, name, plan, created_at: now.toISOString(), revoked_at: null };
    await this.db
      .insertInto('api_keys')
      .values({ ...record, key_hash: hashApiKey(key) })
      .execute();
    return { ...record, key };
  }

  /** The key record for a presented key, or undefined when no such key exists. */
  async findByKey(key: string): Promise<ApiKeyRecord | undefined> {
    return looksLikeApiKey(key) ? (await this.authenticate(key)).record : undefined;
  }

  /** The record of a presented key (undefined when there is no such key) and the corpus version. */
  async authenticate(key: string): Promise<Authentication> {
    return this.authenticateHash(looksLikeApiKey(key) ? hashApiKey(key) : '');
  }

  /** `authenticate` for a key already hashed (`hashApiKey`); '' finds no key. */
  async authenticateHash(hash: string): Promise<Authentication> {
    const [row] = await this.byHash.all({ hash });
    if (row === undefined) throw new Error('corpus_state has no row');
    const corpusVersion = Number(row.corpus_version);
    if (hash === '' || row.key_hash === null || !sameHash(row.key_hash, hash))
      return { record: undefined, corpusVersion };
    return {
      record: {
        id: row.id!,
        prefix: row.prefix!,
        name: row.name ?? null,
        plan: row.plan!,
        created_at: row.created_at!,
        revoked_at: row.revoked_at ?? null,
      },
      corpusVersion,
    };
  }

  async list(): Promise<ApiKeyRecord[]> {
    return this.db
      .selectFrom('api_keys')
      .select(['id', 'prefix', 'name', 'plan', 'created_at', 'revoked_at'])
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** Revokes a key named by its id or by the key itself; undefined when there is no such key. */
  async revoke(idOrKey: string, now: Date): Promise<ApiKeyRecord | undefined> {
    const target = looksLikeApiKey(idOrKey)
      ? await this.findByKey(idOrKey)
      : await this.db
          .selectFrom('api_keys')
          .select(['id', 'prefix', 'name', 'plan', 'created_at', 'revoked_at'])
          .where('id', '=', idOrKey)
          .executeTakeFirst();
    if (target === undefined) return undefined;
    if (target.revoked_at !== null) return target;
    const revokedAt = now.toISOString();
    await this.db
      .updateTable('api_keys')
      .set({ revoked_at: revokedAt })
      .where('id', '=', target.id)
      .execute();
    return { ...target, revoked_at: revokedAt };
  }
}
