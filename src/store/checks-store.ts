/**
 * Check receipts: written once, read by their key only. The database refuses to change them, and
 * one use of an Idempotency-Key (key_id, idempotency_key, idempotency_generation) records one.
 */
import type { Kysely } from 'kysely';
import type { CheckReceipt, CheckReceiptSummary } from '../domain/check.ts';
import type { Metered } from '../domain/meters.ts';
import type { Engine } from './engine.ts';
import type { Database } from './schema.ts';
import type { UsageLimits, UsageStore } from './usage-store.ts';

export interface ReceiptWrite {
  receipt: CheckReceipt;
  keyId: string;
  idempotencyKey: string | null;
  requestHash: string | null;
  /** Which use of `idempotencyKey` this is; null without one. */
  idempotencyGeneration: number | null;
}

/** Usage a receipt is charged, reserved in the transaction that records it. */
export interface ReceiptCharge {
  month: string;
  amount: Metered;
  limits: UsageLimits;
}

/** A receipt of an Idempotency-Key, with what it was made from. */
export interface IdempotentUse {
  receipt: CheckReceipt;
  requestHash: string | null;
  generation: number | null;
}

/** Thrown inside the recording transaction to roll it back when the charge does not fit. */
class OverQuota extends Error {}

type ChecksRow = Database['checks'];
type CheckWrite = Omit<ChecksRow, 'seq'>;

function toRow(write: ReceiptWrite): CheckWrite {
  const r = write.receipt;
  return {
    check_id: r.check_id,
    key_id: write.keyId,
    label: r.label,
    performed_at: r.performed_at,
    submitted_count: r.submitted_count,
    submitted_digest: r.submitted_digest,
    rejected: JSON.stringify(r.rejected),
    match_count: r.match_count,
    result_digest: r.result_digest,
    corpus_as_of: r.corpus_as_of,
    corpus_size: r.corpus_size,
    matches: JSON.stringify(r.matches),
    idempotency_key: write.idempotencyKey,
    request_hash: write.requestHash,
    idempotency_generation: write.idempotencyGeneration,
  };
}

function toSummary(row: Omit<ChecksRow, 'seq'>): CheckReceiptSummary {
  const rejected = JSON.parse(row.rejected) as CheckReceipt['rejected'];
  return {
    check_id: row.check_id,
    label: row.label,
    performed_at: row.performed_at,
    submitted_count: row.submitted_count,
    submitted_digest: row.submitted_digest,
    rejected_count: rejected.length,
    rejected,
    match_count: row.match_count,
    result_digest: row.result_digest,
    corpus_as_of: row.corpus_as_of,
    corpus_size: row.corpus_size,
  };
}

function toReceipt(row: Omit<ChecksRow, 'seq'>): CheckReceipt {
  return { ...toSummary(row), matches: JSON.parse(row.matches) as CheckReceipt['matches'] };
}

export class ChecksStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
    private readonly usage: UsageStore,
  ) {}

  /**
   * Records a receipt and reserves its charge in one transaction; it is committed (durable) when
   * this resolves `recorded`. `taken`: this use of the Idempotency-Key already has a receipt
   * (a concurrent insert is waited for), nothing is written; `over-quota`: nothing is written.
   */
  async record(
    write: ReceiptWrite,
    charge: ReceiptCharge | null,
  ): Promise<'recorded' | 'taken' | 'over-quota'> {
    try {
      return await this.engine.withoutStall(() => this.transaction(write, charge));
    } catch (error) {
      if (error instanceof OverQuota) return 'over-quota';
      throw error;
    }
  }

  /** The receipt and its charge in one transaction (run again whole if the write lock was busy). */
  private transaction(write: ReceiptWrite, charge: ReceiptCharge | null): Promise<'recorded' | 'taken'> {
    return this.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('checks')
        .values(toRow(write))
        .onConflict((oc) => oc.columns(['key_id', 'idempotency_key', 'idempotency_generation']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return 'taken';
      if (
        charge !== null &&
        !(await this.usage.reserveIn(trx, write.keyId, charge.month, charge.amount, charge.limits))
      )
        throw new OverQuota();
      return 'recorded';
    });
  }

  /** A receipt of this key, with its matches; undefined for a missing one or another key's. */
  async get(keyId: string, checkId: string): Promise<CheckReceipt | undefined> {
    const row = await this.db
      .selectFrom('checks')
      .selectAll()
      .where('check_id', '=', checkId)
      .where('key_id', '=', keyId)
      .executeTakeFirst();
    return row === undefined ? undefined : toReceipt(row);
  }

  /** This key's receipts without matches, newest first, after receipt `afterCheckId` (no global sequence). */
  async list(
    keyId: string,
    limit: number,
    afterCheckId?: string,
  ): Promise<{ rows: CheckReceiptSummary[]; more: boolean; lastCheckId: string | null }> {
    let q = this.db.selectFrom('checks').selectAll().where('key_id', '=', keyId);
    if (afterCheckId !== undefined) {
      q = q.where('seq', '<', (eb) =>
        eb
          .selectFrom('checks')
          .select('seq')
          .where('check_id', '=', afterCheckId)
          .where('key_id', '=', keyId),
      );
    }
    const rows = await q
      .orderBy('seq', 'desc')
      .limit(limit + 1)
      .execute();
    const page = rows.slice(0, limit);
    return {
      rows: page.map(toSummary),
      more: rows.length > limit,
      lastCheckId: page.length > 0 ? page[page.length - 1]!.check_id : null,
    };
  }

  /** The id of a key's newest receipt ('' when none): changes whenever the key's list does, and names no global counter. */
  async latestCheckId(keyId: string): Promise<string> {
    const row = await this.db
      .selectFrom('checks')
      .select('check_id')
      .where('key_id', '=', keyId)
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.check_id ?? '';
  }

  /** The newest receipt an Idempotency-Key of this key produced, whenever it was. */
  async latestIdempotent(keyId: string, idempotencyKey: string): Promise<IdempotentUse | undefined> {
    const row = await this.db
      .selectFrom('checks')
      .selectAll()
      .where('key_id', '=', keyId)
      .where('idempotency_key', '=', idempotencyKey)
      .orderBy('seq', 'desc')
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      receipt: toReceipt(row),
      requestHash: row.request_hash,
      generation: row.idempotency_generation === null ? null : Number(row.idempotency_generation),
    };
  }
}
