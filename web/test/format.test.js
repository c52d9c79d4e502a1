// The number and time formats of format.js, as the clocks and the job pages show them.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { describeTimeControl, formatClock, formatDuration, formatInt, formatRate, formatSearchProgress } from '../js/format.js';

test('clocks: tenths under ten seconds, hours when needed, never negative', () => {
  assert.equal(formatClock(5 * 60_000), '5:00');
  assert.equal(formatClock(303_000), '5:03');
  assert.equal(formatClock(59_999), '0:59');
  assert.equal(formatClock(10_000), '0:10');
  assert.equal(formatClock(9_450), '0:09.4');
  assert.equal(formatClock(0), '0:00.0');
  assert.equal(formatClock(-1500), '0:00.0');
  assert.equal(formatClock(3_723_000), '1:02:03');
});

test('integers with thousands separators, a dash for no number', () => {
  assert.equal(formatInt(197281), '197,281');
  assert.equal(formatInt(119060324.4), '119,060,324');
  assert.equal(formatInt(0), '0');
  assert.equal(formatInt(NaN), '–');
  assert.equal(formatInt(undefined), '–');
  assert.equal(formatInt('12'), '–');
});

test('a running search: positions and their rate, nothing before the first count', () => {
  assert.equal(formatSearchProgress({ nodes: 0, nps: 0 }), '');
  assert.equal(formatSearchProgress({}), '');
  assert.equal(formatSearchProgress({ nodes: 1_234_567, nps: 2_468_000 }), '1,234,567 positions · 2.5 M positions/s');
  assert.equal(formatSearchProgress({ nodes: 2048 }), '2,048 positions');
});

test('rates in k, M and G', () => {
  assert.equal(formatRate(950), '950');
  assert.equal(formatRate(12_345), '12.3 k');
  assert.equal(formatRate(12_345_678), '12.3 M');
  assert.equal(formatRate(2_500_000_000), '2.50 G');
  assert.equal(formatRate(Infinity), '–');
});

test('durations from milliseconds to minutes', () => {
  assert.equal(formatDuration(1.234), '1.23 ms');
  assert.equal(formatDuration(850), '850 ms');
  assert.equal(formatDuration(3_210), '3.2 s');
  assert.equal(formatDuration(125_000), '2 min 5 s');
  assert.equal(formatDuration(null), '–');
});

test('time controls: lichess\'s classes from initial + 40 × increment', () => {
  assert.equal(describeTimeControl(null), 'Untimed');
  assert.equal(describeTimeControl({ initial_ms: 60_000, increment_ms: 0 }), '1 + 0 · Bullet');
  assert.equal(describeTimeControl({ initial_ms: 120_000, increment_ms: 1000 }), '2 + 1 · Bullet');
  assert.equal(describeTimeControl({ initial_ms: 180_000, increment_ms: 0 }), '3 + 0 · Blitz');
  assert.equal(describeTimeControl({ initial_ms: 180_000, increment_ms: 2000 }), '3 + 2 · Blitz');
  assert.equal(describeTimeControl({ initial_ms: 600_000, increment_ms: 0 }), '10 + 0 · Rapid');
  assert.equal(describeTimeControl({ initial_ms: 900_000, increment_ms: 10_000 }), '15 + 10 · Rapid');
  assert.equal(describeTimeControl({ initial_ms: 1_800_000, increment_ms: 0 }), '30 + 0 · Classical');
  assert.equal(describeTimeControl({ initial_ms: 30_000, increment_ms: 0 }), '30s + 0 · Bullet');
});
