/**
 * How large a block of a monthly quota one API node may lease at a time. A block is at most
 * `maxBlock`, at most a `share`-th of what remains unleased, and at least 1 while anything remains:
 * far from the limit a node leases whole blocks, near it blocks shrink geometrically to single units,
 * so that what a node holds unused (and what a killed node's lease over-counts) stays small.
 */

/** The sizing rule of leased blocks. */
export interface LeaseRule {
  /** The largest block, B (`RECALLS_QUOTA_LEASE_BLOCK`). */
  readonly maxBlock: number;
  /** The divisor k: a block takes at most 1/k of what remains. */
  readonly share: number;
}

/**
 * k: one block takes at most 1/64 of what remains, so what a node holds unused (and a killed node
 * over-counts) is at most ~1.6 % of what was left when it leased, however small the plan.
 */
export const LEASE_SHARE = 64;

/** The block to lease when `remaining` units are neither used nor leased: max(1, min(B, ⌊remaining / k⌋)), 0 when none remain. */
export function leaseBlock(remaining: number, rule: LeaseRule): number {
  if (remaining < 1) return 0;
  return Math.max(1, Math.min(rule.maxBlock, Math.floor(remaining / rule.share)));
}

/**
 * The fewest remaining units at which the rule allows `block` (the lease's database condition): a
 * block of 1 needs one unit, a larger block k times its size. `leaseBlock(r)` never needs more than `r`.
 */
export function remainingNeeded(block: number, rule: LeaseRule): number {
  return block <= 1 ? 1 : block * rule.share;
}
