/** API keys: created, found by hash (kept in memory per keys version), listed, revoked. Only hashes are stored. */
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { generateApiKey, hashApiKey, looksLikeApiKey, sameHash } from '../domain/api-keys.ts';
import { andThen, type MaybePromise } from '../domain/maybe-promise.ts';
import { compile } from './compiled.ts';
import type { Engine } from './engine.ts';
import type { Database } from './schema.ts';
import type { StoreState, StoreStateWatch } from './store-state.ts';

export interface ApiKeyRecord {
  id: string;
  prefix: string;
  name: string | null;
  plan: string;
  created_at: string;
  revoked_at: string | null;
}

/** Key hashes whose record (or absence) each node keeps in memory, until any key changes. */
export const KEYS_KEPT = 10_000;

/** Kept for a hash that names no key. */
const NO_KEY = Symbol('no key');

const KEY_COLUMNS = ['id', 'prefix', 'name', 'plan', 'created_at', 'revoked_at'] as const;

/** A presented key's record (when it exists) and the corpus version, as this node knows them. */
export interface Authentication {
  record: ApiKeyRecord | undefined;
  corpusVersion: number;
}

export class KeysStore {
  private readonly byHash;
  /** Records by key hash, valid at keys version `keptAt`. */
  private readonly kept = new LRUCache<string, Readonly<ApiKeyRecord> | typeof NO_KEY>({ max: KEYS_KEPT });
  private keptAt = -1;

  constructor(
    private readonly db: Kysely<Database>,
    engine: Engine,
    private readonly state: StoreStateWatch,
  ) {
    this.byHash = compile(engine, (p: { hash: string }) =>
      db
        .selectFrom('api_keys')
        .select([...KEY_COLUMNS, 'key_hash'])
        .where('key_hash', '=', p.hash),
    );
  }

  /** Creates a key; the returned `key` is the only time it exists in clear. */
  async create(plan: string, name: string | null, now: Date): Promise<ApiKeyRecord & { key: string }> {
    const { key, id, prefix } = generateApiKey();
    const record = { id, prefix, name, plan, created_at: now.toISOString(), revoked_at: null };
    await this.db
      .insertInto('api_keys')
      .values({ ...record, key_hash: hashApiKey(key) })
      .execute();
    this.state.invalidate();
    return { ...record, key };
  }

  /** The key record for a presented key, or undefined when no such key exists (read from the database). */
  async findByKey(key: string): Promise<ApiKeyRecord | undefined> {
    return looksLikeApiKey(key) ? this.read(hashApiKey(key)) : undefined;
  }

  /**
   * The record of a key already hashed (`hashApiKey`; undefined when there is no such key) and the corpus
   * version, from memory: a hash is read once per keys version (any key created, revoked or changed anywhere
   * moves it, see store-state.ts for how soon each node knows).
   */
  authenticateHash(hash: string): MaybePromise<Authentication> {
    return andThen(this.state.current(), (state) => this.authenticateAt(hash, state));
  }

  /** As `authenticateHash` at a known state: without a promise when the key is kept in memory. */
  private authenticateAt(hash: string, state: StoreState): MaybePromise<Authentication> {
    if (state.keysVersion > this.keptAt) {
      this.kept.clear();
      this.keptAt = state.keysVersion;
    }
    const kept = this.kept.get(hash);
    const answer = (entry: Readonly<ApiKeyRecord> | typeof NO_KEY): Authentication => ({
      record: entry === NO_KEY ? undefined : entry,
      corpusVersion: state.version,
    });
    if (kept !== undefined) return answer(kept);
    return this.read(hash).then((record) => {
      const entry = record ?? NO_KEY;
      // Read after the state was: at least as new as it, unless a newer keys version came meanwhile.
      if (this.keptAt === state.keysVersion) this.kept.set(hash, entry);
      return answer(entry);
    });
  }

  private async read(hash: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.byHash.all({ hash });
    if (row === undefined || !sameHash(row.key_hash, hash)) return undefined;
    const { key_hash: _, ...record } = row;
    return record;
  }

  async list(): Promise<ApiKeyRecord[]> {
    return this.db.selectFrom('api_keys').select(KEY_COLUMNS).orderBy('created_at').orderBy('id').execute();
  }

  /** A key named by its id or by the key itself. */
  private async named(idOrKey: string): Promise<ApiKeyRecord | undefined> {
    return looksLikeApiKey(idOrKey)
      ? this.findByKey(idOrKey)
      : this.db.selectFrom('api_keys').select(KEY_COLUMNS).where('id', '=', idOrKey).executeTakeFirst();
  }

  /**
   * Moves a key (by id or key) to another plan; undefined when there is no such key. Every node applies the new
   * plan's quota from its next request after it sees the change (as soon as a revocation).
   */
  async setPlan(idOrKey: string, plan: string): Promise<ApiKeyRecord | undefined> {
    const target = await this.named(idOrKey);
    if (target === undefined || target.plan === plan) return target;
    await this.db.updateTable('api_keys').set({ plan }).where('id', '=', target.id).execute();
    this.state.invalidate();
    return { ...target, plan };
  }

  /** Revokes a key named by its id or by the key itself; undefined when there is no such key. */
  async revoke(idOrKey: string, now: Date): Promise<ApiKeyRecord | undefined> {
    const target = await this.named(idOrKey);
    if (target === undefined) return undefined;
    if (target.revoked_at !== null) return target;
    const revokedAt = now.toISOString();
    await this.db
      .updateTable('api_keys')
      .set({ revoked_at: revokedAt })
      .where('id', '=', target.id)
      .execute();
    this.state.invalidate(); // refused by this node's next request
    return { ...target, revoked_at: revokedAt };
  }
}
