/** Sources as responses see them, and the `meta.data_as_of`, attribution and health rules routes share. */
import { CacheRegistry, VersionedCache } from '../node/caches.ts';
import type { SourceMeta } from '../ingest/source.ts';
import type { Store } from '../store/database.ts';
import type { SourceState } from '../store/sources-store.ts';
import type { Health } from './schemas.ts';

export interface SourceView {
  meta: SourceMeta;
  state: SourceState;
}

const NEVER: Omit<SourceState, 'id'> = {
  enabled: true,
  data_as_of: null,
  last_success_at: null,
  last_attempt_at: null,
  last_error: null,
  consecutive_failures: 0,
  last_run_ms: null,
  last_run_records: null,
};

/** Whether the source's last attempt failed (it has been attempted since its last success, or never succeeded). */
export function failedLast(state: SourceState): boolean {
  return (
    state.last_attempt_at !== null &&
    (state.last_success_at === null || state.last_attempt_at > state.last_success_at)
  );
}

/** Whether /v1/health lists the source as degraded at `now`: its last attempt failed, or it is stale. */
export function isDegraded(meta: SourceMeta, state: SourceState, now: Date): boolean {
  const stale =
    state.last_success_at === null ||
    now.getTime() - new Date(state.last_success_at).getTime() > 2 * meta.cadenceHours * 3_600_000;
  return failedLast(state) || stale || state.consecutive_failures > 0;
}

/** The source id a recall id starts with (`us-fda-food.F-1-2020` → `us-fda-food`). */
export function sourceOfRecallId(recallId: string): string {
  return recallId.slice(0, Math.max(0, recallId.indexOf('.')));
}

export class SourceCatalog {
  /** The views at the corpus version held: one entry. */
  private readonly kept: VersionedCache<'views', SourceView[]>;

  constructor(
    private readonly store: Store,
    private readonly metas: readonly SourceMeta[],
    caches = new CacheRegistry(),
  ) {
    this.kept = caches.add(new VersionedCache('source-views', { max: 1 }));
  }

  /**
   * Every registered source with its state, in id order, at the request's corpus version (`corpusVersionOf`);
   * cached per corpus version, which moves with every served part of it (freshness, last success), not with
   * attempts and failures.
   */
  async views(version: number): Promise<SourceView[]> {
    let views = this.kept.get(version, 'views');
    if (views === undefined) this.kept.set(version, 'views', (views = await this.read()));
    return views;
  }

  private async read(): Promise<SourceView[]> {
    const states = new Map((await this.store.sources.list()).map((s) => [s.id, s]));
    return this.sortedMetas().map((meta) => ({
      meta,
      state: states.get(meta.id) ?? { id: meta.id, ...NEVER },
    }));
  }

  isKnown(id: string): boolean {
    return this.metas.some((m) => m.id === id);
  }

  private readonly sortedMetas = () =>
    (this.sorted ??= [...this.metas].sort((a, b) => (a.id < b.id ? -1 : 1)));
  private sorted: SourceMeta[] | undefined;

  /** Oldest freshness stamp of the enabled sources selected (all by default) at `version` (`corpusVersionOf`). */
  async dataAsOf(
    select: ((meta: SourceMeta) => boolean) | undefined,
    version: number,
  ): Promise<string | null> {
    let oldest: string | null = null;
    for (const v of await this.views(version)) {
      if (!v.state.enabled || (select !== undefined && !select(v.meta))) continue;
      const d = v.state.data_as_of;
      if (d !== null && (oldest === null || d < oldest)) oldest = d;
    }
    return oldest;
  }

  /** Attribution strings of the given sources, deduplicated, in source-id order. */
  attribution(sourceIds: Iterable<string>): string[] {
    const wanted = new Set(sourceIds);
    const out: string[] = [];
    for (const meta of this.sortedMetas()) {
      if (wanted.has(meta.id) && !out.includes(meta.licence.attribution)) out.push(meta.licence.attribution);
    }
    return out;
  }

  /** Health of the enabled sources at `now`, read afresh: it shows attempts and failures. */
  async health(now: Date): Promise<Health> {
    const enabled = (await this.read()).filter((v) => v.state.enabled);
    const degraded: string[] = [];
    for (const { meta, state } of enabled) if (isDegraded(meta, state, now)) degraded.push(meta.id);
    // `unknown` only before any fetch: once one has been tried, every source that failed or was never fetched
    // is degraded, so a node whose every source failed says so.
    const anyFetched = enabled.some(
      (v) => v.state.last_attempt_at !== null || v.state.last_success_at !== null,
    );
    return {
      status: !anyFetched ? 'unknown' : degraded.length > 0 ? 'degraded' : 'ok',
      sources: enabled.map(({ meta, state }) => ({
        id: meta.id,
        cadence: meta.cadence,
        last_success_at: state.last_success_at,
        data_as_of: state.data_as_of,
        consecutive_failures: state.consecutive_failures,
      })),
      degraded: anyFetched ? degraded : [],
    };
  }
}
