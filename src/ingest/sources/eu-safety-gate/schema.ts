/** The Safety Gate weekly report list and weekly reports (XML), checked at the edge (../../validate.ts). */
import { Type, type Static } from '@sinclair/typebox';
import { calendarDate } from '../../../domain/dates.ts';
import { formatError } from '../../errors.ts';
import type { SetAside } from '../../source.ts';
import {
  checkRecords,
  compileValidator,
  createXmlParser,
  fieldOf,
  memberOf,
  parseXmlPage,
} from '../../validate.ts';

/** Elements read as arrays even when there is one. */
const REPEATED = new Set(['weeklyReport', 'notifications', 'picture']);

const parser = createXmlParser({
  ignoreAttributes: true,
  // Every value stays a string: barcodes and batches keep leading zeros.
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => REPEATED.has(name),
});

const Text = Type.Optional(Type.String());
/** An exceptionally repeated field: values joined with "; ". */
const TextOrList = Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())]));

/** One entry of the weekly report list. */
export const WeeklyReportEntry = Type.Object(
  {
    reference: Text,
    publicationDate: Type.String({ minLength: 1 }),
    year: Text,
    week: Text,
    URL: Type.String({ minLength: 1 }),
  },
  { additionalProperties: true },
);

/** One alert (a "notification") of a weekly report. */
export const Notification = Type.Object(
  {
    caseNumber: Type.String({ minLength: 1 }),
    reference: Text,
    category: Text,
    product: Text,
    brand: Text,
    name: Text,
    type_numberOfModel: TextOrList,
    model: TextOrList,
    batchNumber: TextOrList,
    barcode: TextOrList,
    riskType: Text,
    level: Text,
    riskLevel: Text,
    danger: Text,
    measures: Text,
    description: Text,
    notifyingCountry: Text,
    countryOfOrigin: Text,
    type: Text,
    URLrecall: Text,
    companyRecallCode: Text,
    productionDates: Text,
    // Not in any description of the report; read when present, whatever its shape.
    countries: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true },
);
export type Notification = Static<typeof Notification>;

const ListRoot = Type.Object({ weeklyReport: Type.Array(Type.Unknown()) }, { additionalProperties: true });
const ReportRoot = Type.Object(
  { report_date: Type.String({ minLength: 1 }), notifications: Type.Optional(Type.Array(Type.Unknown())) },
  { additionalProperties: true },
);

/** A weekly report as listed. */
export interface WeeklyReportRef {
  /** The numeric id in the detail address (`…/detail/xml/10000325…`). */
  id: string;
  reference: string | null;
  /** YYYY-MM-DD. */
  publicationDate: string;
  /** As listed, entities decoded. */
  url: string;
}

/** One weekly report: its date and its notifications. */
export interface WeeklyReport {
  /** YYYY-MM-DD. */
  reportDate: string;
  notifications: Notification[];
  /** Notifications that drifted, with the reason. */
  setAside: SetAside[];
}

/** A parsed Safety Gate page: the report list or one weekly report. */
export type SafetyGateDocument =
  { kind: 'list'; reports: WeeklyReportRef[] } | { kind: 'report'; report: WeeklyReport };

const ListRootValidator = compileValidator(ListRoot);
const WeeklyReportEntryValidator = compileValidator(WeeklyReportEntry);
const ReportRootValidator = compileValidator(ReportRoot);
const NotificationValidator = compileValidator(Notification);

/** `DD/MM/YYYY` (as printed) or ISO → `YYYY-MM-DD`; null unless a real day. */
export function safetyGateDate(value: string): string | null {
  const v = value.trim();
  let y: number, mo: number, d: number;
  let m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(v);
  if (m) [d, mo, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else {
    m = /^(\d{4})-(\d{2})-(\d{2})(?:T.*)?$/.exec(v);
    if (!m) return null;
    [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  }
  return calendarDate(y, mo, d);
}

/** The report id in a listed address (`…/weeklyReport/detail/xml/10000325?language=en`). */
export function reportIdFromUrl(url: string): string | null {
  return /\/weeklyReport\/detail\/xml\/(\d+)(?:[?,/]|$)/.exec(url)?.[1] ?? null;
}

function parseXml(body: Buffer | string, url: string | undefined): Record<string, unknown> {
  const root = memberOf(parseXmlPage(parser, body, 'Safety Gate page', url), 'Safety-Gate');
  if (root === null || typeof root !== 'object' || Array.isArray(root)) {
    throw formatError('Safety Gate page has no <Safety-Gate> root element', url);
  }
  return root as Record<string, unknown>;
}

function parseList(root: Record<string, unknown>, url: string | undefined): WeeklyReportRef[] {
  if (!ListRootValidator.check(root)) {
    throw formatError(`Safety Gate report list drifted: ${ListRootValidator.firstError(root)}`, url);
  }
  return root.weeklyReport.map((entry, i) => {
    if (!WeeklyReportEntryValidator.check(entry)) {
      throw formatError(
        `Safety Gate weeklyReport[${i}] drifted: ${WeeklyReportEntryValidator.firstError(entry)}`,
        url,
      );
    }
    const listed = entry.URL.trim();
    const id = reportIdFromUrl(listed);
    const publicationDate = safetyGateDate(entry.publicationDate);
    if (id === null) throw formatError(`Safety Gate weeklyReport[${i}] has no report id in "${listed}"`, url);
    if (publicationDate === null) {
      throw formatError(
        `Safety Gate weeklyReport[${i}] has no valid publicationDate: "${entry.publicationDate}"`,
        url,
      );
    }
    return { id, reference: entry.reference?.trim() || null, publicationDate, url: listed };
  });
}

function parseReport(root: Record<string, unknown>, url: string | undefined): WeeklyReport {
  if (!ReportRootValidator.check(root)) {
    throw formatError(`Safety Gate weekly report drifted: ${ReportRootValidator.firstError(root)}`, url);
  }
  const reportDate = safetyGateDate(root.report_date);
  if (reportDate === null)
    throw formatError(`Safety Gate report_date is not a date: "${root.report_date}"`, url);
  const { records, setAside } = checkRecords(root.notifications ?? [], NotificationValidator, {
    place: (i) => `notifications[${i}]`,
    idOf: fieldOf('caseNumber'),
  });
  return { reportDate, notifications: records, setAside };
}

/** The report list or a weekly report, told apart by content; UpstreamError('format') otherwise. */
export function parseSafetyGatePage(body: Buffer | string, url?: string): SafetyGateDocument {
  const root = parseXml(body, url);
  if ('weeklyReport' in root) return { kind: 'list', reports: parseList(root, url) };
  if ('report_date' in root || 'notifications' in root)
    return { kind: 'report', report: parseReport(root, url) };
  throw formatError('Safety Gate page is neither the weekly report list nor a weekly report', url);
}
