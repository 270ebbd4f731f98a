/** Safety Gate's public JSON API: a page of the notification list, or one notification, checked at the edge (../../validate.ts). */
import { Type, type Static, type TSchema } from 'typebox';
import { calendarDate } from '../../../domain/dates.ts';
import { formatError } from '../../errors.ts';
import type { SetAside } from '../../source.ts';
import { checkRecords, compileValidator, fieldOf, jsonPageReader, OptionalText } from '../../validate.ts';

const Nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
const Open = <T extends Parameters<typeof Type.Object>[0]>(properties: T) =>
  Type.Object(properties, { additionalProperties: true });

/** An enumerated value as the API writes it: `{key: "riskType.choking", name: "CHOKING"}`. */
const Coded = Nullable(Open({ key: OptionalText, name: OptionalText }));
/** A language tag of a translated version: `{key: "EN", name: "english"}`. */
const Language = Coded;
/** A list of one-field objects (`[{barcode: "…"}]`). */
const ValueList = <K extends string>(key: K) => Nullable(Type.Array(Open({ [key]: OptionalText })));

/** One notification, as the detail address serves it (only what is read is checked; the rest passes). */
export const Notification = Open({
  id: Type.Integer({ minimum: 0 }),
  reference: Type.String({ minLength: 1 }),
  notificationType: Nullable(Open({ code: OptionalText, name: OptionalText })),
  country: Coded,
  creationDate: OptionalText,
  publicationDate: OptionalText,
  modificationDate: OptionalText,
  product: Nullable(
    Open({
      productCategory: Coded,
      nameSpecific: OptionalText,
      brands: ValueList('brand'),
      versions: Nullable(
        Type.Array(
          Open({
            language: Language,
            name: OptionalText,
            description: OptionalText,
            packageDescription: OptionalText,
          }),
        ),
      ),
      barcodes: ValueList('barcode'),
      batchNumbers: ValueList('batchNumber'),
      modelTypes: ValueList('modelType'),
    }),
  ),
  risk: Nullable(
    Open({
      riskType: Nullable(Type.Array(Coded)),
      versions: Nullable(
        Type.Array(Open({ language: Language, riskDescription: OptionalText, riskTypeOther: OptionalText })),
      ),
    }),
  ),
  measureTaken: Nullable(
    Open({
      measures: Nullable(
        Type.Array(
          Open({
            entryIntoForceDate: OptionalText,
            measureCategory: Coded,
            versions: Nullable(Type.Array(Open({ language: Language, measureCategoryOther: OptionalText }))),
          }),
        ),
      ),
    }),
  ),
  // The shape of a reacting country is unseen (every real object lists none); read in any shape.
  reactingCountries: Nullable(Type.Array(Type.Unknown())),
});
export type Notification = Static<typeof Notification>;

/** One entry of a list page: its id and, when the list gives it, its modification date. */
const ListEntry = Open({
  id: Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]{1,18}$' })]),
  modificationDate: OptionalText,
  publicationDate: OptionalText,
});

/** A page of the notification list (a Spring page: `content`, `totalPages`, `last`, …). */
const ListPage = Open({
  content: Type.Array(Type.Unknown()),
  totalPages: Type.Optional(Type.Integer({ minimum: 0 })),
  last: Type.Optional(Type.Boolean()),
});

/** A notification as the list names it. */
export interface ListedNotification {
  /** The numeric id of the detail address, as text. */
  id: string;
  /** ISO date-time, when the list gives one. */
  modificationDate: string | null;
}

/** A parsed page of the list. */
export interface NotificationList {
  notifications: ListedNotification[];
  /** Entries without a usable id, with the reason. */
  setAside: SetAside[];
  /** Entries on the page, usable or not. */
  entries: number;
  /** As the page says, when it says so. */
  totalPages: number | null;
  last: boolean | null;
  /** The newest modification (else publication) date-time listed: the feed's freshness. */
  newest: string | null;
}

/** A parsed Safety Gate page. */
export type SafetyGatePage =
  | { kind: 'list'; list: NotificationList }
  | { kind: 'notification'; notification: Notification }
  | { kind: 'set-aside'; setAside: SetAside };

const readPage = jsonPageReader(Open({}), 'Safety Gate page', 'a JSON object');
const ListPageValidator = compileValidator(ListPage);
const ListEntryValidator = compileValidator(ListEntry);
const NotificationValidator = compileValidator(Notification);

/** An ISO date or date-time → its `YYYY-MM-DD` as written; null unless a real day. */
export function safetyGateDate(value: string | null | undefined): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T|$)/.exec((value ?? '').trim());
  return m === null ? null : calendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** An ISO date-time in UTC (`…Z`), or null when it is none. */
function instant(value: string | null | undefined): string | null {
  if (safetyGateDate(value) === null) return null;
  const t = Date.parse(value!.trim());
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

function listOf(page: object, url: string | undefined): NotificationList {
  if (!ListPageValidator.check(page)) {
    throw formatError(`Safety Gate list page drifted: ${ListPageValidator.firstError(page)}`, url);
  }
  const { records, setAside } = checkRecords(page.content, ListEntryValidator, {
    place: (i) => `content[${i}]`,
    idOf: fieldOf('id'),
  });
  if (page.content.length > 0 && records.length === 0) {
    throw formatError(`Safety Gate list drifted: no entry has a usable id (${setAside[0]?.reason})`, url);
  }
  let newest: string | null = null;
  const notifications = records.map((entry) => {
    const modificationDate = instant(entry.modificationDate);
    const stamp = modificationDate ?? instant(entry.publicationDate);
    if (stamp !== null && (newest === null || stamp > newest)) newest = stamp;
    return { id: String(entry.id), modificationDate };
  });
  return {
    notifications,
    setAside,
    entries: page.content.length,
    totalPages: page.totalPages ?? null,
    last: page.last ?? null,
    newest,
  };
}

/** Reads a page of the list; UpstreamError('format') when the page is something else. */
export function parseNotificationList(body: Buffer | string, url?: string): NotificationList {
  return listOf(readPage(body, url), url);
}

/**
 * A list page (it has `content`) or one notification, told apart by content. A notification that
 * breaks the schema is set aside under `name`; a page that is no JSON object is UpstreamError('format').
 */
export function parseSafetyGatePage(body: Buffer | string, name: string, url?: string): SafetyGatePage {
  const page = readPage(body, url);
  if ('content' in page) return { kind: 'list', list: listOf(page, url) };
  const { records, setAside } = checkRecords([page], NotificationValidator, {
    place: () => name,
    idOf: fieldOf('reference'),
  });
  return records[0] !== undefined
    ? { kind: 'notification', notification: records[0] }
    : { kind: 'set-aside', setAside: setAside[0]! };
}
