// The analysis panel's pure parts (analysis-logic.js): the engine offered first, scores from
// White's side, numbered lines, frames about another position, the engine's line limit.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { aboutPosition, analysisStateName, fewerLines, pickEngine, pvText, scoreText, whiteScore } from '../js/analysis-logic.js';
import { applyUci, parseFen, START_FEN } from '../js/chess.js';

const engines = [
  { name: 'builtin', kind: 'builtin', default: true },
  { name: 'phalanx' },
  { name: 'Stockfish-16' },
  { name: 'sf' },
];

test('the engine offered first: the saved one, else Stockfish, else the default', () => {
  assert.equal(pickEngine(engines, 'phalanx'), 'phalanx');
  assert.equal(pickEngine(engines, null), 'Stockfish-16');
  assert.equal(pickEngine(engines, 'gone'), 'Stockfish-16');
  assert.equal(pickEngine([{ name: 'builtin', default: true }, { name: 'sf' }], null), 'sf');
  assert.equal(pickEngine([{ name: 'stockfish' }, { name: 'stockfish-dev' }], null), 'stockfish');
  assert.equal(pickEngine([{ name: 'a' }, { name: 'b', default: true }], null), 'b');
  assert.equal(pickEngine([{ name: 'a' }, { name: 'b' }], null), 'a');
  assert.equal(pickEngine([], 'x'), null);
});

test('scores are from White\'s side', () => {
  // The server's own white_score wins.
  assert.deepEqual(whiteScore({ white_score: { cp: -40 }, score: { cp: 40 } }, 'b'), { cp: -40 });
  // A UCI score is from the side to move: turned round when Black is to move.
  assert.deepEqual(whiteScore({ score: { cp: 35 } }, 'w'), { cp: 35 });
  assert.deepEqual(whiteScore({ score: { cp: 35 } }, 'b'), { cp: -35 });
  assert.deepEqual(whiteScore({ score: { mate: 2 } }, 'b'), { mate: -2 });
  // A frame that says whose view it is (pov) is read by that.
  assert.deepEqual(whiteScore({ score: { cp: 10 }, pov: 'black' }, 'w'), { cp: -10 });
  assert.deepEqual(whiteScore({}, 'w'), {});
});

test('score texts', () => {
  assert.equal(scoreText({ cp: 35 }), '+0.35');
  assert.equal(scoreText({ cp: -120 }), '-1.20');
  assert.equal(scoreText({ cp: 0 }), '0.00');
  assert.equal(scoreText({ mate: 3 }), '#3');
  assert.equal(scoreText({ mate: -2 }), '-#2');
  assert.equal(scoreText({}), '…');
});

test('lines are numbered from the position analysed, at most 12 moves', () => {
  const start = { turn: 'w', fullmove: 1 };
  assert.equal(pvText({ pv_san: ['Nc6', 'Bb5', 'a6'] }, start, 3), '2… Nc6 3. Bb5 a6');
  assert.equal(pvText({ pv_san: [], pv_uci: ['e2e4', 'e7e5'] }, start, 0), '1. e2e4 e7e5');
  const long = pvText({ pv_san: Array.from({ length: 20 }, (_, i) => `m${i}`) }, start, 0);
  assert.equal(long.split(' ').filter((w) => w.startsWith('m')).length, 12);
  assert.equal(pvText({}, start, 0), '');
});

test('a frame about another position is told apart', () => {
  const board = applyUci(parseFen(START_FEN).board, 'e2e4'); // Black to move
  assert.equal(aboutPosition({ pv_uci: ['e7e5'], pv_san: ['e5'] }, board, 'b'), true);
  // The first move's piece is White's: a frame of the search before e4.
  assert.equal(aboutPosition({ pv_uci: ['d2d4'], pv_san: ['d4'] }, board, 'b'), false);
  // An empty square, a point of view that does not match, no legal SAN.
  assert.equal(aboutPosition({ pv_uci: ['e6e5'] }, board, 'b'), false);
  assert.equal(aboutPosition({ pov: 'white', pv_uci: ['e7e5'] }, board, 'b'), false);
  assert.equal(aboutPosition({ pv_uci: ['e7e5'], pv_san: [] }, board, 'b'), false);
  // No line yet (a bare info frame): kept.
  assert.equal(aboutPosition({ nodes: 10 }, board, 'b'), true);
});

test('the engine\'s line limit is read from its refusal', () => {
  const refusal = { code: 'engine_unsupported', message: 'multipv must be 1 to 2 for this engine' };
  assert.equal(fewerLines(refusal, 3), 2);
  assert.equal(fewerLines(refusal, 2), null);
  assert.equal(fewerLines({ code: 'game_over', message: 'multipv must be 1 to 2' }, 3), null);
  assert.equal(fewerLines({ code: 'invalid_request', message: 'unknown field engine' }, 3), null);
});

test('the panel\'s state names', () => {
  assert.equal(analysisStateName({ on: true, starting: true, done: false }), 'starting');
  assert.equal(analysisStateName({ on: true, done: false }), 'on');
  assert.equal(analysisStateName({ on: false, done: true }), 'done');
  assert.equal(analysisStateName({ on: false, done: false }), 'off');
});
