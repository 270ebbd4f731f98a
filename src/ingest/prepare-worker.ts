/**
 * The worker thread of {@link createWorkerPreparer}: prepares the pages it is sent, one at a time, in the order
 * they come, with the registered adapters. A page of more than PREPARED_PART records goes back in parts, each
 * prepared once the calling thread has taken all but IN_FLIGHT of those sent: a large page's rows are never
 * all held, on either thread.
 */
import { parentPort } from 'node:worker_threads';
import { prepareRecall } from '../store/recall-rows.ts';
import { UpstreamError } from './errors.ts';
import type { PageJob, PageJobResult, PartMessage, WorkerControl } from './page-preparer.ts';
import { PREPARED_PART } from './prepare.ts';
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
    const parsed = adapter.parse(page);
    const origin = { sourceId: adapter.meta.id, jurisdiction: adapter.meta.jurisdiction };
    const { drafts } = parsed;
    for (let from = 0; from === 0 || from < drafts.length; from += PREPARED_PART) {
      while (sent - state.count >= IN_FLIGHT && !state.cancelled)
        await new Promise<void>((resolve) => (state.wake = resolve));
      if (state.cancelled) return;
      const records = drafts.slice(from, from + PREPARED_PART).map((d) => prepareRecall(origin, d));
      const last = from + PREPARED_PART >= drafts.length;
      const message: PageJobResult | PartMessage =
        from === 0
          ? {
              job: job.job,
              page: { dataAsOf: parsed.dataAsOf, records, setAside: parsed.setAside },
              more: !last,
            }
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
