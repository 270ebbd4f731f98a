/** A key's catalogue check: idempotent replay, identifier quota, one set-based match, receipt plus charge. */
import { VersionedCache } from '../domain/caches.ts';
import { sha256 } from '../domain/sha256.ts';
import { Type, type Static } from '@sinclair/typebox';
import { randomBase62 } from '../domain/api-keys.ts';
import { buildReceipt, planCheck, type CheckReceipt } from '../domain/check.ts';
import { usageMonth } from '../domain/meters.ts';
import { MAX_VALUE_LENGTH } from '../domain/identifiers/normalise.ts';
import { Text } from '../domain/json-schema.ts';
import type { Plan } from '../config.ts';
import type { Store } from '../store/database.ts';
import type { QuotaHold } from './context.ts';
import { quotaExceeded } from './gates/quota.ts';
import { invalidParameter } from './problems.ts';
import type { SourceCatalog } from './source-catalog.ts';

/** Longest `kind` accepted (the nine kinds are at most 5 characters); longer is 400. */
export const MAX_KIND_LENGTH = 32;

/** The body of POST /v1/checks. `value` above the normaliser's 512 characters is 400. */
export const CheckBody = Type.Object(
  {
    label: Type.Optional(Text({ maxLength: 200, description: "The caller's own reference; echoed back" })),
    identifiers: Type.Array(
      Type.Object(
        {
          kind: Type.String({
            maxLength: MAX_KIND_LENGTH,
            description: 'Identifier kind (case-insensitive); another string is rejected as unknown_kind',
          }),
          value: Type.String({ maxLength: MAX_VALUE_LENGTH }),
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

/** The Idempotency-Key from raw headers (Node joins repeats `a, b`): 1–255 printable ASCII, sent once. */
export function parseIdempotencyKey(rawHeaders: readonly string[]): string | null {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    if (rawHeaders[i]!.toLowerCase() === 'idempotency-key') values.push(rawHeaders[i + 1]!);
  if (values.length === 0) return null;
  if (values.length > 1 || !/^[\x20-\x7e]{1,255}$/.test(values[0]!)) {
    throw invalidParameter(
      'Idempotency-Key',
      'Idempotency-Key must be 1 to 255 printable ASCII characters, sent once.',
    );
  }
  return values[0]!;
}

/** A UTF-16 surrogate without its pair: not Unicode text, and stored as U+FFFD by both engines. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Refuses a label, kind or value that is not well-formed Unicode (400 naming the field). */
export function assertWellFormed(input: CheckInput): void {
  const refuse = (parameter: string) =>
    invalidParameter(
      parameter,
      `"${parameter}" contains a lone UTF-16 surrogate, which is not Unicode text.`,
    );
  if (input.label !== undefined && LONE_SURROGATE.test(input.label)) throw refuse('label');
  input.identifiers.forEach((item, i) => {
    if (LONE_SURROGATE.test(item.kind)) throw refuse(`identifiers[${i}].kind`);
    if (LONE_SURROGATE.test(item.value)) throw refuse(`identifiers[${i}].value`);
  });
}

function requestHash(input: CheckInput): string {
  return sha256(JSON.stringify([input.label ?? null, input.identifiers.map((i) => [i.kind, i.value])]));
}

/** The outcome of an Idempotency-Key's last use: a receipt to replay, or the generation a new receipt takes. */
type PriorUse = { replay: CheckReceipt } | { replay: undefined; generation: number };

export class CheckService {
  /** The number of recalls at the corpus version held: one entry. */
  private readonly sizes: VersionedCache<'size', number>;

  constructor(
    private readonly store: Store,
    private readonly catalog: SourceCatalog,
  ) {
    this.sizes = store.caches.add(new VersionedCache('corpus-size', { max: 1 }));
  }

  private async corpusSize(version: number): Promise<number> {
    let size = this.sizes.get(version, 'size');
    if (size === undefined) this.sizes.set(version, 'size', (size = await this.store.recalls.size()));
    return size;
  }

  /** The receipt to replay for this Idempotency-Key (within 24 hours, same body), or the next generation. */
  private async priorUse(keyId: string, idempotencyKey: string, hash: string, now: Date): Promise<PriorUse> {
    const prior = await this.store.checks.latestIdempotent(keyId, idempotencyKey);
    if (prior === undefined) return { replay: undefined, generation: 1 };
    const since = new Date(now.getTime() - REPLAY_WINDOW_MS).toISOString();
    if (prior.receipt.performed_at < since)
      return { replay: undefined, generation: (prior.generation ?? 0) + 1 };
    if (prior.requestHash !== hash) {
      throw invalidParameter(
        'Idempotency-Key',
        'This Idempotency-Key was used with a different request body.',
      );
    }
    return { replay: prior.receipt };
  }

  /**
   * Performs the check and records the receipt with its identifiers' charge; a recorded receipt keeps the
   * request's `hold` (it can be read back even if the answer is lost), a replay waives it. Undefined when
   * the client has gone before the receipt was recorded: nothing is recorded or charged. Concurrent uses
   * of one Idempotency-Key record one receipt: the others find it taken (the database waits for the first
   * to commit) and replay it. When the plan meters identifiers, `identifiersLeft` is told the month's limit and
   * what is left of it once the check is charged (or refused, or replayed).
   */
  async run(
    input: CheckInput,
    key: { id: string; plan: Plan },
    hold: QuotaHold,
    idempotencyKey: string | null,
    now: Date,
    corpusVersion: number,
    identifiersLeft: (limit: number, left: number) => void,
  ): Promise<{ receipt: CheckReceipt; replayed: boolean } | undefined> {
    const hash = requestHash(input);
    const month = usageMonth(now);
    const limit = key.plan.perMonth.identifiers;
    const tell = async (used?: number) => {
      if (limit === null) return;
      const spent = used ?? (await this.store.usage.get(key.id, month)).identifiers;
      identifiersLeft(limit, Math.max(0, limit - spent));
    };
    const replay = async (receipt: CheckReceipt) => {
      hold.waive();
      await tell();
      return { receipt, replayed: true };
    };
    let generation: number | null = null;
    if (idempotencyKey !== null) {
      const prior = await this.priorUse(key.id, idempotencyKey, hash, now);
      if (prior.replay !== undefined) return replay(prior.replay);
      generation = prior.generation;
    }
    const plan = planCheck(input.identifiers);
    const amount = { requests: 0, identifiers: plan.checked.length };
    // Refused before the match work when the month cannot take it. A receipt is committed with its
    // charge, so usage spent by a concurrent request with the same key shows its receipt too.
    if (amount.identifiers > 0 && limit !== null) {
      const used = await this.store.usage.get(key.id, month);
      if (used.identifiers + amount.identifiers > limit) {
        const prior =
          idempotencyKey === null ? undefined : await this.priorUse(key.id, idempotencyKey, hash, now);
        if (prior?.replay !== undefined) return replay(prior.replay);
        await tell(used.identifiers);
        throw quotaExceeded(key.plan, month, amount);
      }
    }
    const hits = await this.store.identifiers.hits(
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
    if (hold.abandoned) return undefined;
    const outcome = await hold.recording(async () => {
      const recorded = await this.store.checks.record(
        { receipt, keyId: key.id, idempotencyKey, requestHash: hash, idempotencyGeneration: generation },
        amount.identifiers > 0 ? { month, amount, limits: key.plan.perMonth } : null,
      );
      if (recorded === 'recorded') hold.keep();
      return recorded;
    });
    if (outcome === 'over-quota') {
      await tell();
      throw quotaExceeded(key.plan, month, amount);
    }
    if (outcome === 'taken') {
      const prior = await this.priorUse(key.id, idempotencyKey!, hash, now);
      if (prior.replay === undefined) throw new Error('an Idempotency-Key use was taken but has no receipt');
      return replay(prior.replay);
    }
    await tell();
    return { receipt, replayed: false };
  }
}
