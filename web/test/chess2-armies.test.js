// The Chess 2 armies' special pieces (chess2-armies.js): which pieces the board marks.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ARMY_PIECES, armyBadge } from '../js/chess2-armies.js';

test('each side\'s pieces are marked by its own army', () => {
  const armies = { white: 'r', black: 'a' };
  assert.equal(armyBadge(armies, 'Q'), 'R'); // White's Reaper
  assert.equal(armyBadge(armies, 'R'), 'G'); // White's Ghosts
  assert.equal(armyBadge(armies, 'N'), null); // a plain knight
  assert.equal(armyBadge(armies, 'q'), 'J'); // Black's Jungle Queen
  assert.equal(armyBadge(armies, 'n'), 'H');
  assert.equal(armyBadge(armies, 'b'), 'T');
  assert.equal(armyBadge(armies, 'r'), 'E');
  assert.equal(armyBadge(armies, 'p'), null);
  assert.equal(armyBadge({ white: 'k', black: 'c' }, 'K'), 'W');
  assert.equal(armyBadge({ white: 'k', black: 'c' }, 'k'), null);
  assert.equal(armyBadge(null, 'Q'), null);
});

test('every army but Classic has its pieces described', () => {
  for (const army of ['n', 'e', 'r', 'k', 'a']) assert.ok(ARMY_PIECES[army].length > 0, army);
  assert.deepEqual(ARMY_PIECES.c, []);
});
