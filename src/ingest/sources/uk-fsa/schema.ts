/**
 * A page of the FSA Food Alerts API as served (`{meta, items[]}` for the list and for one
 * alert alike), validated leniently at the edge: unknown properties pass, the properties we
 * read must have a shape we know, and every alert needs its notation. The API is linked data
 * rendered as JSON, so a property with one value may come as that value or as a one-element
 * array, and a coded value as a string or as `{"@id", "label"}`; both are accepted. Anything
 * else is drift and fails here, loudly, as a format error.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { formatError } from '../../errors.ts';
import { compileValidator } from '../../validate.ts';

/** A value that may be given once or as a list. */
const OneOrMany = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Array(schema)]);

/** A coded or labelled value: a plain string, or an object carrying a label or a literal. */
export const Labelled = Type.Union([
  Type.String(),
  Type.Object(
    {
      '@id': Type.Optional(Type.String()),
      label: Type.Optional(Type.String()),
      '@value': Type.Optional(Type.String()),
      notation: Type.Optional(Type.String()),
    },
    { additionalProperties: true },
  ),
]);
export type Labelled = Static<typeof Labelled>;

const Text = Type.Optional(Type.Union([Type.String(), Type.Null()]));
const LabelledField = Type.Optional(Type.Union([OneOrMany(Labelled), Type.Null()]));
const Codes = Type.Optional(Type.Union([OneOrMany(Type.String()), Type.Null()]));

export const BatchDescription = Type.Object(
  {
    batchCode: Codes,
    lotNumber: Codes,
    batchTextDescription: Text,
    // Dates, never identifiers: read by no one, typed so that drift still shows.
    bestBeforeDescription: Text,
    bestBeforeDate: Text,
    useByDescription: Text,
    useByDate: Text,
  },
  { additionalProperties: true },
);
export type BatchDescription = Static<typeof BatchDescription>;

export const ProductDetails = Type.Object(
  {
    productName: Text,
    packSizeDescription: Text,
    productCode: Type.Optional(Type.Unknown()),
    batchDescription: Type.Optional(Type.Union([OneOrMany(BatchDescription), Type.String(), Type.Null()])),
  },
  { additionalProperties: true },
);
export type ProductDetails = Static<typeof ProductDetails>;

export const Problem = Type.Object(
  {
    riskStatement: Text,
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
    '@id': Text,
    title: Text,
    shortTitle: Text,
    description: Text,
    created: Text,
    modified: Text,
    type: Type.Optional(OneOrMany(Type.String())),
    status: LabelledField,
    alertURL: Text,
    country: LabelledField,
    problem: Type.Optional(Type.Union([OneOrMany(Problem), Type.Null()])),
    productDetails: Type.Optional(Type.Union([OneOrMany(ProductDetails), Type.Null()])),
    actionTaken: LabelledField,
    consumerAdvice: LabelledField,
  },
  { additionalProperties: true },
);
export type FoodAlert = Static<typeof FoodAlert>;

const PageShape = Type.Object(
  { meta: Type.Optional(Type.Object({}, { additionalProperties: true })), items: Type.Array(Type.Unknown()) },
  { additionalProperties: true },
);

export interface FoodAlertPage {
  items: FoodAlert[];
}

const PageShapeValidator = compileValidator(PageShape);
const FoodAlertValidator = compileValidator(FoodAlert);

/**
 * Parses and validates one page of the Food Alerts API. Throws UpstreamError('format') naming
 * the first offending place when the body is not JSON, not `{items[]}`, or an alert drifted.
 */
export function parseFoodAlertPage(body: Buffer | string, url?: string): FoodAlertPage {
  let json: unknown;
  try {
    json = JSON.parse(typeof body === 'string' ? body : body.toString('utf8'));
  } catch (cause) {
    throw formatError(`FSA food alerts page is not JSON: ${(cause as Error).message}`, url);
  }
  if (!PageShapeValidator.check(json)) {
    throw formatError(`FSA food alerts page is not {items[]}: ${PageShapeValidator.firstError(json)}`, url);
  }
  const items = json.items.map((item, i) => {
    if (!FoodAlertValidator.check(item)) {
      throw formatError(`FSA alert items[${i}] drifted: ${FoodAlertValidator.firstError(item)}`, url);
    }
    return item;
  });
  return { items };
}

/** A value given once or as a list, as a list. */
export function asList<T>(value: T | T[] | null | undefined): T[] {
  if (value === null || value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** The text of a labelled value: the string itself, else its `label`, else its `@value`. */
export function labelText(value: Labelled): string | null {
  const text = typeof value === 'string' ? value : (value.label ?? value['@value'] ?? null);
  return text === null || text.trim() === '' ? null : text.trim();
}
