/**
 * The worker thread of {@link createWorkerPreparer}: prepares the pages it is sent, one at a time, in
 * the order they come, with the registered adapters.
 */
import { parentPort } from 'node:worker_threads';
import { UpstreamError } from './errors.ts';
import type { PageJob, PageJobResult } from './page-preparer.ts';
import { preparePage } from './prepare.ts';
import { SOURCE_ADAPTERS } from './registry.ts';
import type { RawPage } from './source.ts';

const port = parentPort;
if (port === null) throw new Error('prepare-worker runs as a worker thread');

port.on('message', (job: PageJob) => {
  let result: PageJobResult;
  try {
    const adapter = SOURCE_ADAPTERS.find((a) => a.meta.id === job.sourceId);
    if (adapter === undefined) throw new Error(`unknown source ${job.sourceId}`);
    const page: RawPage = { name: job.name, body: Buffer.from(job.body) };
    if (job.url !== undefined) page.url = job.url;
    result = { job: job.job, page: preparePage(adapter, page) };
  } catch (error) {
    result = {
      job: job.job,
      error:
        error instanceof UpstreamError
          ? { upstream: { failure: error.failure, details: error.details }, message: error.message }
          : {
              message: error instanceof Error ? error.message : String(error),
              stack: (error as Error).stack,
            },
    };
  }
  port.postMessage(result);
});
