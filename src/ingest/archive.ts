/**
 * The raw archive: every page exactly as an agency served it, one folder per source and run
 * (`<root>/<sourceId>/<runId>/<page.name>`), plus the conditional-GET state of each source
 * (`<root>/<sourceId>/fetch-state.json`). Every file is written atomically (temporary file in the
 * same folder, fsync, rename), so a crash never leaves a half-written page or state behind.
 *
 * Also reads offline mirrors (`recalls ingest --from DIR`), which are plain folders of pages.
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
  /** Archive reference of the body, relative to the source folder: `<runId>/<page name>`. */
  file: string;
}

/** Conditional-GET state of one source: address → validators and archived body. */
export type FetchState = Record<string, FetchStateEntry>;

/** The archive folder of one run of one source. */
export interface ArchiveRun {
  readonly sourceId: string;
  readonly runId: string;
  /** Absolute path of the run folder (created on the first write). */
  readonly path: string;
  /**
   * Writes a page as `<run folder>/<page.name>` atomically and returns the file's absolute path.
   * A page name may be written once per run: a second write of the same name throws (it would
   * silently lose a page).
   */
  write(page: RawPage): Promise<string>;
  /** The archive reference (`<runId>/<name>`) of a page of this run, as stored in FetchState. */
  ref(name: string): string;
  /** Reads a file archived by any run of this source from its reference; undefined when it is gone. */
  readArchived(ref: string): Promise<Buffer | undefined>;
}

/** The page archive on disk: one folder per source and run, and each source's conditional-GET state. */
export interface Archive {
  readonly root: string;
  /** Opens the archive folder of a new run. Run ids must sort by time (e.g. `20240501T060000Z`): prune relies on it. */
  startRun(sourceId: string, runId: string): ArchiveRun;
  /** The saved conditional-GET state of a source; `{}` when there is none or it is unreadable. */
  loadFetchState(sourceId: string): Promise<FetchState>;
  /** Replaces the conditional-GET state of a source, atomically. */
  saveFetchState(sourceId: string, state: FetchState): Promise<void>;
  /**
   * Deletes run folders of a source but the newest `keepRuns` (by run id order) and any run the
   * saved fetch state still points to. Returns the deleted run ids.
   */
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
    // The state is only a cache of validators: if it is unreadable, fetch everything again.
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

/**
 * Reads an offline mirror: the files of `DIR/<sourceId>/` that `accepts` admits, sorted by name,
 * as pages named after their files (no `url`). A missing folder gives `[]`; subfolders and hidden
 * files (`.name`) are ignored.
 */
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

/** Writes `dir/name` via a temporary file in the same folder, fsynced, then renamed over. */
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

/** A single, harmless path segment (no separators, no `.`/`..`, no NUL). */
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

/** The entries of a folder; none when it does not exist. */
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
