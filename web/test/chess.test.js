// The display-only chess helpers of chess.js: squares, FEN placement, applying known-legal UCI
// moves (castling both ways, en passant, promotion), check and result texts, numbered lines.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  applyUci, colorOf, kingSquare, moveSquares, numberedLine, parseFen, resultText, sanChecks,
  squareIndex, squareName, START_FEN,
} from '../js/chess.js';

/** The board after playing `moves` (UCI) from `fen`. */
function play(fen, moves) {
  let board = parseFen(fen).board;
  for (const m of moves) board = applyUci(board, m);
  return board;
}

/** The piece on a named square. */
const at = (board, name) => board[squareIndex(name)];

test('square names and indexes go both ways', () => {
  assert.equal(squareIndex('a1'), 0);
  assert.equal(squareIndex('h1'), 7);
  assert.equal(squareIndex('e4'), 28);
  assert.equal(squareIndex('h8'), 63);
  for (const bad of ['i1', 'a9', 'a0', 'e', 'e44', '', null]) assert.equal(squareIndex(bad), -1, String(bad));
  for (let i = 0; i < 64; i++) assert.equal(squareIndex(squareName(i)), i);
  assert.equal(squareName(36), 'e5');
});

test('the starting FEN puts every piece on its square', () => {
  const { board, turn, fullmove } = parseFen(START_FEN);
  assert.equal(turn, 'w');
  assert.equal(fullmove, 1);
  assert.equal(board.filter(Boolean).length, 32);
  assert.equal(at(board, 'e1'), 'K');
  assert.equal(at(board, 'd8'), 'q');
  assert.equal(at(board, 'a2'), 'P');
  assert.equal(at(board, 'h7'), 'p');
  assert.equal(at(board, 'e4'), null);
  assert.equal(board.join(','), play(START_FEN, []).join(','));
});

test('a FEN gives the side to move and the move number', () => {
  const p = parseFen('8/8/8/8/8/8/8/4K2k b - - 3 41');
  assert.equal(p.turn, 'b');
  assert.equal(p.fullmove, 41);
  assert.equal(kingSquare(p.board, 'w'), squareIndex('e1'));
  assert.equal(kingSquare(p.board, 'b'), squareIndex('h1'));
  // A bare placement is White to move at move 1.
  assert.deepEqual([parseFen('8/8/8/8/8/8/8/8').turn, parseFen('8/8/8/8/8/8/8/8').fullmove], ['w', 1]);
});

test('a malformed FEN is refused with the reason', () => {
  assert.throws(() => parseFen('8/8/8'), /8 ranks/);
  assert.throws(() => parseFen('9/8/8/8/8/8/8/8 w - - 0 1'), /unexpected '9'|8 squares/);
  assert.throws(() => parseFen('ppppppppp/8/8/8/8/8/8/8 w - - 0 1'), /too long/);
  assert.throws(() => parseFen('7/8/8/8/8/8/8/8 w - - 0 1'), /8 squares/);
  assert.throws(() => parseFen('x7/8/8/8/8/8/8/8 w - - 0 1'), /unexpected 'x'/);
  assert.throws(() => parseFen(''), /8 ranks/);
});

test('piece colours', () => {
  assert.equal(colorOf('K'), 'w');
  assert.equal(colorOf('p'), 'b');
});

test('a plain move and a capture move one piece', () => {
  const board = play(START_FEN, ['e2e4', 'd7d5', 'e4d5']);
  assert.equal(at(board, 'e2'), null);
  assert.equal(at(board, 'd5'), 'P');
  assert.equal(board.filter(Boolean).length, 31);
  // The board given is not changed.
  const start = parseFen(START_FEN).board;
  applyUci(start, 'e2e4');
  assert.equal(at(start, 'e2'), 'P');
});

test('castling as the king moving two files moves the rook too', () => {
  const fen = 'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1';
  const short = play(fen, ['e1g1']);
  assert.deepEqual(['e1', 'f1', 'g1', 'h1'].map((s) => at(short, s)), [null, 'R', 'K', null]);
  const long = play(fen, ['e1c1', 'e8c8']);
  assert.deepEqual(['a1', 'b1', 'c1', 'd1', 'e1'].map((s) => at(long, s)), [null, null, 'K', 'R', null]);
  assert.deepEqual(['a8', 'c8', 'd8', 'e8'].map((s) => at(long, s)), [null, 'k', 'r', null]);
});

test('castling as king takes own rook (Chess960 notation)', () => {
  const board = play('r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1', ['e1h1', 'e8a8']);
  assert.deepEqual(['e1', 'f1', 'g1', 'h1'].map((s) => at(board, s)), [null, 'R', 'K', null]);
  assert.deepEqual(['a8', 'c8', 'd8', 'e8'].map((s) => at(board, s)), [null, 'k', 'r', null]);
});

test('en passant removes the pawn passed', () => {
  const board = play(START_FEN, ['e2e4', 'a7a6', 'e4e5', 'd7d5', 'e5d6']);
  assert.equal(at(board, 'd6'), 'P');
  assert.equal(at(board, 'd5'), null);
  assert.equal(at(board, 'e5'), null);
  assert.equal(board.filter((p) => p === 'p').length, 7);
});

test('promotion puts the chosen piece in the mover\'s colour', () => {
  const white = play('8/P7/8/8/8/8/p7/K6k w - - 0 1', ['a7a8q', 'a2a1n']);
  assert.equal(at(white, 'a8'), 'Q');
  assert.equal(at(white, 'a1'), 'n');
  assert.equal(at(white, 'a7'), null);
});

test('a move from an empty square changes nothing', () => {
  const start = parseFen(START_FEN).board;
  assert.deepEqual(applyUci(start, 'e4e5'), start);
});

test('move squares, checks', () => {
  assert.deepEqual(moveSquares('g1f3'), [6, 21]);
  assert.equal(sanChecks('Qxf7#'), true);
  assert.equal(sanChecks('Bb5+'), true);
  assert.equal(sanChecks('e4'), false);
  assert.equal(sanChecks(undefined), false);
});

test('results name the winner and the reason once', () => {
  assert.equal(resultText({ result: 'ongoing' }), null);
  assert.equal(resultText(null), null);
  assert.deepEqual(resultText({ result: 'white_wins', reason: 'checkmate' }),
    { score: '1–0', title: 'White wins', detail: 'by checkmate', sentence: 'White wins by checkmate' });
  assert.equal(resultText({ result: 'black_wins', reason: 'timeout' }).sentence, 'Black wins on time');
  assert.equal(resultText({ result: 'draw', reason: 'timeout' }).detail, 'on time, with no mating material left');
  const draw = resultText({ result: 'draw', reason: 'threefold_repetition' });
  assert.equal(draw.score, '½–½');
  assert.equal(draw.sentence, 'Draw by threefold repetition');
  assert.equal(resultText({ result: 'black_wins', reason: 'resignation', note: 'white left' }).detail, 'by resignation (white left)');
});

test('numbered lines start at the right move for either side', () => {
  assert.equal(numberedLine(['e4', 'e5', 'Nf3']), '1. e4 e5 2. Nf3');
  assert.equal(numberedLine(['Nc6', 'Bb5', 'a6'], 'b', 2), '2… Nc6 3. Bb5 a6');
  assert.equal(numberedLine([], 'w', 5), '');
});
