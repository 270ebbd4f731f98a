/**
 * The migration list, applied in order by Kysely's Migrator. Each migration receives the
 * engine so that the few engine-specific statements (triggers) come from the engine file.
 * On SQLite, migrations run before the corpus tables move to their own file (corpus-file.ts): on a database
 * migrated before, a later migration finds them in schema `corpus`, where an index on one must be created
 * (`CREATE INDEX corpus.name ON recalls …`).
 */
import type { Kysely, Migration, MigrationProvider } from 'kysely';
import type { Engine } from '../engine.ts';
import * as initial from './0001-initial.ts';
import * as setAside from './0002-set-aside.ts';
import * as idempotencyUnique from './0003-idempotency-unique.ts';
import * as cursorSecret from './0004-cursor-secret.ts';
import * as renderedRecalls from './0005-rendered-recalls.ts';
import * as keysVersion from './0006-keys-version.ts';
import * as quotaLeases from './0007-quota-leases.ts';
import * as keysState from './0008-keys-state.ts';
import * as sourceRuns from './0009-source-runs.ts';
import * as ruleBuckets from './0010-rule-buckets.ts';

type EngineMigration = { up(db: Kysely<unknown>, engine: Engine): Promise<void> };

const MIGRATIONS: Record<string, EngineMigration> = {
  '0001-initial': initial,
  '0002-set-aside': setAside,
  '0003-idempotency-unique': idempotencyUnique,
  '0004-cursor-secret': cursorSecret,
  '0005-rendered-recalls': renderedRecalls,
  '0006-keys-version': keysVersion,
  '0007-quota-leases': quotaLeases,
  '0008-keys-state': keysState,
  '0009-source-runs': sourceRuns,
  '0010-rule-buckets': ruleBuckets,
};

/** The migrations' names, in order. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS);

export function migrationProvider(engine: Engine): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      const out: Record<string, Migration> = {};
      for (const [name, m] of Object.entries(MIGRATIONS)) out[name] = { up: (db) => m.up(db, engine) };
      return out;
    },
  };
}
