/**
 * An FSA Food Alerts API page (`{meta, items[]}`), checked at the edge (../../validate.ts). Linked
 * data as JSON: one value may come as a one-element array, a coded one as `{"@id", "label"}`.
 */
import { Type, type Static, type TSchema } from 'typebox';
import type { SetAside } from '../../source.ts';
import { checkRecords, compileValidator, fieldOf, jsonPageReader, OptionalText } from '../../validate.ts';

const OneOrMany = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Array(schema)]);

/** A plain or language-tagged string (`{"@value": "…", "@language": "en"}`). */
const Literal = Type.Union([
  Type.String(),
  Type.Object({ '@value': Type.String() }, { additionalProperties: true }),
]);

/** A coded value: a string, or an object with a label (sometimes a list) or a literal. */
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

/** One batch of a product. */
export const BatchDescription = Type.Object(
  {
    batchCode: Codes,
    lotNumber: Codes,
    batchTextDescription: OptionalText,
    // Dates, never identifiers: unread, typed so drift still shows.
    bestBeforeDescription: OptionalText,
    bestBeforeDate: OptionalText,
    useByDescription: OptionalText,
    useByDate: OptionalText,
  },
  { additionalProperties: true },
);
export type BatchDescription = Static<typeof BatchDescription>;

/** One product of an alert. */
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

/** One problem of an alert. */
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

/** One page's alerts. */
export interface FoodAlertPage {
  items: FoodAlert[];
  setAside: SetAside[];
}

const FoodAlertValidator = compileValidator(FoodAlert);

/** Parses and checks one page. */
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

function literalText(value: Static<typeof Literal>): string {
  return typeof value === 'string' ? value : value['@value'];
}

/** The string, else its first non-empty `label`, else its `@value`. */
export function labelText(value: Labelled): string | null {
  const candidates =
    typeof value === 'string' ? [value] : [...asList(value.label).map(literalText), value['@value'] ?? ''];
  return candidates.map((t) => t.trim()).find((t) => t !== '') ?? null;
}
