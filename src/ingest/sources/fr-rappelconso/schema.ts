/**
 * A RappelConso records page (Opendatasoft Explore API v2.1, `{total_count, results[]}`), checked at
 * the edge (../../validate.ts). The dataset lower-cases all text; unknown fields pass.
 */
import { Type, type Static } from 'typebox';
import type { SetAside } from '../../source.ts';
import { checkRecords, compileValidator, fieldOf, jsonPageReader, OptionalText } from '../../validate.ts';

/** One notice (`fiche`) as the dataset serves it; only the fields the adapter reads are typed. */
export const RappelConsoRecord = Type.Object(
  {
    numero_fiche: Type.String(),
    numero_version: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
    id: Type.Optional(Type.Union([Type.Integer(), Type.String(), Type.Null()])),
    date_publication: OptionalText,
    libelle: OptionalText,
    categorie_produit: OptionalText,
    sous_categorie_produit: OptionalText,
    marque_produit: OptionalText,
    modeles_ou_references: OptionalText,
    // An array of the `$`-split parts; the unsplit string is read too.
    identification_produits: Type.Optional(
      Type.Union([Type.Array(Type.String()), Type.String(), Type.Null()]),
    ),
    nature_juridique_rappel: OptionalText,
    motif_rappel: OptionalText,
    risques_encourus: OptionalText,
    description_complementaire_risque: OptionalText,
    conduites_a_tenir_par_le_consommateur: OptionalText,
    modalites_de_compensation: OptionalText,
    lien_vers_la_fiche_rappel: OptionalText,
  },
  { additionalProperties: true },
);
export type RappelConsoRecord = Static<typeof RappelConsoRecord>;

const readPage = jsonPageReader(
  Type.Object(
    {
      total_count: Type.Optional(Type.Integer({ minimum: 0 })),
      results: Type.Array(Type.Unknown()),
    },
    { additionalProperties: true },
  ),
  'RappelConso records page',
  '{total_count, results[]}',
);

const RecordValidator = compileValidator(RappelConsoRecord);

/** One page's records, those that could not be read set aside. */
export interface RappelConsoPage {
  records: RappelConsoRecord[];
  setAside: SetAside[];
  /** The page's own results, as served (for paging). */
  served: unknown[];
}

/** Parses and checks one page; a record with an empty `numero_fiche` is set aside. */
export function parseRappelConsoPage(body: Buffer | string, url?: string): RappelConsoPage {
  const served = readPage(body, url).results;
  const { records, setAside } = checkRecords(served, RecordValidator, {
    place: (i) => `results[${i}]`,
    idOf: fieldOf('numero_fiche'),
    refuse: (r) => (r.numero_fiche.trim() === '' ? 'empty numero_fiche' : null),
  });
  return { records, setAside, served };
}
