/** FDA medical device enforcement reports through openFDA (`/device/enforcement.json`). */
import type { SourceAdapter } from '../../source.ts';
import { createOpenFdaAdapter } from '../openfda/adapter.ts';

export const usFdaDevice: SourceAdapter = createOpenFdaAdapter('us-fda-device', 'device');
