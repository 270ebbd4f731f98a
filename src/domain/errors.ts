/** What the use cases refuse, as errors that name no protocol; the HTTP layer maps each to its problem type. */
import type { Meter, Metered } from './meters.ts';

/** Input refused: `parameter` names the field, header or parameter at fault, the message says why. */
export class InvalidInput extends Error {
  constructor(
    readonly parameter: string,
    detail: string,
  ) {
    super(detail);
    this.name = 'InvalidInput';
  }
}

/** A request, or a check of `amount` identifiers, that the plan's month (`YYYY-MM`, UTC) cannot take. */
export class QuotaExceeded extends Error {
  constructor(plan: { id: string; perMonth: Record<Meter, number | null> }, month: string, amount: Metered) {
    const what =
      amount.identifiers > 0
        ? `checking ${amount.identifiers} identifiers would exceed the ${plan.id} plan's ${plan.perMonth.identifiers} identifiers`
        : `the ${plan.id} plan's ${plan.perMonth.requests} requests are used up`;
    super(`Monthly quota exhausted: ${what} for ${month} (UTC).`);
    this.name = 'QuotaExceeded';
  }
}
