/**
 * Per-client burst limits: one counter per client address in fixed one-minute windows,
 * measured against the plan of the key on the request. The limiter is an interface so that
 * several nodes can share one (Redis) while one node keeps it in memory.
 */
export interface BurstDecision {
  allowed: boolean;
  /** Requests left in the current window. */
  remaining: number;
  /** Seconds until the window resets (whole seconds, at least 1). */
  resetSeconds: number;
}

export interface BurstLimiter {
  /** Counts one request from `client` against `limit` per `windowSeconds`. */
  hit(client: string, limit: number, windowSeconds: number, nowMs: number): Promise<BurstDecision>;
  close(): Promise<void>;
}

/** The in-process limiter for a single node. */
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
      return { allowed: w.count <= limit, remaining: Math.max(0, limit - w.count), resetSeconds };
    },
    async close() {
      windows.clear();
    },
  };
}
