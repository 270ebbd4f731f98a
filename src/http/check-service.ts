/**
 * Runs a catalogue check for a key: idempotent replay, identifier quota, one set-based match
 * query, the receipt, and its immutable record.
 */
import { createHash } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { randomBase62 } from '../domain/api-keys.ts';
import { buildReceipt, planCheck, type CheckReceipt } from '../domain/check.ts';
import { Text } from '../domain/json-schema.ts';
import type { Plan } from '../config.ts';
import type { Store } from '../store/database.ts';
import type { QuotaHold } from './context.ts';
import { reserveQuota } from './gates/quota.ts';
import { invalidParameter } from './problems.ts';
import type { SourceCatalog } from './source-catalog.ts';

/** The body of POST /v1/checks. */
export const CheckBody = Type.Object(
  {
    label: Type.Optional(Text({ maxLength: 200, description: "The caller's own reference; echoed back" })),
    identifiers: Type.Array(
      Type.Object(
        {
          kind: Type.String({
            description: 'Identifier kind (case-insensitive); another string is rejected as unknown_kind',
          }),
          value: Type.String(),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 1000 },
    ),
  },
  { additionalProperties: false },
);
export type CheckInput = Static<typeof CheckBody>;

const REPLAY_WINDOW_MS = 24 * 3_600_000;

/** Validates an Idempotency-Key header: 1 to 255 printable ASCII characters. */
export function parseIdempotencyKey(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  if (Array.isArray(header) || !/^[\x20-\x7e]{1,255}$/.test(header)) {
    throw invalidParameter(
      'Idempotency-Key',
      'Idempotency-Key must be 1 to 255 printable ASCII characters, sent once.',
    );
  }
  return header;
}

function requestHash(input: CheckInput): string {
  return createHash('sha256')
    .update(JSON.stringify([input.label ?? null, input.identifiers.map((i) => [i.kind, i.value])]))
    .digest('hex');
}

export class CheckService {
  private sizeCache: { version: number; size: number } | undefined;

  constructor(
    private readonly store: Store,
    private readonly catalog: SourceCatalog,
  ) {}

  private async corpusSize(version: number): Promise<number> {
    if (this.sizeCache?.version !== version)
      this.sizeCache = { version, size: await this.store.recalls.size() };
    return this.sizeCache.size;
  }

  /**
   * Performs the check and records the receipt. `hold` is the request's quota reservation: the
   * identifiers are added to it (so a failure gives them back), and a replay marks it refunded.
   */
  async run(
    input: CheckInput,
    key: { id: string; plan: Plan },
    hold: QuotaHold,
    idempotencyKey: string | null,
    now: Date,
    corpusVersion: number,
  ): Promise<{ receipt: CheckReceipt; replayed: boolean }> {
    const hash = requestHash(input);
    if (idempotencyKey !== null) {
      const since = new Date(now.getTime() - REPLAY_WINDOW_MS).toISOString();
      const prior = await this.store.checks.findIdempotent(key.id, idempotencyKey, since);
      if (prior !== undefined) {
        if (prior.requestHash !== hash) {
          throw invalidParameter(
            'Idempotency-Key',
            'This Idempotency-Key was used with a different request body.',
          );
        }
        hold.refund = true;
        return { receipt: prior.receipt, replayed: true };
      }
    }
    const plan = planCheck(input.identifiers);
    if (plan.checked.length > 0) {
      await reserveQuota(this.store, key.id, key.plan, now, {
        requests: 0,
        identifiers: plan.checked.length,
      });
      hold.reserved.identifiers += plan.checked.length;
    }
    const hits = await this.store.recalls.hits(
      plan.checked.flatMap((c) => c.matchKeys),
      plan.checked.flatMap((c) => c.productKeys),
    );
    const receipt = buildReceipt(plan, hits, {
      checkId: `chk_${randomBase62(24)}`,
      label: input.label ?? null,
      performedAt: now.toISOString(),
      corpusAsOf: await this.catalog.dataAsOf(undefined, corpusVersion),
      corpusSize: await this.corpusSize(corpusVersion),
    });
    await this.store.checks.insert({ receipt, keyId: key.id, idempotencyKey, requestHash: hash });
    return { receipt, replayed: false };
  }
}
