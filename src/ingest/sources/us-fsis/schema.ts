/**
 * The FSIS response (a bare JSON array), checked at the edge (../../validate.ts). Ten multi-value
 * fields became arrays in June 2026 (justanesta/consumer-product-recalls, "Finding S"); both parse.
 */
import { Type, type Static } from 'typebox';
import {
  checkRecords,
  compileValidator,
  fieldOf,
  jsonPageReader,
  type CheckedRecords,
  OptionalText,
} from '../../validate.ts';

const TextOrList = Type.Optional(Type.Union([Type.String(), Type.Array(Type.String()), Type.Null()]));

/** One record of `GET /fsis/api/recall/v/1`. */
export const FsisRecord = Type.Object(
  {
    field_recall_number: OptionalText,
    field_recall_number_export: OptionalText,
    langcode: Type.String(),
    field_title: OptionalText,
    field_recall_url: OptionalText,
    field_recall_date: OptionalText,
    field_last_modified_date: OptionalText,
    field_closed_date: OptionalText,
    field_closed_year: OptionalText,
    field_year: OptionalText,
    field_recall_type: OptionalText,
    field_recall_classification: OptionalText,
    field_risk_level: OptionalText,
    field_summary: OptionalText,
    field_qty_recovered: OptionalText,
    field_active_notice: OptionalText,
    field_archive_recall: OptionalText,
    field_related_to_outbreak: OptionalText,
    field_has_spanish: OptionalText,
    field_translation_language: OptionalText,
    field_recall_reason: TextOrList,
    field_processing: TextOrList,
    field_states: TextOrList,
    field_establishment: TextOrList,
    field_labels: TextOrList,
    field_product_items: TextOrList,
    field_distro_list: TextOrList,
    field_press_release: TextOrList,
    field_en_press_release: TextOrList,
    // Personal data: read only to keep it out of drafts (see press-release.ts).
    field_company_media_contact: TextOrList,
    field_media_contact: TextOrList,
  },
  { additionalProperties: true },
);
export type FsisRecord = Static<typeof FsisRecord>;

const readPage = jsonPageReader(Type.Array(Type.Unknown()), 'FSIS response', 'a bare JSON array');
const FsisRecordValidator = compileValidator(FsisRecord);

/** `field_recall_number` trimmed, else its export twin; '' when neither. */
export function fsisRecallNumber(record: FsisRecord): string {
  const own = (record.field_recall_number ?? '').trim();
  return own !== '' ? own : (record.field_recall_number_export ?? '').trim();
}

/** Parses and checks one response; a record with no recall number is set aside. */
export function parseFsisPage(body: Buffer | string, url?: string): CheckedRecords<FsisRecord> {
  return checkRecords(readPage(body, url), FsisRecordValidator, {
    place: (i) => `[${i}]`,
    idOf: fieldOf('field_recall_number'),
    refuse: (record) => (fsisRecallNumber(record) === '' ? 'no field_recall_number' : null),
  });
}
