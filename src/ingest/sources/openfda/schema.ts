/**
 * The openFDA enforcement page (`{meta, results}`), checked at the edge (validate.ts): known
 * fields must have the type openFDA documents (an empty field is omitted on some records, `""`
 * on others), and every record needs a recall number.
 */
import { Type, type Static } from 'typebox';
import type { SetAside } from '../../source.ts';
import { checkRecords, compileValidator, fieldOf, jsonPageReader, OptionalText } from '../../validate.ts';

const TextList = Type.Optional(Type.Array(Type.String()));

/** The harmonised `openfda` block: usually `{}` for food and devices, arrays of strings for drugs. */
export const OpenFdaBlock = Type.Object(
  {
    brand_name: TextList,
    generic_name: TextList,
    manufacturer_name: TextList,
    product_ndc: TextList,
    package_ndc: TextList,
    upc: TextList,
  },
  { additionalProperties: true },
);

/** One enforcement report record (food, drug and device share the shape). */
export const OpenFdaRecord = Type.Object(
  {
    recall_number: Type.String({ minLength: 1 }),
    event_id: OptionalText,
    status: OptionalText,
    classification: OptionalText,
    product_type: OptionalText,
    recalling_firm: OptionalText,
    product_description: OptionalText,
    product_quantity: OptionalText,
    reason_for_recall: OptionalText,
    code_info: OptionalText,
    more_code_info: OptionalText,
    distribution_pattern: OptionalText,
    recall_initiation_date: OptionalText,
    center_classification_date: OptionalText,
    report_date: OptionalText,
    termination_date: OptionalText,
    voluntary_mandated: OptionalText,
    initial_firm_notification: OptionalText,
    openfda: Type.Optional(OpenFdaBlock),
  },
  { additionalProperties: true },
);
export type OpenFdaRecord = Static<typeof OpenFdaRecord>;

export const OpenFdaMeta = Type.Object(
  {
    last_updated: Type.Optional(Type.String()),
    results: Type.Optional(
      Type.Object(
        {
          skip: Type.Optional(Type.Integer({ minimum: 0 })),
          limit: Type.Optional(Type.Integer({ minimum: 0 })),
          total: Type.Integer({ minimum: 0 }),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { additionalProperties: true },
);

const readPage = jsonPageReader(
  Type.Object({ meta: OpenFdaMeta, results: Type.Array(Type.Unknown()) }, { additionalProperties: true }),
  'openFDA page',
  '{meta, results[]}',
);

/** One openFDA page: its meta block and its records. */
export interface OpenFdaPage {
  meta: Static<typeof OpenFdaMeta>;
  results: OpenFdaRecord[];
  /** Records that drifted, set aside with the reason. */
  setAside: SetAside[];
}

const OpenFdaRecordValidator = compileValidator(OpenFdaRecord);

/** Parses and checks one openFDA page (validate.ts policy). */
export function parseOpenFdaPage(body: Buffer | string, url?: string): OpenFdaPage {
  const json = readPage(body, url);
  const { records, setAside } = checkRecords(json.results, OpenFdaRecordValidator, {
    place: (i) => `results[${i}]`,
    idOf: fieldOf('recall_number'),
  });
  return { meta: json.meta, results: records, setAside };
}
