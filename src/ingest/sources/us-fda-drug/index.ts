/** FDA drug enforcement reports through openFDA (`/drug/enforcement.json`). */
import type { SourceAdapter } from '../../source.ts';
import { createOpenFdaAdapter } from '../openfda/adapter.ts';

export const usFdaDrug: SourceAdapter = createOpenFdaAdapter('us-fda-drug', 'drug');
