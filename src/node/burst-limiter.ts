/** Per-client fixed-window counters for the burst gate: shared in Redis (burst-redis.ts) or in memory. */

/** One counted request's outcome. */
export interface BurstDecision {
  allowed: boolean;
  /** Requests counted in the current window, this one included (0 when nothing could be counted). */
  count: number;
  /** Requests left in the current window. */
  remaining: number;
  /** Seconds until the window resets (whole seconds, at least 1). */
  resetSeconds: number;
}

/** Counts requests per client in fixed windows. */
export interface BurstLimiter {
  /** Counts one request from `client` against `limit` per `windowSeconds`. */
  hit(client: string, limit: number, windowSeconds: number, nowMs: number): Promise<BurstDecision>;
  close(): Promise<void>;
}

/**
 * The single-node in-memory limiter: one window per client seen in the last window, expired ones swept once a
 * window (not an LRU: dropping a live window would let its client start over).
 */
export function createMemoryBurstLimiter(): BurstLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = 0;
  return {
    async hit(client, limit, windowSeconds, nowMs) {
      const windowMs = windowSeconds * 1000;
      if (nowMs - lastSweep > windowMs) {
        for (const [k, w] of windows) if (nowMs - w.start >= windowMs) windows.delete(k);
        lastSweep = nowMs;
      }
      let w = windows.get(client);
      if (w === undefined || nowMs - w.start >= windowMs) {
        w = { start: nowMs, count: 0 };
        windows.set(client, w);
      }
      w.count += 1;
      const resetSeconds = Math.max(1, Math.ceil((w.start + windowMs - nowMs) / 1000));
      return {
        allowed: w.count <= limit,
        count: w.count,
        remaining: Math.max(0, limit - w.count),
        resetSeconds,
      };
    },
    async close() {
      windows.clear();
    },
  };
}
