/**
 * A key's catalogue check, the use case behind POST /v1/checks: idempotent replay, identifier quota, one
 * set-based match, receipt plus charge. What it refuses it throws as domain errors (errors.ts).
 */
import { randomBase62 } from '../domain/api-keys.ts';
import { VersionedCache, type CacheRegistry } from '../node/caches.ts';
import { buildReceipt, planCheck, type CheckReceipt } from '../domain/check.ts';
import { InvalidInput, QuotaExceeded } from '../domain/errors.ts';
import { usageMonth } from '../domain/meters.ts';
import { sha256 } from '../domain/sha256.ts';
import type { Plan } from '../config.ts';
import type { QuotaHold } from '../quota/ledger.ts';
import type { Store } from '../store/database.ts';

/** What is checked: the caller's label and up to 1000 identifiers as sent. */
export interface CheckInput {
  label?: string;
  identifiers: { kind: string; value: string }[];
}

const REPLAY_WINDOW_MS = 24 * 3_600_000;

/** A UTF-16 surrogate without its pair: not Unicode text, and stored as U+FFFD by both engines. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Refuses a label, kind or value that is not well-formed Unicode (400 naming the field). */
export function assertWellFormed(input: CheckInput): void {
  const refuse = (parameter: string) =>
    new InvalidInput(
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

/** One check of a key, as its route asks for it. */
export interface CheckRequest {
  input: CheckInput;
  key: { id: string; plan: Plan };
  /** The request's unit of the key's month: kept with a recorded receipt, waived by a replay. */
  hold: QuotaHold;
  idempotencyKey: string | null;
  now: Date;
  /** The corpus version the check reads at, and its `data_as_of` (every enabled source's). */
  corpusVersion: number;
  corpusAsOf: string | null;
}

/** The month's identifiers of a plan that meters them: its limit and what is left once the check is done. */
export interface IdentifierAllowance {
  limit: number;
  left: number;
}

/**
 * What a check came to: its receipt (a replayed one, or new), or its refusal (402) when the month's
 * identifiers cannot take it; with the allowance left, when the plan meters identifiers.
 */
export type CheckOutcome = (
  { receipt: CheckReceipt; replayed: boolean; refused?: undefined } | { refused: QuotaExceeded }
) & { identifiers: IdentifierAllowance | undefined };

export class CheckService {
  /** The number of recalls at the corpus version held: one entry. */
  private readonly sizes: VersionedCache<'size', number>;
  /** The match rules' buckets at the corpus version held (a few per thousand identifiers): one entry. */
  private readonly ruleBuckets: VersionedCache<'buckets', Set<string>>;

  constructor(
    private readonly store: Store,
    caches: CacheRegistry,
  ) {
    this.sizes = caches.add(new VersionedCache('corpus-size', { max: 1 }));
    this.ruleBuckets = caches.add(new VersionedCache('rule-buckets', { max: 1 }));
  }

  /** The buckets holding a match rule: a check probes only those of its identifiers' rule buckets. */
  private async bucketsHoldingRules(version: number): Promise<Set<string>> {
    let buckets = this.ruleBuckets.get(version, 'buckets');
    if (buckets === undefined)
      this.ruleBuckets.set(version, 'buckets', (buckets = await this.store.identifiers.ruleBuckets()));
    return buckets;
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
      throw new InvalidInput(
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
   * to commit) and replay it. The allowance is what is left of the month once the check is charged (or
   * refused, or replayed).
   */
  async run(request: CheckRequest): Promise<CheckOutcome | undefined> {
    const { input, key, hold, idempotencyKey, now, corpusVersion } = request;
    const hash = requestHash(input);
    const month = usageMonth(now);
    const limit = key.plan.perMonth.identifiers;
    const allowance = async (used?: number): Promise<IdentifierAllowance | undefined> => {
      if (limit === null) return undefined;
      const spent = used ?? (await this.store.usage.get(key.id, month)).identifiers;
      return { limit, left: Math.max(0, limit - spent) };
    };
    const replay = async (receipt: CheckReceipt): Promise<CheckOutcome> => {
      hold.waive();
      return { receipt, replayed: true, identifiers: await allowance() };
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
        return {
          refused: new QuotaExceeded(key.plan, month, amount),
          identifiers: await allowance(used.identifiers),
        };
      }
    }
    const buckets = await this.bucketsHoldingRules(corpusVersion);
    const hits = await this.store.identifiers.hits(
      plan.checked.flatMap((c) => [...c.matchKeys, ...c.ruleKeys.filter((k) => buckets.has(k))]),
      plan.checked.flatMap((c) => c.productKeys),
    );
    const receipt = buildReceipt(plan, hits, {
      checkId: `chk_${randomBase62(24)}`,
      label: input.label ?? null,
      performedAt: now.toISOString(),
      corpusAsOf: request.corpusAsOf,
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
    if (outcome === 'over-quota')
      return { refused: new QuotaExceeded(key.plan, month, amount), identifiers: await allowance() };
    if (outcome === 'taken') {
      const prior = await this.priorUse(key.id, idempotencyKey!, hash, now);
      if (prior.replay === undefined) throw new Error('an Idempotency-Key use was taken but has no receipt');
      return replay(prior.replay);
    }
    return { receipt, replayed: false, identifiers: await allowance() };
  }
}
