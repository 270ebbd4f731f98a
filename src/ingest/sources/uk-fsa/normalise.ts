/**
 * One FSA food alert → one RecallDraft. Pure: no I/O, no clock. The mapping tables are
 * exported so the readme and the tests name the same values.
 */
import { isCalendarDate } from '../../../domain/dates.ts';
import { classifyHazard } from '../../../domain/hazard-rules.ts';
import type { Identifier, RecallDraft } from '../../../domain/recall.ts';
import { classifyRemedy, isConcreteRemedy } from '../../../domain/remedy-rules.ts';
import type { HazardCategory, Remedy, Severity } from '../../../domain/taxonomy.ts';
import { extractLabelledIdentifiers, mergeIdentifiers } from '../../extract/labelled-identifiers.ts';
import { codeFieldIdentifiers } from '../../extract/field-codes.ts';
import { asList, labelText, type FoodAlert, type Labelled } from './schema.ts';

/** The three alert types the API serves. */
export type FsaAlertType = 'AA' | 'PRIN' | 'FAFA';

/**
 * Severity by alert type. The FSA grades no risk level; the type says who must act:
 * - FAFA (Food Alert for Action): the most serious type, local authorities must act to remove
 *   the food from the chain → `high` (not `serious`, which is kept for an agency's own
 *   explicit top risk grade, such as FDA Class I or Safety Gate "Serious risk");
 * - PRIN (Product Recall Information Notice): a recall from consumers, no enforcement action
 *   needed → `medium`;
 * - AA (Allergy Alert): a risk to people with the named allergy only → `medium`.
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

/** The alert type: the `AA`/`PRIN`/`FAFA` among the `type` URIs, else the notation's middle part. */
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

/** An API date or date-time (`2026-02-16`, `2026-02-16T21:14:53.556Z`) as `YYYY-MM-DD`, or null. */
export function fsaDate(value: string | null | undefined): string | null {
  const day = (value ?? '').trim().slice(0, 10);
  return isCalendarDate(day) ? day : null;
}

/**
 * The remedy: what the consumer advice tells people to do, through the shared rule table; when
 * it names no concrete remedy, what the action taken names; any wording that names none is `other`.
 */
export function fsaRemedy(consumerAdvice: string | null, actionTaken: string | null): Remedy {
  const advice = classifyRemedy(consumerAdvice);
  if (isConcreteRemedy(advice)) return advice;
  const action = classifyRemedy(actionTaken);
  if (isConcreteRemedy(action)) return action;
  return advice === 'unknown' ? action : advice;
}

/**
 * Allergy alerts are undeclared allergens by definition; other alerts are classified from
 * their risk statements, or from the title when there is none.
 */
export function fsaHazard(
  type: FsaAlertType | null,
  riskStatement: string | null,
  title: string | null,
): HazardCategory | null {
  if (type === 'AA') return 'undeclared_allergen';
  return classifyHazard(riskStatement ?? title);
}

/**
 * Batch codes (`batch`) and lot numbers (`lot`) from their dedicated fields, labelled codes in
 * batch prose, and labelled identifiers in the rest a person reads of the alert: its title and
 * description, and each product's name and pack size ("… 500g, barcode 5012345678900").
 */
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
    // The alert's `country` names UK nations (England, Wales, Northern Ireland, Scotland): all GB.
    countries: ['GB'],
    url: text(alert.alertURL),
    identifiers: batchIdentifiers(alert),
  };
}
