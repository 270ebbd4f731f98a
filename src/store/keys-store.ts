/** API keys: created, found by hash (kept in memory per keys version), listed, revoked. Only hashes are stored. */
import type { Kysely } from 'kysely';
import { BoundedCache, CacheRegistry } from '../node/caches.ts';
import { generateApiKey, hashApiKey, looksLikeApiKey, sameHash } from '../domain/api-keys.ts';
import { compile } from './compiled.ts';
import type { Engine } from './engine.ts';
import type { Database } from './schema.ts';
import type { StoreStateWatch } from './store-state.ts';

export interface ApiKeyRecord {
  id: string;
  prefix: string;
  name: string | null;
  plan: string;
  created_at: string;
  revoked_at: string | null;
}

/** Presented keys (by hash) whose record or absence each node keeps in memory: the last this many. */
export const KEYS_KEPT = 10_000;

/**
 * What a node knows of one presented key, by its hash: its record, or that there is none, as read at keys
 * version `at`. Authentication uses it only at that version; its plan serves the burst gate at any.
 */
interface PresentedKey {
  at: number;
  record: Readonly<ApiKeyRecord> | undefined;
}

const KEY_COLUMNS = ['id', 'prefix', 'name', 'plan', 'created_at', 'revoked_at'] as const;

/** A presented key's record (when it exists) and the corpus version, as this node knows them. */
export interface Authentication {
  record: ApiKeyRecord | undefined;
  corpusVersion: number;
}

export class KeysStore {
  private readonly byHash;
  /** One entry per presented key, by its hash (never the key). */
  private readonly presented: BoundedCache<string, PresentedKey>;

  constructor(
    private readonly db: Kysely<Database>,
    engine: Engine,
    private readonly state: StoreStateWatch,
    caches = new CacheRegistry(),
  ) {
    this.presented = caches.add(new BoundedCache('presented-keys', { max: KEYS_KEPT }));
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
  async authenticateHash(hash: string): Promise<Authentication> {
    const state = await this.state.current();
    const at = state.keysVersion;
    const kept = this.presented.get(hash, (k) => k.at === at);
    if (kept !== undefined) return { record: kept.record, corpusVersion: state.version };
    const record = await this.read(hash);
    // Read after the state was: at least as new as it. An entry read at a newer version meanwhile stays.
    const meanwhile = this.presented.peek(hash);
    if (meanwhile === undefined || meanwhile.at <= at) this.presented.set(hash, { at, record });
    return { record, corpusVersion: state.version };
  }

  /**
   * The plan of the key with this hash as this node last read it, at whatever keys version: null when it
   * names no key, undefined when not known here. From memory only; for the burst gate, before the lookup.
   */
  lastKnownPlan(hash: string): string | null | undefined {
    const known = this.presented.peek(hash);
    return known === undefined ? undefined : (known.record?.plan ?? null);
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
  async named(idOrKey: string): Promise<ApiKeyRecord | undefined> {
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
