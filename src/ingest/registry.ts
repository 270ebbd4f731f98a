/**
 * Every source the service knows, one line each. Adding a source is a folder under sources/
 * and a line here; a test keeps this list and the folders in step.
 */
import type { SourceAdapter } from './source.ts';
import { usCpsc } from './sources/us-cpsc/index.ts';
import { usFdaFood } from './sources/us-fda-food/index.ts';

export const SOURCE_ADAPTERS: readonly SourceAdapter[] = [usCpsc, usFdaFood];

export const SOURCE_IDS: readonly string[] = SOURCE_ADAPTERS.map((a) => a.meta.id);
