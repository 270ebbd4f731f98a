/** FDA drug enforcement reports through openFDA (`/drug/enforcement.json`). */
import type { SourceAdapter, SourceMeta } from '../../source.ts';
import { createOpenFdaAdapter } from '../openfda/adapter.ts';

const meta: SourceMeta = {
  id: 'us-fda-drug',
  agency: 'U.S. Food and Drug Administration',
  jurisdiction: 'US',
  licence: {
    id: 'CC0-1.0',
    url: 'https://open.fda.gov/license/',
    attribution: 'Data from openFDA, U.S. Food and Drug Administration (public domain); not endorsed by FDA.',
  },
  homepage: 'https://open.fda.gov/apis/drug/enforcement/',
  cadence: 'Weekly, following the FDA Enforcement Report (Wednesdays)',
  cadenceHours: 168,
  defaultBaseUrl: 'https://api.fda.gov',
};

export const usFdaDrug: SourceAdapter = createOpenFdaAdapter(meta, 'drug');
