/** Project-written openFDA enforcement records for tests (never real recalls). */
export function fdaRecord(i: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const year = 2012 + (i % 12);
  const month = String((i % 12) + 1).padStart(2, '0');
  const day = String((i % 27) + 1).padStart(2, '0');
  return {
    recall_number: `F-${String(9000 + (i % 1000)).padStart(4, '0')}-${2090 + Math.floor(i / 1000)}`,
    event_id: String(900000 + i),
    status: 'Ongoing',
    classification: ['Class I', 'Class II', 'Class III'][i % 3],
    product_type: 'Food',
    recalling_firm: 'Test Fixture Foods (fictional)',
    address_1: '1 Test Way',
    address_2: '',
    city: 'Testville',
    state: 'ZZ',
    postal_code: '00000',
    country: 'United States',
    voluntary_mandated: 'Voluntary: Firm initiated',
    initial_firm_notification: 'Letter',
    distribution_pattern: 'Nationwide',
    product_description: `TEST DATA item ${i}, 12 oz. UPC 9520123456788`,
    product_quantity: '10 cases',
    reason_for_recall:
      i % 2 === 0 ? 'Product contains undeclared milk.' : 'Potential Listeria monocytogenes contamination.',
    recall_initiation_date: `${year}${month}01`,
    center_classification_date: `${year}${month}${day}`,
    report_date: `${year}${month}${day}`,
    termination_date: '',
    code_info: `Lot T${String(i).padStart(6, '0')}`,
    more_code_info: '',
    openfda: {},
    ...overrides,
  };
}

export function fdaPage(records: Record<string, unknown>[], lastUpdated = '2026-06-17'): string {
  return JSON.stringify({
    meta: {
      disclaimer: 'Test data written by the project.',
      terms: 'https://open.fda.gov/terms/',
      license: 'https://open.fda.gov/license/',
      last_updated: lastUpdated,
      results: { skip: 0, limit: records.length, total: records.length },
    },
    results: records,
  });
}
