// The game page's state helpers (game-state.js) and its clocks' arithmetic (game-clock.js):
// turns, the position shown, material, the move list's rows, names on the bars, position texts.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { applyUci, parseFen, START_FEN } from '../js/chess.js';
import { clockMs } from '../js/game-clock.js';
import {
  createGameState, defaultOrientation, isPlayer, isUciText, material, materialEdge, moveNumberAt, moveRows,
  myTurn, ongoing, playerName, positionText, sideToMoveAt, viewPly,
} from '../js/game-state.js';

/** A state with `sans`/`ucis` played from the start, as the controller loads it. */
function loaded(role, ucis, sans, { result = 'ongoing', reason, fen = START_FEN } = {}) {
  const st = createGameState(null, role === 'spectator' ? null : 'secret');
  st.role = role;
  st.start = parseFen(fen);
  st.moves = ucis.map((uci, i) => ({ uci, san: sans[i] }));
  st.boards = [st.start.board];
  for (const m of st.moves) st.boards.push(applyUci(st.boards[st.boards.length - 1], m.uci));
  const black = (ucis.length % 2 === 1) === (st.start.turn === 'w');
  st.game = {
    version: ucis.length, start_fen: fen, fen, turn: black ? 'black' : 'white', check: false,
    status: { result, reason }, moves: st.moves,
  };
  return st;
}

test('a new state: a spectator without a seat, an engine opponent from what was remembered', () => {
  const spectator = createGameState(null, null);
  assert.equal(spectator.role, 'spectator');
  assert.equal(spectator.view, null);
  assert.equal(spectator.analysis.on, false);
  assert.equal(spectator.enginePlays, null);
  const seat = createGameState({ secret: 's', color: 'white', opponent: { engine: 'stockfish' } }, 's');
  assert.equal(seat.role, null); // until the socket's hello says
  assert.equal(seat.engine, 'stockfish');
  assert.equal(seat.enginePlays, 'black');
  assert.equal(seat.opponentName, 'stockfish');
});

test('whose turn it is, and whether the game goes on', () => {
  const st = loaded('black', ['e2e4'], ['e4']);
  assert.equal(isPlayer(st), true);
  assert.equal(ongoing(st), true);
  assert.equal(myTurn(st), true);
  st.role = 'white';
  assert.equal(myTurn(st), false);
  st.role = 'spectator';
  assert.equal(isPlayer(st), false);
  assert.equal(myTurn(st), false);
  st.role = 'black';
  st.stopped = 'shutdown';
  assert.equal(ongoing(st), false);
  assert.equal(myTurn(st), false);
  const over = loaded('white', ['f2f3', 'e7e5', 'g2g4', 'd8h4'], ['f3', 'e5', 'g4', 'Qh4#'], { result: 'black_wins', reason: 'checkmate' });
  assert.equal(ongoing(over), false);
  assert.equal(ongoing(createGameState(null, null)), false);
});

test('the position shown and the board\'s default side', () => {
  const st = loaded('black', ['e2e4', 'e7e5', 'g1f3'], ['e4', 'e5', 'Nf3']);
  assert.equal(viewPly(st), 3);
  st.view = 1;
  assert.equal(viewPly(st), 1);
  assert.equal(defaultOrientation(st), 'black');
  st.role = 'spectator';
  assert.equal(defaultOrientation(st), 'white');
});

test('side to move and move numbers from either side\'s start', () => {
  assert.deepEqual([0, 1, 2, 3].map((p) => sideToMoveAt('w', p)), ['w', 'b', 'w', 'b']);
  assert.deepEqual([0, 1, 2].map((p) => sideToMoveAt('b', p)), ['b', 'w', 'b']);
  const white = { turn: 'w', fullmove: 1 };
  assert.deepEqual([0, 1, 2, 3].map((p) => moveNumberAt(white, p)), [1, 1, 2, 2]);
  const black = { turn: 'b', fullmove: 20 };
  assert.deepEqual([0, 1, 2].map((p) => moveNumberAt(black, p)), [20, 21, 21]);
});

test('typed moves: UCI or SAN', () => {
  for (const uci of ['e2e4', 'e7e8q', 'a7a8n']) assert.equal(isUciText(uci), true, uci);
  for (const san of ['e4', 'Nf3', 'O-O', 'e8=Q', 'e7e8k', 'E2E4']) assert.equal(isUciText(san), false, san);
});

test('material: counts, score and the edge each side shows', () => {
  const start = parseFen(START_FEN).board;
  assert.equal(material(start).score, 0);
  assert.equal(material(start).count.w.p, 8);
  assert.deepEqual(materialEdge(start, 'white'), { pieces: [], lead: 0 });
  // White took a knight and two pawns, Black a pawn.
  const board = parseFen('r1bqkbnr/ppp2ppp/8/3P4/8/8/PPP2PPP/RNBQKBNR b KQkq - 0 4').board;
  assert.equal(material(board).score, 4);
  assert.equal(material(board).count.b.n, 1);
  assert.deepEqual(materialEdge(board, 'white'), { pieces: ['n', 'p'], lead: 4 });
  assert.deepEqual(materialEdge(board, 'black'), { pieces: [], lead: -4 });
  // A queen against a rook: White shows Black's missing queen's worth as its pieces up.
  const odd = parseFen('4k3/8/8/8/8/8/8/Q3K3 w - - 0 1').board;
  assert.deepEqual(materialEdge(odd, 'white'), { pieces: ['q'], lead: 9 });
});

test('move rows: numbers, and "…" when Black moved first', () => {
  const moves = ['e4', 'e5', 'Nf3'].map((san) => ({ uci: '', san }));
  assert.deepEqual(moveRows(moves, { turn: 'w', fullmove: 1 }), [
    { number: 1, gap: false, moves: [{ ply: 1, san: 'e4' }, { ply: 2, san: 'e5' }] },
    { number: 2, gap: false, moves: [{ ply: 3, san: 'Nf3' }] },
  ]);
  assert.deepEqual(moveRows(moves, { turn: 'b', fullmove: 7 }), [
    { number: 7, gap: true, moves: [{ ply: 1, san: 'e4' }] },
    { number: 8, gap: false, moves: [{ ply: 2, san: 'e5' }, { ply: 3, san: 'Nf3' }] },
  ]);
  assert.deepEqual(moveRows([], { turn: 'w', fullmove: 1 }), []);
});

test('names on the bars', () => {
  const st = createGameState(null, 'x');
  st.role = 'white';
  assert.equal(playerName(st, 'white'), 'You');
  assert.equal(playerName(st, 'black'), 'Black');
  st.enginePlays = 'black';
  st.opponentName = 'stockfish';
  assert.equal(playerName(st, 'black'), 'Computer · stockfish');
  st.role = 'spectator';
  st.enginePlays = null;
  st.engineSeats = { white: 'builtin', black: 'sf' };
  assert.equal(playerName(st, 'white'), 'Computer · builtin');
  assert.equal(playerName(st, 'black'), 'Computer · sf');
});

test('position texts: start, after a move, live and final', () => {
  const st = loaded('white', ['e2e4', 'b8c6'], ['e4', 'Nc6']);
  assert.equal(positionText(st, 0, false), 'Position: the starting position');
  assert.equal(positionText(st, 1, false), 'Position: the position after 1. e4');
  assert.equal(positionText(st, 2, true), 'Analysing the position after 1… Nc6 (live)');
  st.analysis.ply = 2; // an analysis of that position, not of whatever comes
  assert.equal(positionText(st, 2, true), 'Analysing the position after 1… Nc6');
  const over = loaded('white', ['f2f3', 'e7e5', 'g2g4', 'd8h4'], ['f3', 'e5', 'g4', 'Qh4#'], { result: 'black_wins', reason: 'checkmate' });
  assert.equal(positionText(over, 4, false), 'Position: the position after 2… Qh4# (final)');
});

test('clocks count down only for the side whose clock runs, while the game goes on', () => {
  const clocks = { white_ms: 60_000, black_ms: 30_000, running: 'white' };
  assert.equal(clockMs(clocks, 'white', 1_500, true), 58_500);
  assert.equal(clockMs(clocks, 'black', 1_500, true), 30_000);
  assert.equal(clockMs(clocks, 'white', 1_500, false), 60_000);
  assert.equal(clockMs({ ...clocks, running: null }, 'white', 1_500, true), 60_000);
});
