// The game page's in-game rules that need no DOM: which seat has a move to take back, and the
// in-game state an older server's view lacks.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { hasOwnMove, inGame } from '../js/game-state.js';
import { resultText } from '../js/chess.js';

test('a seat has a move to take back once it has moved', () => {
  const white = { turn: 'w', fullmove: 1 };
  assert.equal(hasOwnMove(white, 0, 'white'), false);
  assert.equal(hasOwnMove(white, 1, 'white'), true);
  assert.equal(hasOwnMove(white, 1, 'black'), false);
  assert.equal(hasOwnMove(white, 2, 'black'), true);
  const black = { turn: 'b', fullmove: 1 };
  assert.equal(hasOwnMove(black, 1, 'black'), true);
  assert.equal(hasOwnMove(black, 1, 'white'), false);
});

test('a view without in_game gets one with nothing allowed', () => {
  const g = /** @type {any} */ ({ version: 1 });
  assert.deepEqual(inGame(g), { abortable: false, takebacks: false, takeback_offer: null, rematch_offer: null, rematch: null, chat: false });
  assert.equal(inGame(g), g.in_game);
});

test('an aborted game reads as aborted', () => {
  assert.equal(resultText({ result: 'aborted' })?.sentence, 'Game aborted');
});
