/**
 * One ingest run under the lease: per source fetch (or mirror), archive, parse, apply in one
 * transaction. A failed source keeps its records and counts a consecutive failure.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Store } from '../store/database.ts';
import type { Archive } from './archive.ts';
import { readMirror } from './archive.ts';
import { createConditionalFetcher } from './conditional-fetcher.ts';
import { UpstreamError, formatError } from './errors.ts';
import type { UpstreamClient } from './http-client.ts';
import type { RawPage, SetAside, SourceAdapter } from './source.ts';
import type { PreparedRecall } from '../store/recall-rows.ts';
import { inOrder } from './in-order.ts';
import { createInlinePreparer, createWorkerPreparer, type PagePreparer } from './page-preparer.ts';

/** What a run works with. */
export interface IngestDeps {
  store: Store;
  adapters: readonly SourceAdapter[];
  archive: Archive;
  client: UpstreamClient;
  /** Base address per source id when overridden. */
  sourceUrls: Record<string, string>;
  now?: () => Date;
  log?: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
}

/** Which sources a run reads, and from where. */
export interface IngestOptions {
  /** Only these sources (default: every registered source). */
  sourceIds?: string[];
  /** Read an offline mirror `DIR/<source-id>/*` instead of fetching. */
  from?: string;
  /** Run even if the source was already rebuilt today. */
  force?: boolean;
  /**
   * From how many bytes of a source's pages its records are prepared on a worker thread, beside the
   * store's writes (default {@link PREPARE_IN_WORKER_FROM}; 0 for every source).
   */
  prepareInWorkerFrom?: number;
  onProgress?: (event: ProgressEvent) => void;
}

/** Progress reported while a run goes: a source starts, a page is fetched, a page is written, a source ends. */
export type ProgressEvent =
  | { type: 'source-start'; sourceId: string }
  | { type: 'fetched'; sourceId: string; pages: number }
  | { type: 'page'; sourceId: string; pages: number; records: number }
  | { type: 'source-end'; outcome: SourceOutcome };

/** How one source fared in a run. */
export interface SourceOutcome {
  sourceId: string;
  status: 'ok' | 'failed' | 'skipped';
  /** Why it failed or was skipped. */
  reason?: string;
  /** True when the failure is a defect of ours rather than the agency's. */
  defect?: boolean;
  pages?: number;
  records?: number;
  inserted?: number;
  amended?: number;
  unchanged?: number;
  /** Records that could not be read and were left out of the run. */
  setAside?: number;
  /** Pages the run went on without (their records kept as the rest of the feed gives them), with the reason. */
  skippedPages?: { url: string; reason: string }[];
}

/** A run's result: every source's outcome, or who holds the lease when another run is going. */
export type IngestResult =
  { status: 'completed'; sources: SourceOutcome[] } | { status: 'locked'; holder: string; since: string };

/** Largest share of a run's records set aside; above it the feed changed shape: drift, records kept. */
export const MAX_SET_ASIDE_SHARE = 0.2;

/**
 * A source with at least this many bytes of pages is prepared on a worker thread. Below it, starting the
 * thread (~0.1 s; more from the TypeScript sources) costs more than the parse it would move.
 */
export const PREPARE_IN_WORKER_FROM = 4 * 2 ** 20;

const LEASE = 'ingest';
const LEASE_TTL_MS = 5 * 60_000;
const LEASE_RENEW_MS = 60_000;

/** A holder name that says where the run lives: `host:pid:nonce`. */
function holderName(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/** A lease holder on this host whose process no longer exists is stale (it was killed). */
function isStaleHolder(holder: string): boolean {
  const [host, pid] = holder.split(':');
  if (host !== hostname() || pid === undefined || !/^\d+$/.test(pid)) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function utcDay(iso: string | Date): string {
  return (typeof iso === 'string' ? new Date(iso) : iso).toISOString().slice(0, 10);
}

/** The oldest of two freshness stamps (the conservative one). */
function oldest(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a < b ? a : b;
}

/** Ingests the selected sources under the lease; one rebuilt today is skipped unless forced or mirrored. */
export async function runIngest(deps: IngestDeps, options: IngestOptions = {}): Promise<IngestResult> {
  const now = deps.now ?? (() => new Date());
  const log = deps.log ?? (() => {});
  const holder = holderName();
  const lease = await deps.store.locks.acquire(LEASE, holder, now(), LEASE_TTL_MS, isStaleHolder);
  if (!lease.acquired) return { status: 'locked', holder: lease.by.holder, since: lease.by.acquiredAt };
  const renewal = setInterval(() => {
    void deps.store.locks.renew(LEASE, holder, new Date(Date.now() + LEASE_TTL_MS)).catch(() => {});
  }, LEASE_RENEW_MS);
  renewal.unref();
  const preparers = { inline: createInlinePreparer(), worker: createWorkerPreparer() };
  try {
    await deps.store.sources.register(
      deps.adapters.map((a) => ({ id: a.meta.id, agency: a.meta.agency, jurisdiction: a.meta.jurisdiction })),
    );
    const selected = options.sourceIds ?? deps.adapters.map((a) => a.meta.id);
    const states = new Map((await deps.store.sources.list()).map((s) => [s.id, s]));
    const outcomes: SourceOutcome[] = [];
    for (const id of selected) {
      const adapter = deps.adapters.find((a) => a.meta.id === id);
      if (adapter === undefined) throw new Error(`unknown source ${id}`);
      options.onProgress?.({ type: 'source-start', sourceId: id });
      const last = states.get(id)?.last_success_at ?? null;
      let outcome: SourceOutcome;
      if (options.from === undefined && !options.force && last !== null && utcDay(last) === utcDay(now())) {
        outcome = {
          sourceId: id,
          status: 'skipped',
          reason: `already rebuilt today (${last}); --force to run again`,
        };
      } else {
        outcome = await ingestSource(
          deps,
          adapter,
          options,
          now,
          log,
          last === null ? null : new Date(last),
          preparers,
        );
      }
      outcomes.push(outcome);
      options.onProgress?.({ type: 'source-end', outcome });
    }
    return { status: 'completed', sources: outcomes };
  } finally {
    clearInterval(renewal);
    await preparers.worker.close();
    // On a full disk even the lease's row may not be deletable: it then lapses after LEASE_TTL_MS, and the
    // next run on this host takes it over at once (its holder is gone), as after a run that was killed.
    await deps.store.locks
      .release(LEASE, holder)
      .catch((error: unknown) => log('warn', 'ingest lease not released', { error }));
  }
}

async function ingestSource(
  deps: IngestDeps,
  adapter: SourceAdapter,
  options: IngestOptions,
  now: () => Date,
  log: NonNullable<IngestDeps['log']>,
  since: Date | null,
  preparers: { inline: PagePreparer; worker: PagePreparer },
): Promise<SourceOutcome> {
  const id = adapter.meta.id;
  const pages: RawPage[] = [];
  const skippedPages: { url: string; reason: string }[] = [];
  const started = performance.now();
  try {
    let saveState: (() => Promise<void>) | undefined;
    if (options.from !== undefined) {
      const mirror = await readMirror(options.from, id, (name) => adapter.acceptsFile(name));
      if (mirror.length === 0)
        return { sourceId: id, status: 'skipped', reason: `no files for ${id} in ${options.from}` };
      pages.push(...mirror);
    } else {
      const runId = now().toISOString().replace(/[:.]/g, '-');
      const run = deps.archive.startRun(id, runId);
      const fetcher = createConditionalFetcher({
        client: deps.client,
        archiveRun: run,
        state: await deps.archive.loadFetchState(id),
      });
      const baseUrl = deps.sourceUrls[id] ?? adapter.meta.defaultBaseUrl;
      const skipped = (url: string, reason: string) => void skippedPages.push({ url, reason });
      for await (const page of adapter.fetch({ baseUrl, fetcher, now: now(), since, skipped })) {
        await fetcher.archive(page);
        for (const companion of page.companions ?? []) await fetcher.archive(companion);
        pages.push(page);
        options.onProgress?.({ type: 'fetched', sourceId: id, pages: pages.length });
      }
      saveState = async () => {
        await deps.archive.saveFetchState(id, fetcher.state());
        await deps.archive.prune(id);
      };
    }
    const bytes = pages.reduce(
      (n, p) => n + p.body.byteLength + (p.companions ?? []).reduce((m, c) => m + c.body.byteLength, 0),
      0,
    );
    const preparer =
      bytes >= (options.prepareInWorkerFrom ?? PREPARE_IN_WORKER_FROM) && preparers.worker.accepts(adapter)
        ? preparers.worker
        : preparers.inline;
    const read = { pages: 0, records: 0, setAside: [] as SetAside[], dataAsOf: null as string | null };
    const batches = async function* (): AsyncGenerator<PreparedRecall[]> {
      const local = (p: RawPage) => preparers.inline.prepare(adapter, p);
      for await (const page of inOrder(pages, (p) => preparer.prepare(adapter, p), local)) {
        read.dataAsOf = read.pages === 0 ? page.dataAsOf : oldest(read.dataAsOf, page.dataAsOf);
        read.records += page.records.length;
        read.setAside.push(...page.setAside);
        yield page.records;
        // A large page's further rows, a part at a time (page-preparer.ts).
        for await (const part of page.more ?? []) {
          read.records += part.length;
          yield part;
        }
        read.pages += 1;
        options.onProgress?.({ type: 'page', sourceId: id, pages: read.pages, records: read.records });
      }
    };
    // Once every page is read, before anything is committed: a drifted or empty feed changes nothing.
    const conclude = () => {
      const { records, setAside } = read;
      if (setAside.length > 0 && setAside.length > MAX_SET_ASIDE_SHARE * (records + setAside.length)) {
        throw formatError(
          `${id} drifted: ${setAside.length} of ${records + setAside.length} records could not be read (first: ${describeSetAside(setAside[0]!)})`,
        );
      }
      if (records === 0)
        throw new UpstreamError('empty', `${id} returned no records where records were expected`);
      return { dataAsOf: read.dataAsOf, setAside };
    };
    const result = await deps.store.ingest.applyStream(
      { sourceId: id, jurisdiction: adapter.meta.jurisdiction, observedAt: now().toISOString() },
      batches(),
      conclude,
    );
    await saveState?.();
    // The run's figures for the metrics: the run is committed whether or not they are written.
    await deps.store.sources
      .recordRun(id, { ms: performance.now() - started, records: read.records })
      .catch((error: unknown) => log('warn', 'run figures not recorded', { source: id, error }));
    const { setAside } = read;
    if (setAside.length > 0) {
      log('warn', 'records set aside', {
        source: id,
        setAside: setAside.length,
        first: setAside.slice(0, 5).map(describeSetAside),
      });
    }
    if (skippedPages.length > 0) {
      log('warn', 'pages skipped', {
        source: id,
        skipped: skippedPages.length,
        first: skippedPages.slice(0, 5),
      });
    }
    const outcome = {
      pages: pages.length,
      records: read.records,
      setAside: setAside.length,
      ...(skippedPages.length > 0 ? { skippedPages } : {}),
      ...result,
    };
    log('info', 'source ingested', { source: id, ...outcome });
    return { sourceId: id, status: 'ok', ...outcome };
  } catch (error) {
    const defect = !(error instanceof UpstreamError);
    const reason = error instanceof Error ? error.message : String(error);
    log(defect ? 'error' : 'warn', 'source failed', { source: id, reason, error });
    // What made the source fail (a full disk) may keep its failure from being recorded too: the run goes on.
    await deps.store.sources
      .recordFailure(id, reason, now().toISOString(), performance.now() - started)
      .catch((cause: unknown) => log('warn', 'source failure not recorded', { source: id, error: cause }));
    return { sourceId: id, status: 'failed', reason, defect, pages: pages.length };
  }
}

/** One record set aside, for a log line or a message: `items[3] (FSA-AA-01-2018): <reason>`. */
function describeSetAside(s: SetAside): string {
  return `${s.record}: ${s.reason}`;
}
