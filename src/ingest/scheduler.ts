/**
 * The daily ingest in `serve`: one run per UTC day at or after the configured hour, and a run that failed
 * tried again the same day after {@link RETRY_MINUTES} (the last step repeating) until one succeeds.
 */
export interface DailySchedule {
  stop(): void;
}

/** Minutes from a failed run to the next try, by the number of failures that day; the last one repeats. */
export const RETRY_MINUTES = [15, 30, 60, 120, 240] as const;

export function startDailySchedule(options: {
  hourUtc: number;
  /** One ingest run: true when it succeeded. It reports its own failures; a rejection counts as a failure. */
  run: () => Promise<boolean>;
  now?: () => Date;
  /** How often the clock is looked at. */
  tickMs?: number;
}): DailySchedule {
  const now = options.now ?? (() => new Date());
  let lastDay: string | undefined;
  let running = false;
  /** When the day's failed run is tried again (ms), and how many runs failed that day. */
  let retryAt: number | undefined;
  let failures = 0;
  const start = () => {
    running = true;
    void options
      .run()
      .catch(() => false)
      .then((ok) => {
        if (ok) {
          retryAt = undefined;
          return;
        }
        failures++;
        const minutes = RETRY_MINUTES[Math.min(failures, RETRY_MINUTES.length) - 1]!;
        retryAt = now().getTime() + minutes * 60_000;
      })
      .finally(() => {
        running = false;
      });
  };
  const tick = () => {
    if (running) return;
    const t = now();
    const day = t.toISOString().slice(0, 10);
    if (lastDay !== day) {
      if (t.getUTCHours() < options.hourUtc) return;
      lastDay = day;
      failures = 0;
      retryAt = undefined;
      start();
    } else if (retryAt !== undefined && t.getTime() >= retryAt) {
      start();
    }
  };
  const timer = setInterval(tick, options.tickMs ?? 5 * 60_000);
  timer.unref();
  setImmediate(tick);
  return { stop: () => clearInterval(timer) };
}
