/**
 * The worker thread of {@link createWorkerPreparer}: prepares the pages it is sent, one at a time, in the order
 * they come, with the registered adapters. A page of more than PREPARED_PART records goes back in parts, each
 * prepared once the calling thread has taken all but IN_FLIGHT of those sent: a large page's rows are never
 * all held, on either thread.
 */
import { parentPort } from 'node:worker_threads';
import { UpstreamError } from './errors.ts';
import type { PageJob, PageJobResult, PartMessage, WorkerControl } from './page-preparer.ts';
import { parseInParts } from './prepare.ts';
import { SOURCE_ADAPTERS } from './registry.ts';
import type { RawPage } from './source.ts';

/** Parts sent and not yet taken, at most. */
const IN_FLIGHT = 2;

const port = parentPort;
if (port === null) throw new Error('prepare-worker runs as a worker thread');

/** Per job in progress: parts taken by the calling thread, and who waits for one more to be taken. */
const taken = new Map<number, { count: number; cancelled: boolean; wake?: () => void }>();
let queue: Promise<void> = Promise.resolve();

port.on('message', (message: PageJob | WorkerControl) => {
  if ('take' in message || 'cancel' in message) {
    const job = taken.get('take' in message ? message.take : message.cancel);
    if (job === undefined) return;
    if ('take' in message) job.count++;
    else job.cancelled = true;
    job.wake?.();
    return;
  }
  queue = queue.then(() => prepare(message));
});

function failure(job: number, error: unknown): PageJobResult {
  return {
    job,
    error:
      error instanceof UpstreamError
        ? { upstream: { failure: error.failure, details: error.details }, message: error.message }
        : { message: error instanceof Error ? error.message : String(error), stack: (error as Error).stack },
  };
}

async function prepare(job: PageJob): Promise<void> {
  const state = { count: 0, cancelled: false } as { count: number; cancelled: boolean; wake?: () => void };
  taken.set(job.job, state);
  let sent = 0;
  try {
    const adapter = SOURCE_ADAPTERS.find((a) => a.meta.id === job.sourceId);
    if (adapter === undefined) throw new Error(`unknown source ${job.sourceId}`);
    const page: RawPage = { name: job.name, body: Buffer.from(job.body) };
    if (job.url !== undefined) page.url = job.url;
    if (job.companions !== undefined)
      page.companions = job.companions.map((c) => {
        const companion: RawPage = { name: c.name, body: Buffer.from(c.body) };
        if (c.url !== undefined) companion.url = c.url;
        return companion;
      });
    const { dataAsOf, setAside, count, parts } = parseInParts(adapter, page);
    for (let index = 0; index < count; index++) {
      while (sent - state.count >= IN_FLIGHT && !state.cancelled)
        await new Promise<void>((resolve) => (state.wake = resolve));
      if (state.cancelled) return;
      const records = parts.next().value!;
      const last = index === count - 1;
      const message: PageJobResult | PartMessage =
        index === 0
          ? { job: job.job, page: { dataAsOf, records, setAside }, more: !last }
          : { job: job.job, part: records, last };
      port!.postMessage(message);
      sent++;
    }
  } catch (error) {
    port!.postMessage(failure(job.job, error));
  } finally {
    taken.delete(job.job);
  }
}
