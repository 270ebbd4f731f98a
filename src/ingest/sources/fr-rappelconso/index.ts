/** France's RappelConso (DGCCRF): product recall notices, Safety Gate re-publications included. */
import type { ParsedPage, RawPage, SourceAdapter, SourceMeta } from '../../source.ts';
import { newestPerId } from '../newest-per-id.ts';
import { fetchRappelConso, RAPPELCONSO_DATASET, RAPPELCONSO_PAGE_LIMIT } from './fetch.ts';
import { normaliseRappelConso } from './normalise.ts';
import { parseRappelConsoPage, type RappelConsoRecord } from './schema.ts';

const meta: SourceMeta = {
  id: 'fr-rappelconso',
  agency:
    'Direction générale de la concurrence, de la consommation et de la répression des fraudes (DGCCRF) – RappelConso',
  jurisdiction: 'FR',
  licence: {
    id: 'etalab-2.0',
    url: 'https://www.etalab.gouv.fr/licence-ouverte-open-licence/',
    attribution: `Source: RappelConso, DGCCRF (https://data.economie.gouv.fr/explore/dataset/${RAPPELCONSO_DATASET}/), Licence Ouverte / Open Licence 2.0; last updated as given by data_as_of.`,
  },
  homepage: 'https://rappel.conso.gouv.fr',
  cadence: 'Notices every working day',
  cadenceHours: 24,
  defaultBaseUrl: 'https://data.economie.gouv.fr',
};

function publishedAt(r: RappelConsoRecord): number {
  const t = Date.parse(r.date_publication ?? '');
  return Number.isNaN(t) ? -Infinity : t;
}

/** One record per `numero_fiche`, in page order: the highest `numero_version` wins, then the latest published, then the first. */
export function latestVersions(records: readonly RappelConsoRecord[]): RappelConsoRecord[] {
  return newestPerId(
    records,
    (r) => r.numero_fiche.trim(),
    (r, seen) => {
      const [a, b] = [r.numero_version ?? -1, seen.numero_version ?? -1];
      return a > b || (a === b && publishedAt(r) > publishedAt(seen));
    },
  );
}

/** The newest `date_publication` of the records, as served, or null. */
function newestPublication(records: readonly RappelConsoRecord[]): string | null {
  let newest: RappelConsoRecord | null = null;
  for (const r of records)
    if (publishedAt(r) > (newest === null ? -Infinity : publishedAt(newest))) newest = r;
  return newest?.date_publication?.trim() ?? null;
}

/** The RappelConso adapter. */
export const frRappelConso: SourceAdapter = {
  meta,
  fetch: (ctx) => fetchRappelConso(ctx),
  acceptsFile: (name) => /\.json$/i.test(name),
  parse(page: RawPage): ParsedPage {
    const { records, setAside, served } = parseRappelConsoPage(page.body, page.url);
    // A page short of the limit ends a walk, which runs oldest first: it holds the newest notices.
    const last = served.length < RAPPELCONSO_PAGE_LIMIT;
    return {
      dataAsOf: last ? newestPublication(records) : null,
      drafts: latestVersions(records).map(normaliseRappelConso),
      setAside,
    };
  },
};
