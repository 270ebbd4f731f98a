/**
 * The raw archive: pages as served, `<root>/<sourceId>/<runId>/<page.name>`, plus each source's
 * `fetch-state.json`; every file written atomically. Also reads offline mirrors (`--from DIR`).
 */
import { randomBytes } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { mkdir, open, readFile, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RawPage } from './source.ts';

/** Validators of one address and the archived file holding the body they describe. */
export interface FetchStateEntry {
  etag?: string;
  lastModified?: string;
  /** The caller's `unchangedIf` value the body was fetched under (PageGetInit). */
  fingerprint?: string;
  /** `<runId>/<page name>`, relative to the source folder. */
  file: string;
}

/** Conditional-GET state of one source: address → validators and archived body. */
export type FetchState = Record<string, FetchStateEntry>;

/** The archive folder of one run of one source. */
export interface ArchiveRun {
  readonly sourceId: string;
  readonly runId: string;
  /** Absolute; created on the first write. */
  readonly path: string;
  /** Writes `<run folder>/<page.name>` atomically; the absolute path. A name written twice throws. */
  write(page: RawPage): Promise<string>;
  /** `<runId>/<name>` of a page of this run, as stored in FetchState. */
  ref(name: string): string;
  /** A file archived by any run of this source; undefined when gone. */
  readArchived(ref: string): Promise<Buffer | undefined>;
}

/** The page archive on disk. */
export interface Archive {
  readonly root: string;
  /** Opens a new run's folder. Run ids must sort by time (`20240501T060000Z`): prune relies on it. */
  startRun(sourceId: string, runId: string): ArchiveRun;
  /** A source's saved state; `{}` when none or unreadable. */
  loadFetchState(sourceId: string): Promise<FetchState>;
  /** Replaces a source's state, atomically. */
  saveFetchState(sourceId: string, state: FetchState): Promise<void>;
  /** Deletes all but the newest `keepRuns` runs and any the saved state points to; the deleted ids. */
  prune(sourceId: string, keepRuns?: number): Promise<string[]>;
}

const STATE_FILE = 'fetch-state.json';
const STATE_VERSION = 1;

/** Opens the raw archive rooted at `root` (created lazily). */
export function createArchive(root: string): Archive {
  const sourceDir = (sourceId: string): string => join(root, segment(sourceId, 'source id'));

  async function loadFetchState(sourceId: string): Promise<FetchState> {
    let text: string;
    try {
      text = await readFile(join(sourceDir(sourceId), STATE_FILE), 'utf8');
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    // Only a cache of validators: if unreadable, fetch everything again.
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return {};
    }
    const state: FetchState = Object.create(null) as FetchState;
    if (!isRecord(parsed) || parsed.version !== STATE_VERSION || !isRecord(parsed.entries)) return state;
    for (const [url, raw] of Object.entries(parsed.entries)) {
      if (!isRecord(raw) || typeof raw.file !== 'string' || parseRef(raw.file) === undefined) continue;
      const entry: FetchStateEntry = { file: raw.file };
      if (typeof raw.etag === 'string') entry.etag = raw.etag;
      if (typeof raw.lastModified === 'string') entry.lastModified = raw.lastModified;
      if (typeof raw.fingerprint === 'string') entry.fingerprint = raw.fingerprint;
      state[url] = entry;
    }
    return state;
  }

  async function saveFetchState(sourceId: string, state: FetchState): Promise<void> {
    const dir = sourceDir(sourceId);
    await mkdir(dir, { recursive: true });
    const entries = Object.fromEntries(
      Object.entries(state).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
    await writeAtomic(
      dir,
      STATE_FILE,
      Buffer.from(JSON.stringify({ version: STATE_VERSION, entries }, null, 2) + '\n'),
    );
  }

  async function prune(sourceId: string, keepRuns = 3): Promise<string[]> {
    if (!Number.isInteger(keepRuns) || keepRuns < 1) throw new RangeError(`keepRuns must be an integer ≥ 1`);
    const dir = sourceDir(sourceId);
    const runs = (await entriesOf(dir))
      .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
      .map((d) => d.name)
      .sort();
    const keep = new Set(runs.slice(-keepRuns));
    for (const entry of Object.values(await loadFetchState(sourceId))) {
      const ref = parseRef(entry.file);
      if (ref !== undefined) keep.add(ref.runId);
    }
    const deleted: string[] = [];
    for (const run of runs) {
      if (keep.has(run)) continue;
      await rm(join(dir, run), { recursive: true, force: true });
      deleted.push(run);
    }
    return deleted;
  }

  function startRun(sourceId: string, runId: string): ArchiveRun {
    const dir = sourceDir(sourceId);
    const path = join(dir, segment(runId, 'run id'));
    const written = new Set<string>();
    let created: Promise<unknown> | undefined;
    return {
      sourceId,
      runId,
      path,
      async write(page: RawPage): Promise<string> {
        const name = segment(page.name, 'page name');
        if (name === STATE_FILE) throw new Error(`page name ${name} is reserved`);
        if (written.has(name)) throw new Error(`page ${name} written twice in run ${sourceId}/${runId}`);
        written.add(name);
        try {
          created ??= mkdir(path, { recursive: true });
          await created;
          return await writeAtomic(path, name, page.body);
        } catch (err) {
          created = undefined;
          written.delete(name);
          throw err;
        }
      },
      ref(name: string): string {
        return `${runId}/${segment(name, 'page name')}`;
      },
      async readArchived(ref: string): Promise<Buffer | undefined> {
        const parsed = parseRef(ref);
        if (parsed === undefined) throw new Error(`not an archive reference: ${ref}`);
        try {
          return await readFile(join(dir, parsed.runId, parsed.name));
        } catch (err) {
          if (isNotFound(err)) return undefined;
          throw err;
        }
      },
    };
  }

  return { root, startRun, loadFetchState, saveFetchState, prune };
}

/** An offline mirror: the accepted files of `DIR/<sourceId>/` by name, as pages; hidden files ignored. */
export async function readMirror(
  dir: string,
  sourceId: string,
  accepts: (name: string) => boolean,
): Promise<RawPage[]> {
  const folder = join(dir, segment(sourceId, 'source id'));
  const names = (await entriesOf(folder))
    .filter((d) => d.isFile() && !d.name.startsWith('.') && accepts(d.name))
    .map((d) => d.name)
    .sort();
  const pages: RawPage[] = [];
  for (const name of names) pages.push({ name, body: await readFile(join(folder, name)) });
  return pages;
}

/** Writes `dir/name` via a fsynced temporary file in the same folder, renamed over. */
async function writeAtomic(dir: string, name: string, body: Buffer): Promise<string> {
  const target = join(dir, name);
  const temp = join(dir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx');
  try {
    await handle.writeFile(body);
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await rename(temp, target);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  return target;
}

/** A single harmless path segment (no separators, `.`/`..`, NUL). */
function segment(value: string, what: string): string {
  if (value === '' || value === '.' || value === '..' || /[/\\\0]/.test(value)) {
    throw new Error(`invalid ${what}: ${JSON.stringify(value)}`);
  }
  return value;
}

function parseRef(ref: string): { runId: string; name: string } | undefined {
  const parts = ref.split('/');
  if (parts.length !== 2) return undefined;
  const [runId, name] = parts as [string, string];
  if ([runId, name].some((p) => p === '' || p === '.' || p === '..' || /[\\\0]/.test(p))) return undefined;
  return { runId, name };
}

async function entriesOf(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}

function isNotFound(err: unknown): boolean {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === 'ENOENT';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
