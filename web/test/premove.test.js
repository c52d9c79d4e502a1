// Premoves (premove.js): the squares a queued move may aim at, and the legal move it plays.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseFen } from '../js/chess.js';
import { premoveTargets, premoveToPlay } from '../js/premove.js';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

test('premoves follow the geometry, through blockers', () => {
  const { board } = parseFen(START);
  const white = premoveTargets(board, 'white');
  // Pawns push one or two and take diagonally; knights jump; the queen's rays pass her pawns.
  for (const m of ['e2e4', 'e2e3', 'e2d3', 'e2f3', 'g1f3', 'g1h3', 'g1e2', 'd1h5', 'd1d8', 'a1a8', 'e1g1', 'e1c1']) {
    assert.ok(white.includes(m), m);
  }
  assert.ok(!white.includes('e2e5'));
  assert.ok(!white.some((m) => m.startsWith('e7')), 'only the side\'s own pieces');
  const black = premoveTargets(board, 'black');
  assert.ok(black.includes('e7e5') && black.includes('b8c6') && black.includes('e8g8'));
  assert.ok(!black.includes('e7e4'));
});

test('a pawn premoving to the last rank queens', () => {
  const { board } = parseFen('8/4P3/8/8/8/8/3p4/K6k w - - 0 1');
  assert.deepEqual(premoveTargets(board, 'white').filter((m) => m.startsWith('e7')).sort(), ['e7d8q', 'e7e8q', 'e7f8q']);
  assert.deepEqual(premoveTargets(board, 'black').filter((m) => m.startsWith('d2')).sort(), ['d2c1q', 'd2d1q', 'd2e1q']);
});

test('a premove plays the legal move it stands for, or nothing', () => {
  assert.equal(premoveToPlay('e2e4', ['e2e3', 'e2e4']), 'e2e4');
  assert.equal(premoveToPlay('e7e8q', ['e7e8n', 'e7e8q', 'e7e8r']), 'e7e8q');
  assert.equal(premoveToPlay('e2e4', ['d2d4']), null);
});
