// Chess 2 moves in words (chess2-notation.js) and the numbered move list.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseFen } from '../js/chess.js';
import { chess2MoveText, chess2Rows } from '../js/chess2-notation.js';

const START = parseFen('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1').board;

test('moves read as long algebraic with the piece', () => {
  assert.equal(chess2MoveText(START, 'e2e4'), 'e2–e4');
  assert.equal(chess2MoveText(START, 'b8c6'), 'Nb8–c6');
  const scholar = parseFen('r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 2 4').board;
  assert.equal(chess2MoveText(scholar, 'h5f7'), 'Qh5×f7');
  assert.equal(chess2MoveText(scholar, 'h5f7:12'), 'Qh5×f7 ⚔ 1–2');
  assert.equal(chess2MoveText(scholar, 'h5f7:00+'), 'Qh5×f7 ⚔ 0–0 +1');
  assert.equal(chess2MoveText(scholar, 'h5f7:1'), 'Qh5×f7 ⚔ 1–?');
  // A trailing declined duel says nothing; one before a fought duel is told.
  assert.equal(chess2MoveText(scholar, 'h5f7:'), 'Qh5×f7');
  assert.equal(chess2MoveText(scholar, 'c6c8::22'), 'Nc6–c8 ⚔ declined ⚔ 2–2');
  const promo = parseFen('8/4P3/8/8/8/8/8/K6k w - - 0 1').board;
  assert.equal(chess2MoveText(promo, 'e7e8Q'), 'e7–e8=Q');
  assert.equal(chess2MoveText(START, 'd1d1'), 'Whirlwind d1');
  assert.equal(chess2MoveText(START, '0000'), 'pass');
});

test('the list is numbered by turn, a king turn in the same row', () => {
  const rows = chess2Rows([
    { text: 'e2–e4', by: 'white' },
    { text: 'e7–e5', by: 'black' },
    { text: 'Ng1–f3', by: 'white' },
    { text: 'Ke8–e7', by: 'black' },
    { text: 'pass', by: 'black' },
    { text: 'd2–d4', by: 'white' },
  ]);
  assert.deepEqual(rows.map((r) => [r.number, r.white.map((e) => e.text), r.black.map((e) => e.ply)]), [
    [1, ['e2–e4'], [2]],
    [2, ['Ng1–f3'], [4, 5]],
    [3, ['d2–d4'], []],
  ]);
  // A game starting with Black to move numbers from its position.
  assert.deepEqual(chess2Rows([{ text: 'e7–e5', by: 'black' }, { text: 'd2–d4', by: 'white' }], 7).map((r) => r.number), [7, 8]);
});
