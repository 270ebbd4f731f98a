/** Check receipts: written once, read by their key only. The database refuses to change them. */
import type { Kysely } from 'kysely';
import type { CheckReceipt } from '../domain/check.ts';
import { compile, type Statement } from './compiled.ts';
import type { Engine } from './engine.ts';
import type { Database } from './schema.ts';

export interface ReceiptWrite {
  receipt: CheckReceipt;
  keyId: string;
  idempotencyKey: string | null;
  requestHash: string | null;
}

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
    matches: JSON.stringify(r.matches ?? []),
    idempotency_key: write.idempotencyKey,
    request_hash: write.requestHash,
  };
}

function toReceipt(row: Omit<ChecksRow, 'seq'>, withMatches: boolean): CheckReceipt {
  return {
    check_id: row.check_id,
    label: row.label,
    performed_at: row.performed_at,
    submitted_count: row.submitted_count,
    submitted_digest: row.submitted_digest,
    rejected_count: (JSON.parse(row.rejected) as unknown[]).length,
    rejected: JSON.parse(row.rejected) as CheckReceipt['rejected'],
    match_count: row.match_count,
    result_digest: row.result_digest,
    corpus_as_of: row.corpus_as_of,
    corpus_size: row.corpus_size,
    ...(withMatches ? { matches: JSON.parse(row.matches) as CheckReceipt['matches'] } : {}),
  };
}

export class ChecksStore {
  private readonly insertRow: Statement<CheckWrite, unknown>;

  constructor(
    private readonly db: Kysely<Database>,
    engine: Engine,
  ) {
    this.insertRow = compile(engine, (p: CheckWrite) =>
      db.insertInto('checks').values({
        check_id: p.check_id,
        key_id: p.key_id,
        label: p.label,
        performed_at: p.performed_at,
        submitted_count: p.submitted_count,
        submitted_digest: p.submitted_digest,
        rejected: p.rejected,
        match_count: p.match_count,
        result_digest: p.result_digest,
        corpus_as_of: p.corpus_as_of,
        corpus_size: p.corpus_size,
        matches: p.matches,
        idempotency_key: p.idempotency_key,
        request_hash: p.request_hash,
      } satisfies Record<keyof CheckWrite, unknown>),
    );
  }

  /** Records a receipt; it is committed (durable) when this resolves. */
  async insert(write: ReceiptWrite): Promise<void> {
    await this.insertRow.run(toRow(write));
  }

  /** A receipt of this key, with its matches; undefined for a missing one or another key's. */
  async get(keyId: string, checkId: string): Promise<CheckReceipt | undefined> {
    const row = await this.db
      .selectFrom('checks')
      .selectAll()
      .where('check_id', '=', checkId)
      .where('key_id', '=', keyId)
      .executeTakeFirst();
    return row === undefined ? undefined : toReceipt(row, true);
  }

  /**
   * This key's receipts without matches, newest first, after the receipt `afterCheckId` (the
   * last of the previous page: positions name a receipt, never the global sequence).
   */
  async list(
    keyId: string,
    limit: number,
    afterCheckId?: string,
  ): Promise<{ rows: CheckReceipt[]; more: boolean; lastCheckId: string | null }> {
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
      rows: page.map((r) => toReceipt(r, false)),
      more: rows.length > limit,
      lastCheckId: page.length > 0 ? page[page.length - 1]!.check_id : null,
    };
  }

  /** The newest receipt position of a key (0 when none): changes whenever the key's list does. */
  async latestSeq(keyId: string): Promise<number> {
    const row = await this.db
      .selectFrom('checks')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .where('key_id', '=', keyId)
      .executeTakeFirst();
    return Number(row?.seq ?? 0);
  }

  /** The receipt an Idempotency-Key produced for this key since `since`, with its request hash. */
  async findIdempotent(
    keyId: string,
    idempotencyKey: string,
    since: string,
  ): Promise<{ receipt: CheckReceipt; requestHash: string | null } | undefined> {
    const row = await this.db
      .selectFrom('checks')
      .selectAll()
      .where('key_id', '=', keyId)
      .where('idempotency_key', '=', idempotencyKey)
      .where('performed_at', '>=', since)
      .orderBy('seq', 'desc')
      .executeTakeFirst();
    return row === undefined ? undefined : { receipt: toReceipt(row, true), requestHash: row.request_hash };
  }
}
