/**
 * Where a run's pages are prepared (parsed, each draft made into rows): on the calling thread, or on
 * one worker thread, so that a large source's parsing runs beside the store's writes rather than
 * before them. The rows are the same either way: preparation is pure.
 */
import { Worker } from 'node:worker_threads';
import { UpstreamError, type UpstreamFailure } from './errors.ts';
import type { PreparedRecall } from '../store/recall-rows.ts';
import { preparePageInParts, type PreparedPage } from './prepare.ts';
import { SOURCE_ADAPTERS } from './registry.ts';
import type { RawPage, SourceAdapter } from './source.ts';

/** Prepares pages; results come back in any order, each for its own page. */
export interface PagePreparer {
  /** Whether this preparer can prepare the adapter's pages (a worker knows only the registered adapters). */
  accepts(adapter: SourceAdapter): boolean;
  /** The page parsed by the adapter and its drafts prepared; rejects with what the parse threw. */
  prepare(adapter: SourceAdapter, page: RawPage): Promise<PreparedPage>;
  /** Stops any thread it started; pages still being prepared are refused. */
  close(): Promise<void>;
}

/** A page sent to the worker. */
export interface PageJob {
  job: number;
  sourceId: string;
  name: string;
  url?: string;
  body: ArrayBuffer;
  /** The page's companions (RawPage.companions), each body a copy. */
  companions?: { name: string; url?: string; body: ArrayBuffer }[];
}

/** What the worker sends back for a page: its preparation (its first part, `more` to follow), or what it threw. */
export type PageJobResult =
  | { job: number; page: PreparedPage; more: boolean }
  | {
      job: number;
      error: {
        message: string;
        stack?: string;
        upstream?: { failure: UpstreamFailure; details: { url?: string; status?: number } };
      };
    };

/** A further part of a page's rows, from the worker. */
export interface PartMessage {
  job: number;
  part: PreparedRecall[];
  last: boolean;
}

/** To the worker: a part of the job was taken (the worker prepares the next), or the rest is not wanted. */
export type WorkerControl = { take: number } | { cancel: number };

/**
 * The parts of a page after its first, as the worker sends them: each one taken tells the worker to prepare
 * another, so a handful are held at a time. A consumer that stops early cancels the rest.
 */
class Parts implements AsyncIterable<PreparedRecall[]> {
  private readonly queue: PreparedRecall[][] = [];
  private complete = false;
  private error: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly job: number,
    private readonly send: (control: WorkerControl) => void,
  ) {}

  push(part: PreparedRecall[], last: boolean): void {
    this.queue.push(part);
    if (last) this.complete = true;
    this.wake?.();
  }

  fail(error: Error): void {
    this.error = error;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<PreparedRecall[]> {
    let finished = false;
    try {
      this.send({ take: this.job }); // the page's first part has been taken
      for (;;) {
        while (this.queue.length === 0 && !this.complete && this.error === undefined)
          await new Promise<void>((resolve) => (this.wake = resolve));
        const part = this.queue.shift();
        if (part !== undefined) {
          this.send({ take: this.job });
          yield part;
        } else if (this.error !== undefined) {
          throw this.error;
        } else {
          finished = true;
          return;
        }
      }
    } finally {
      if (!finished && this.error === undefined) this.send({ cancel: this.job });
    }
  }
}

/** Prepares each page on the calling thread, a large one a part at a time as its rows are taken. */
export function createInlinePreparer(): PagePreparer {
  return {
    accepts: () => true,
    prepare: async (adapter, page) => preparePageInParts(adapter, page),
    close: async () => {},
  };
}

/** Starts the worker thread: the compiled module, or the TypeScript one behind tsx's loader (threads do not inherit it). */
function startWorker(): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./prepare-worker.js', here));
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./prepare-worker.ts', here).href);
  return new Worker(`import(${tsx}).then((tsx) => { tsx.register(); return import(${entry}); });`, {
    eval: true,
  });
}

/**
 * Prepares pages on one worker thread, started at the first page. Each page's bytes are copied to the
 * thread (the caller keeps its page); the rows come back by structured clone, a large page's in parts
 * (`PreparedPage.more`). If the thread dies, the pages it held are refused with the reason, and the next page
 * starts a new thread.
 */
export function createWorkerPreparer(): PagePreparer {
  let worker: Worker | undefined;
  let nextJob = 0;
  const pending = new Map<
    number,
    { resolve: (page: PreparedPage) => void; reject: (error: Error) => void }
  >();
  const streams = new Map<number, Parts>();

  const refuseAll = (error: Error) => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
    for (const parts of streams.values()) parts.fail(error);
    streams.clear();
  };

  const thread = (): Worker => {
    if (worker !== undefined) return worker;
    const started = startWorker();
    const send = (control: WorkerControl) => started.postMessage(control);
    started.on('message', (result: PageJobResult | PartMessage) => {
      if ('part' in result) {
        streams.get(result.job)?.push(result.part, result.last);
        if (result.last) streams.delete(result.job);
      } else {
        const waiting = pending.get(result.job);
        const parts = streams.get(result.job);
        pending.delete(result.job);
        if ('page' in result) {
          let page = result.page;
          if (result.more) {
            const more = new Parts(result.job, send);
            streams.set(result.job, more);
            page = { ...page, more };
          }
          waiting?.resolve(page);
        } else {
          const error = revive(result.error);
          waiting?.reject(error);
          parts?.fail(error);
          streams.delete(result.job);
        }
      }
      if (pending.size === 0 && streams.size === 0) started.unref();
    });
    started.on('error', (error) => {
      if (worker === started) worker = undefined;
      refuseAll(error);
    });
    started.on('exit', (code) => {
      if (worker === started) worker = undefined;
      refuseAll(new Error(`the page preparation thread exited (code ${code})`));
    });
    worker = started;
    return started;
  };

  return {
    accepts: (adapter) => SOURCE_ADAPTERS.includes(adapter),
    prepare(adapter, page) {
      const job = nextJob++;
      // A copy of the page's own bytes, moved to the thread (a Buffer may view a larger shared pool).
      const body = new Uint8Array(page.body).buffer;
      const message: PageJob = { job, sourceId: adapter.meta.id, name: page.name, body };
      if (page.url !== undefined) message.url = page.url;
      const moved = [body];
      if (page.companions !== undefined) {
        message.companions = page.companions.map((c) => {
          const copy = new Uint8Array(c.body).buffer;
          moved.push(copy);
          return c.url === undefined
            ? { name: c.name, body: copy }
            : { name: c.name, url: c.url, body: copy };
        });
      }
      return new Promise<PreparedPage>((resolve, reject) => {
        pending.set(job, { resolve, reject });
        // Busy, it keeps the process alive for its pages; idle, it keeps nothing alive.
        const running = thread();
        running.ref();
        running.postMessage(message, moved);
      });
    },
    async close() {
      const running = worker;
      worker = undefined;
      refuseAll(new Error('the page preparation thread was stopped'));
      if (running !== undefined) await running.terminate();
    },
  };
}

/** The worker's error as the calling thread's: an agency's failure stays an UpstreamError. */
function revive(e: Extract<PageJobResult, { error: unknown }>['error']): Error {
  if (e.upstream !== undefined) return new UpstreamError(e.upstream.failure, e.message, e.upstream.details);
  const error = new Error(e.message);
  if (e.stack !== undefined) error.stack = e.stack;
  return error;
}
