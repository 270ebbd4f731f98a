/** API keys: created, found by hash, listed, revoked. Only hashes are stored. */
import type { Kysely } from 'kysely';
import { generateApiKey, hashApiKey, looksLikeApiKey, sameHash } from '../domain/api-keys.ts';
import type { Database } from './schema.ts';

export interface ApiKeyRecord {
  id: string;
  prefix: string;
  name: string | null;
  plan: string;
  created_at: string;
  revoked_at: string | null;
}

export class KeysStore {
  constructor(private readonly db: Kysely<Database>) {}

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
    if (!looksLikeApiKey(key)) return undefined;
    const hash = hashApiKey(key);
    const row = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_hash', '=', hash)
      .executeTakeFirst();
    if (row === undefined || !sameHash(row.key_hash, hash)) return undefined;
    const { key_hash: _hash, ...record } = row;
    return record;
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
