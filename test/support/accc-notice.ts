/**
 * A fictional ACCC notice page in the markup of the real ones (../shared/upstream-samples/_reference/
 * accc-notice-page-*-fields.html): TEST DATA products, PRA numbers 2026/99xxx, GS1 restricted-circulation
 * barcodes (20–29).
 */

/** The parts of a fictional notice that tests vary. */
export interface FictionalNotice {
  pra?: string;
  brand?: string;
  model?: string;
  other?: string;
  hazards?: string;
}

const block = (name: string, label: string, items: string[]) =>
  `<div class="field field--name-field-${name} field--type-string field--label-inline clearfix">
    <h3 class="field__label">${label}</h3>
${items.map((i) => `              <div class="field__item">${i}</div>`).join('\n')}
          </div>`;

/** The page's HTML. */
export function fictionalNotice(n: FictionalNotice = {}): string {
  return `<!DOCTYPE html><html><head><title>TEST DATA notice | ACCC Product Safety</title></head><body>
${block('psa-recall-published-date', 'Recall published', ['<time datetime="2026-09-01T12:00:00Z" class="datetime">1 September 2026</time>'])}
${n.pra === undefined ? '' : block('psa-recall-pra-number', 'PRA number', [n.pra])}
${block('psa-recall-product-desc', 'Product description', ['<p>TEST DATA. A fictional product.</p>'])}
${n.model === undefined ? '' : block('psa-recall-model', 'Model', [n.model])}
${n.brand === undefined ? '' : block('psa-recall-brand', 'Brand', [n.brand])}
${block('psa-recall-hazards', 'The hazards to consumers', [`<p>${n.hazards ?? 'TEST DATA. Risk of injury from a fall.'}</p>`])}
${block('psa-recall-consumer-action', 'What consumers should do', ['<ol><li>Stop using it and return it for a refund.</li></ol><h3>Contact</h3><p>TEST DATA supplier<br />Email: <a href="mailto:recalls@example.invalid">recalls@example.invalid</a><br />Call: 1800 000 000</p>'])}
<div class="field"><h3>Identifying numbers</h3>${n.other === undefined ? '' : block('psa-recall-other-identify', 'Other identifying numbers', [n.other])}</div>
</body></html>`;
}
