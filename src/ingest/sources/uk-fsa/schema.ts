/**
 * A page of the FSA Food Alerts API (`{meta, items[]}` for the list and for one alert alike),
 * checked at the edge (validate.ts); every alert needs its notation. The API is linked data
 * rendered as JSON, so a property with one value may come as that value or as a one-element
 * array, and a coded value as a string or as `{"@id", "label"}`; both are accepted.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { SetAside } from '../../source.ts';
import { checkRecords, compileValidator, fieldOf, jsonPageReader, OptionalText } from '../../validate.ts';

/** A value that may be given once or as a list. */
const OneOrMany = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Array(schema)]);

/** A literal: a plain string, or a language-tagged one (`{"@value": "…", "@language": "en"}`). */
const Literal = Type.Union([
  Type.String(),
  Type.Object({ '@value': Type.String() }, { additionalProperties: true }),
]);

/**
 * A coded or labelled value: a plain string, or an object carrying a label or a literal. Real
 * alerts give some labels as a list (`country[].label: ["England", "England"]`).
 */
export const Labelled = Type.Union([
  Type.String(),
  Type.Object(
    {
      '@id': Type.Optional(Type.String()),
      label: Type.Optional(OneOrMany(Literal)),
      '@value': Type.Optional(Type.String()),
      notation: Type.Optional(Type.String()),
    },
    { additionalProperties: true },
  ),
]);
export type Labelled = Static<typeof Labelled>;

const LabelledField = Type.Optional(Type.Union([OneOrMany(Labelled), Type.Null()]));
const Codes = Type.Optional(Type.Union([OneOrMany(Type.String()), Type.Null()]));

export const BatchDescription = Type.Object(
  {
    batchCode: Codes,
    lotNumber: Codes,
    batchTextDescription: OptionalText,
    // Dates, never identifiers: read by no one, typed so that drift still shows.
    bestBeforeDescription: OptionalText,
    bestBeforeDate: OptionalText,
    useByDescription: OptionalText,
    useByDate: OptionalText,
  },
  { additionalProperties: true },
);
export type BatchDescription = Static<typeof BatchDescription>;

export const ProductDetails = Type.Object(
  {
    productName: OptionalText,
    packSizeDescription: OptionalText,
    productCode: Type.Optional(Type.Unknown()),
    batchDescription: Type.Optional(Type.Union([OneOrMany(BatchDescription), Type.String(), Type.Null()])),
  },
  { additionalProperties: true },
);
export type ProductDetails = Static<typeof ProductDetails>;

export const Problem = Type.Object(
  {
    riskStatement: OptionalText,
    allergen: LabelledField,
    hazardCategory: LabelledField,
    pathogenRisk: LabelledField,
    reason: LabelledField,
  },
  { additionalProperties: true },
);
export type Problem = Static<typeof Problem>;

/** One food alert. */
export const FoodAlert = Type.Object(
  {
    notation: Type.String({ minLength: 1 }),
    '@id': OptionalText,
    title: OptionalText,
    shortTitle: OptionalText,
    description: OptionalText,
    created: OptionalText,
    modified: OptionalText,
    type: Type.Optional(OneOrMany(Type.String())),
    status: LabelledField,
    alertURL: OptionalText,
    country: LabelledField,
    problem: Type.Optional(Type.Union([OneOrMany(Problem), Type.Null()])),
    productDetails: Type.Optional(Type.Union([OneOrMany(ProductDetails), Type.Null()])),
    actionTaken: LabelledField,
    consumerAdvice: LabelledField,
  },
  { additionalProperties: true },
);
export type FoodAlert = Static<typeof FoodAlert>;

const readPage = jsonPageReader(
  Type.Object(
    {
      meta: Type.Optional(Type.Object({}, { additionalProperties: true })),
      items: Type.Array(Type.Unknown()),
    },
    { additionalProperties: true },
  ),
  'FSA food alerts page',
  '{items[]}',
);

/** One page of the Food Alerts API: its alerts. */
export interface FoodAlertPage {
  items: FoodAlert[];
  /** Alerts that drifted, set aside with the reason. */
  setAside: SetAside[];
}

const FoodAlertValidator = compileValidator(FoodAlert);

/** Parses and checks one page of the Food Alerts API (validate.ts policy). */
export function parseFoodAlertPage(body: Buffer | string, url?: string): FoodAlertPage {
  const { records, setAside } = checkRecords(readPage(body, url).items, FoodAlertValidator, {
    place: (i) => `items[${i}]`,
    idOf: fieldOf('notation'),
  });
  return { items: records, setAside };
}

/** A value given once or as a list, as a list. */
export function asList<T>(value: T | T[] | null | undefined): T[] {
  if (value === null || value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** The text of a literal, plain or language-tagged. */
function literalText(value: Static<typeof Literal>): string {
  return typeof value === 'string' ? value : value['@value'];
}

/** The text of a labelled value: the string itself, else its (first non-empty) `label`, else its `@value`. */
export function labelText(value: Labelled): string | null {
  const candidates =
    typeof value === 'string' ? [value] : [...asList(value.label).map(literalText), value['@value'] ?? ''];
  return candidates.map((t) => t.trim()).find((t) => t !== '') ?? null;
}
