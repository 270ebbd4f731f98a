/** The tests' reader of `/metrics` reads what Prometheus reads, and refuses what it refuses. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseExposition } from '../support/prometheus.ts';

const family = (value: string) => `# TYPE lag gauge\nlag ${value}\n`;

test('NaN and Inf in any case, as prom-client writes an empty mean (Nan) and Go parses it', () => {
  assert.ok(Number.isNaN(parseExposition(family('Nan')).value('lag')));
  assert.ok(Number.isNaN(parseExposition(family('NaN')).value('lag')));
  assert.equal(parseExposition(family('+Inf')).value('lag'), Infinity);
  assert.equal(parseExposition(family('-Inf')).value('lag'), -Infinity);
  assert.equal(parseExposition(family('1.5e-3')).value('lag'), 0.0015);
});

test('anything else that is not a number is refused, naming the line', () => {
  for (const bad of ['Nana', 'in', '0x', '1,5']) {
    assert.throws(() => parseExposition(family(bad)), { message: `not a number in: lag ${bad}` });
  }
});
