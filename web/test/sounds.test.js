// Move sounds (sounds.js): which sound a move makes.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { moveSound, soundOn } from '../js/sounds.js';

test('a move sounds by what it does: check first, then capture', () => {
  assert.equal(moveSound('e4'), 'move');
  assert.equal(moveSound('Nxe5'), 'capture');
  assert.equal(moveSound('Qxf7#'), 'check');
  assert.equal(moveSound('Bb5+'), 'check');
  assert.equal(moveSound('O-O'), 'move');
});

test('sounds are off unless turned on', () => {
  assert.equal(soundOn(), false);
});
