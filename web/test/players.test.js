// Players in the page (players.js): how a game's players are named in its bars.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { displayName, seatLine } from '../js/players.js';

test('a seat shows its player\'s name and rating at the start, or Anonymous', () => {
  const players = { white: { id: 'a', name: 'Alice', rating: 1662.4 }, black: { id: 'b', name: null, rating: null }, rated: true };
  assert.equal(seatLine(players, 'white'), 'Alice (1662)');
  assert.equal(seatLine(players, 'black'), 'Anonymous');
  assert.equal(seatLine(undefined, 'white'), null);
  assert.equal(displayName(null), 'Anonymous');
});
