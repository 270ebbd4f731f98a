/** One FSA food alert → one RecallDraft. Pure; the tables are exported for the readme and tests. */
import { isCalendarDate } from '../../../domain/dates.ts';
import { classifyHazard } from '../../hazard-texts.ts';
import type { Identifier, RecallDraft } from '../../../domain/recall.ts';
import { classifyRemedy, isConcreteRemedy } from '../../../domain/remedy-rules.ts';
import type { HazardCategory, Remedy, Severity } from '../../../domain/taxonomy.ts';
import { extractLabelledIdentifiers, mergeIdentifiers } from '../../extract/labelled-identifiers.ts';
import { codeFieldIdentifiers } from '../../extract/field-codes.ts';
import { asList, labelText, type FoodAlert, type Labelled } from './schema.ts';

/** The three alert types the API serves. */
export type FsaAlertType = 'AA' | 'PRIN' | 'FAFA';

/**
 * The FSA grades no risk; the type says who acts. FAFA (local authorities must remove the food) is
 * `high`, not `serious`, which is kept for an agency's explicit top grade (FDA Class I); PRIN
 * (recall from consumers) and AA (allergy alert: the allergic only) are `medium`.
 */
export const SEVERITY_BY_TYPE: Readonly<Record<FsaAlertType, Severity>> = {
  FAFA: 'high',
  PRIN: 'medium',
  AA: 'medium',
};

function text(value: string | null | undefined): string | null {
  const t = (value ?? '').trim();
  return t === '' ? null : t;
}

function labels(value: Labelled | Labelled[] | null | undefined): string[] {
  return asList(value)
    .map(labelText)
    .filter((t): t is string => t !== null);
}

/** `AA`/`PRIN`/`FAFA` from the `type` URIs, else the notation's middle part. */
export function fsaAlertType(alert: Pick<FoodAlert, 'type' | 'notation'>): FsaAlertType | null {
  for (const uri of asList(alert.type)) {
    const last = uri
      .replace(/[/#]+$/, '')
      .split(/[/#]/)
      .pop()
      ?.toUpperCase();
    if (last === 'AA' || last === 'PRIN' || last === 'FAFA') return last;
  }
  const fromNotation = /^FSA-(AA|PRIN|FAFA)-/i.exec(alert.notation)?.[1]?.toUpperCase();
  return fromNotation === 'AA' || fromNotation === 'PRIN' || fromNotation === 'FAFA' ? fromNotation : null;
}

/** A date or date-time (`2026-02-16T21:14:53.556Z`) as `YYYY-MM-DD`, or null. */
export function fsaDate(value: string | null | undefined): string | null {
  const day = (value ?? '').trim().slice(0, 10);
  return isCalendarDate(day) ? day : null;
}

/** The consumer advice via the shared rules; without a concrete remedy, the action taken; else `other`. */
export function fsaRemedy(consumerAdvice: string | null, actionTaken: string | null): Remedy {
  const advice = classifyRemedy(consumerAdvice);
  if (isConcreteRemedy(advice)) return advice;
  const action = classifyRemedy(actionTaken);
  if (isConcreteRemedy(action)) return action;
  return advice === 'unknown' ? action : advice;
}

/** Allergy alerts are undeclared allergens by definition; others from the risk statements, else title. */
export function fsaHazard(
  type: FsaAlertType | null,
  riskStatement: string | null,
  title: string | null,
): HazardCategory | null {
  if (type === 'AA') return 'undeclared_allergen';
  return classifyHazard(riskStatement ?? title);
}

/** Batch/lot fields, labelled codes in batch prose, and labelled identifiers in the rest a person reads. */
function batchIdentifiers(alert: FoodAlert): Identifier[] {
  const found: Identifier[][] = [];
  const prose = [
    alert.title,
    alert.description,
    ...asList(alert.productDetails).flatMap((p) => [p.productName, p.packSizeDescription]),
  ];
  for (const t of prose)
    if (typeof t === 'string' && t.trim() !== '') found.push(extractLabelledIdentifiers(t));
  for (const product of asList(alert.productDetails)) {
    for (const batch of asList(product.batchDescription)) {
      if (typeof batch === 'string') {
        found.push(extractLabelledIdentifiers(batch, { kinds: ['batch', 'lot'] }));
        continue;
      }
      for (const code of asList(batch.batchCode)) found.push(codeFieldIdentifiers(code, 'batch').identifiers);
      for (const lot of asList(batch.lotNumber)) found.push(codeFieldIdentifiers(lot, 'lot').identifiers);
      const prose = text(batch.batchTextDescription);
      if (prose !== null) found.push(extractLabelledIdentifiers(prose, { kinds: ['batch', 'lot'] }));
    }
  }
  return mergeIdentifiers(...found);
}

/** Maps one food alert to a recall draft. */
export function normaliseFoodAlert(alert: FoodAlert): RecallDraft {
  const type = fsaAlertType(alert);
  const title = text(alert.title) ?? text(alert.shortTitle);
  const risk = asList(alert.problem)
    .map((p) => text(p.riskStatement))
    .filter((t): t is string => t !== null);
  const riskStatement = risk.length === 0 ? null : [...new Set(risk)].join(' ');
  const consumerAdvice = labels(alert.consumerAdvice).join(' ') || null;
  const actionTaken = labels(alert.actionTaken).join(' ') || null;
  const created = fsaDate(alert.created);

  return {
    recordId: alert.notation.trim(),
    title,
    summary: text(alert.description) ?? riskStatement,
    hazard: { category: fsaHazard(type, riskStatement, title), text: riskStatement },
    product: { category: 'food', brands: [], models: [] },
    severity: type === null ? 'unknown' : SEVERITY_BY_TYPE[type],
    source_classification: type,
    remedy: fsaRemedy(consumerAdvice, actionTaken),
    recall_date: created,
    published_date: created,
    // `country` names UK nations: all GB.
    countries: ['GB'],
    url: text(alert.alertURL),
    identifiers: batchIdentifiers(alert),
  };
}
