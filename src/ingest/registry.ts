/** Every source, one line each: a new one is a folder under sources/ and a line here (a test checks). */
import type { SourceAdapter } from './source.ts';
import { auAccc } from './sources/au-accc/index.ts';
import { caHc } from './sources/ca-hc/index.ts';
import { euSafetyGate } from './sources/eu-safety-gate/index.ts';
import { frRappelConso } from './sources/fr-rappelconso/index.ts';
import { ukFsa } from './sources/uk-fsa/index.ts';
import { usCpsc } from './sources/us-cpsc/index.ts';
import { usFdaDevice } from './sources/us-fda-device/index.ts';
import { usFdaDrug } from './sources/us-fda-drug/index.ts';
import { usFdaFood } from './sources/us-fda-food/index.ts';
import { usFsis } from './sources/us-fsis/index.ts';
import { usNhtsa } from './sources/us-nhtsa/index.ts';

export const SOURCE_ADAPTERS: readonly SourceAdapter[] = [
  auAccc,
  caHc,
  euSafetyGate,
  frRappelConso,
  ukFsa,
  usCpsc,
  usFdaDevice,
  usFdaDrug,
  usFdaFood,
  usFsis,
  usNhtsa,
];

export const SOURCE_IDS: readonly string[] = SOURCE_ADAPTERS.map((a) => a.meta.id);
