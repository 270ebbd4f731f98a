/**
 * One run's conditional PageFetcher: a 304 returns the archived body (refetched if gone). A page
 * gets validators only if its bytes are what `page.url` served, lest a later 304 give wrong bytes.
 * A query POST is passed through: never conditional, not in `pages()` or the fetch state.
 */
import { sha256 } from '../domain/sha256.ts';
import type { ArchiveRun, FetchState, FetchStateEntry } from './archive.ts';
import { UpstreamError } from './errors.ts';
import type { UpstreamClient, UpstreamResponse } from './http-client.ts';
import type { PageFetcher, PageGetInit, RawPage } from './source.ts';

/** What happened to one address in this run. */
export interface FetchedPage {
  url: string;
  /** 304: unchanged, body read from the archive. */
  status: 200 | 304;
  /** `<runId>/<name>` the body was archived under in this run, if it was. */
  archivedAs?: string;
}

/** A PageFetcher that also archives pages and reports what it fetched. */
export interface ConditionalFetcher extends PageFetcher {
  /** `status` 200 for a fresh body, 304 for one read from the archive; UpstreamError after retries. */
  get(url: string, init?: PageGetInit): Promise<{ status: 200 | 304; body: Buffer; failed?: string }>;
  /** Archives a yielded page (ArchiveRun.write) and records its address's validators; the file path. */
  archive(page: RawPage): Promise<string>;
  pages(): FetchedPage[];
  /** The fetch state to save once the run succeeded. */
  state(): FetchState;
}

/** What a conditional fetcher is built from. */
export interface ConditionalFetcherOptions {
  client: UpstreamClient;
  /** The run being written; also reads earlier runs' files. */
  archiveRun: ArchiveRun;
  /** Saved by the previous successful run (`archive.loadFetchState`). */
  state: FetchState;
}

interface Fetched {
  status: 200 | 304;
  etag?: string;
  lastModified?: string;
  /** sha256 of the body served, to recognise it when archived. */
  digest: string;
  /** The caller's `unchangedIf`, kept in the state only once the body is archived in this run. */
  fingerprint?: string;
  /** On 304: the earlier file the body came from. */
  previousFile?: string;
  archivedAs?: string;
}

/** The conditional PageFetcher of one run; `state()` keeps only this run's addresses (unpins old runs). */
export function createConditionalFetcher(options: ConditionalFetcherOptions): ConditionalFetcher {
  const { client, archiveRun } = options;
  const previous = options.state;
  const fetched = new Map<string, Fetched>();
  const servedBy = new WeakMap<Buffer, string>();

  async function get(
    url: string,
    init: PageGetInit = {},
  ): Promise<{ status: 200 | 304; body: Buffer; failed?: string }> {
    const headers = init.headers ?? {};
    const cap = init.maxBytes === undefined ? {} : { maxBytes: init.maxBytes };
    if (init.post !== undefined) {
      // A query: one address answers many bodies, so it has no validators and is not recorded.
      return { status: 200, body: (await client.get(url, { headers, ...cap, post: init.post })).body };
    }
    const prior = Object.hasOwn(previous, url) ? previous[url] : undefined;
    const fingerprint = init.unchangedIf === undefined ? {} : { fingerprint: init.unchangedIf };
    if (prior !== undefined && init.unchangedIf !== undefined && prior.fingerprint === init.unchangedIf) {
      const body = await archiveRun.readArchived(prior.file);
      if (body !== undefined) {
        remember(url, body, { status: 304, ...validators(prior), previousFile: prior.file, ...fingerprint });
        return { status: 304, body };
      }
    }
    try {
      if (init.offline !== undefined) throw new UpstreamError('network', init.offline, { url });
      return await fresh(url, headers, cap, prior, fingerprint);
    } catch (error) {
      if (init.orArchived !== true || prior === undefined || !(error instanceof UpstreamError)) throw error;
      const body = await archiveRun.readArchived(prior.file);
      if (body === undefined) throw error;
      // Under the fingerprint it was fetched with, so that the next run asks again.
      const was = prior.fingerprint === undefined ? {} : { fingerprint: prior.fingerprint };
      remember(url, body, { status: 304, ...validators(prior), previousFile: prior.file, ...was });
      return { status: 304, body, failed: error.message };
    }
  }

  /** The address requested (conditionally when validators are known). */
  async function fresh(
    url: string,
    headers: Record<string, string>,
    cap: { maxBytes?: number },
    prior: FetchStateEntry | undefined,
    fingerprint: { fingerprint?: string },
  ): Promise<{ status: 200 | 304; body: Buffer }> {
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
            ...fingerprint,
          });
          return { status: 304, body };
        }
        res = await client.get(url, { headers, ...cap });
      }
    } else {
      res = await client.get(url, { headers, ...cap });
    }
    remember(url, res.body, { status: 200, ...validators(res), ...fingerprint });
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
      // A fingerprint holds only for a body this run archived (one the adapter read and kept).
      const fingerprint = r.archivedAs === undefined ? undefined : r.fingerprint;
      if (
        file === undefined ||
        (r.etag === undefined && r.lastModified === undefined && fingerprint === undefined)
      )
        continue;
      next[url] = { ...validators(r), ...(fingerprint === undefined ? {} : { fingerprint }), file };
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
