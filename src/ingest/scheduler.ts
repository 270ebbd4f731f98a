/** The daily ingest in `serve`: one run per UTC day at or after the configured hour. */
export interface DailySchedule {
  stop(): void;
}

export function startDailySchedule(options: {
  hourUtc: number;
  /** One ingest run. It reports its own failures: a rejection is dropped so the schedule goes on. */
  run: () => Promise<void>;
  now?: () => Date;
  /** How often the clock is looked at. */
  tickMs?: number;
}): DailySchedule {
  const now = options.now ?? (() => new Date());
  let lastDay: string | undefined;
  let running = false;
  const tick = () => {
    const t = now();
    const day = t.toISOString().slice(0, 10);
    if (running || lastDay === day || t.getUTCHours() < options.hourUtc) return;
    lastDay = day;
    running = true;
    void options
      .run()
      .catch(() => undefined)
      .finally(() => {
        running = false;
      });
  };
  const timer = setInterval(tick, options.tickMs ?? 5 * 60_000);
  timer.unref();
  setImmediate(tick);
  return { stop: () => clearInterval(timer) };
}
