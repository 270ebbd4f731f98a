/** FDA food enforcement reports through openFDA (`/food/enforcement.json`). */
import type { SourceAdapter } from '../../source.ts';
import { createOpenFdaAdapter } from '../openfda/adapter.ts';

export const usFdaFood: SourceAdapter = createOpenFdaAdapter('us-fda-food', 'food');
