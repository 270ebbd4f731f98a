/**
 * The PageFetcher of one run of one source: conditional GET on top of the upstream client and
 * the raw archive.
 *
 * How a run uses it (the pipeline's side):
 *
 * ```ts
 * const run = archive.startRun(sourceId, runId);
 * const fetcher = createConditionalFetcher({ client, archiveRun: run, state: await archive.loadFetchState(sourceId) });
 * for await (const page of adapter.fetch({ baseUrl, fetcher, now })) {
 *   await fetcher.archive(page);            // writes the page into the run and records its validators
 *   ...parse...
 * }
 * await archive.saveFetchState(sourceId, fetcher.state());   // only once the source succeeded
 * await archive.prune(sourceId);
 * ```
 *
 * - `get(url)` sends the validators stored for `url` (If-None-Match / If-Modified-Since). On 200
 *   it returns the fresh body; on 304 it returns the body archived under that address by an earlier
 *   run, with status 304. If that file is gone, it fetches again unconditionally (status 200).
 * - The fetcher does not archive by itself: the adapter yields pages and `archive(page)` writes
 *   them. A page is linked to the address it came from when its body is the very Buffer `get()`
 *   returned, or else when `page.url` names a fetched address and its bytes are the bytes served
 *   (a page whose bytes differ from what was served never gets validators: a later 304 would
 *   otherwise hand the adapter the wrong bytes).
 * - `state()` is the state to save after the run: one entry per address fetched in this run with
 *   validators and an archived body. A 304 page that was not re-archived keeps its earlier file.
 *   Addresses not fetched in this run are dropped, so old runs stop being pinned.
 */
import { createHash } from 'node:crypto';
import type { ArchiveRun, FetchState, FetchStateEntry } from './archive.ts';
import type { UpstreamClient, UpstreamResponse } from './http-client.ts';
import type { PageFetcher, PageGetInit, RawPage } from './source.ts';

/** What happened to one address in this run. */
export interface FetchedPage {
  url: string;
  /** 200: fresh body; 304: unchanged, body read from the archive. */
  status: 200 | 304;
  /** Archive reference (`<runId>/<name>`) the body was archived under in this run, if it was. */
  archivedAs?: string;
}

export interface ConditionalFetcher extends PageFetcher {
  /**
   * GETs `url` conditionally. Resolves with the full body in both cases: `status` is 200 for a
   * fresh body and 304 when the agency reported no change and the body comes from the archive.
   * Throws UpstreamError on agency-side failures (after the client's retries).
   */
  get(url: string, init?: PageGetInit): Promise<{ status: 200 | 304; body: Buffer }>;
  /** Archives a yielded page into the run (see ArchiveRun.write) and records its address's validators. Returns the file path. */
  archive(page: RawPage): Promise<string>;
  /** The addresses fetched so far, in order of first fetch. */
  pages(): FetchedPage[];
  /** The fetch state to save once the run has succeeded. */
  state(): FetchState;
}

export interface ConditionalFetcherOptions {
  client: UpstreamClient;
  /** The run being written; also used to read earlier runs' files. */
  archiveRun: ArchiveRun;
  /** The state saved by the previous successful run (`archive.loadFetchState`). */
  state: FetchState;
}

interface Fetched {
  status: 200 | 304;
  etag?: string;
  lastModified?: string;
  /** sha256 of the body served, to recognise it when archived. */
  digest: string;
  /** On 304: the earlier file the body came from. */
  previousFile?: string;
  archivedAs?: string;
}

/** Creates the conditional PageFetcher of one run (see the module comment for the flow). */
export function createConditionalFetcher(options: ConditionalFetcherOptions): ConditionalFetcher {
  const { client, archiveRun } = options;
  const previous = options.state;
  const fetched = new Map<string, Fetched>();
  const servedBy = new WeakMap<Buffer, string>();

  async function get(url: string, init: PageGetInit = {}): Promise<{ status: 200 | 304; body: Buffer }> {
    const headers = init.headers ?? {};
    const cap = init.maxBytes === undefined ? {} : { maxBytes: init.maxBytes };
    const prior = Object.hasOwn(previous, url) ? previous[url] : undefined;
    let res: UpstreamResponse;
    if (prior !== undefined && (prior.etag !== undefined || prior.lastModified !== undefined)) {
      res = await client.get(url, withValidators({ headers, ...cap }, prior));
      if (res.status === 304) {
        const body = await archiveRun.readArchived(prior.file);
        if (body !== undefined) {
          remember(url, body, {
            status: 304,
            ...validators({
              etag: res.etag ?? prior.etag,
              lastModified: res.lastModified ?? prior.lastModified,
            }),
            previousFile: prior.file,
          });
          return { status: 304, body };
        }
        res = await client.get(url, { headers, ...cap });
      }
    } else {
      res = await client.get(url, { headers, ...cap });
    }
    remember(url, res.body, { status: 200, ...validators(res) });
    return { status: 200, body: res.body };
  }

  function remember(url: string, body: Buffer, record: Omit<Fetched, 'digest'>): void {
    fetched.delete(url); // a refetch within the run replaces the earlier record
    fetched.set(url, { ...record, digest: sha256(body) });
    servedBy.set(body, url);
  }

  async function archive(page: RawPage): Promise<string> {
    const path = await archiveRun.write(page);
    const byIdentity = servedBy.get(page.body);
    const url = byIdentity ?? page.url;
    const record = url === undefined ? undefined : fetched.get(url);
    if (record !== undefined && (byIdentity !== undefined || sha256(page.body) === record.digest)) {
      record.archivedAs = archiveRun.ref(page.name);
    }
    return path;
  }

  function pages(): FetchedPage[] {
    return [...fetched].map(([url, r]) =>
      r.archivedAs === undefined
        ? { url, status: r.status }
        : { url, status: r.status, archivedAs: r.archivedAs },
    );
  }

  function state(): FetchState {
    const next = Object.create(null) as FetchState;
    for (const [url, r] of fetched) {
      const file = r.archivedAs ?? r.previousFile;
      if (file === undefined || (r.etag === undefined && r.lastModified === undefined)) continue;
      next[url] = { ...validators(r), file };
    }
    return next;
  }

  return { get, archive, pages, state };
}

function validators(v: {
  etag?: string | undefined;
  lastModified?: string | undefined;
}): Omit<FetchStateEntry, 'file'> {
  const out: Omit<FetchStateEntry, 'file'> = {};
  if (v.etag !== undefined) out.etag = v.etag;
  if (v.lastModified !== undefined) out.lastModified = v.lastModified;
  return out;
}

function withValidators<T extends object>(
  init: T,
  v: { etag?: string; lastModified?: string },
): T & Omit<FetchStateEntry, 'file'> {
  return { ...init, ...validators(v) };
}

function sha256(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}
