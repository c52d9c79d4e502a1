// @ts-check
// Chess 2 moves in words a player reads: long algebraic with the piece (`Nb8–c6`, `Bc4×f7`,
// `e7–e8=Q`), the Whirlwind (`Whirlwind d1`), a king turn's pass (`pass`), and each duel of the
// move after a ⚔ (`⚔ 1–2`: the defender bid 1, the attacker 2). The move string of
// docs/chess2.md (`b5e8:11`) stays what the server reads and stores; this is how the page
// shows it. Pure: node's tests import it.

import { colorOf, squareIndex } from './chess.js';

/**
 * A duel field (`1`, `12`, `00+`, empty) in short words.
 * @param {string} field
 * @returns {string}
 */
function duelText(field) {
  if (field === '') return '⚔ declined';
  if (field.length === 1) return `⚔ ${field}–?`;
  const sign = field[2] === '+' ? ' +1' : field[2] === '-' ? ' −1' : '';
  return `⚔ ${field[0]}–${field[1]}${sign}`;
}

/**
 * The words for the Chess 2 move `move` (with its duel fields) played on `before` (64 FEN
 * letters or null, a1 = 0).
 * @param {(string | null)[]} before
 * @param {string} move
 * @returns {string}
 */
export function chess2MoveText(before, move) {
  const [bare, ...fields] = move.split(':');
  const duels = fields.filter((f, i) => f !== '' || i < fields.length - 1).map(duelText);
  const tail = duels.length ? ` ${duels.join(' ')}` : '';
  if (bare === '0000') return `pass${tail}`;
  const from = bare.slice(0, 2);
  const to = bare.slice(2, 4);
  if (from === to) return `Whirlwind ${from}${tail}`;
  const piece = before[squareIndex(from)];
  const target = before[squareIndex(to)];
  const letter = piece && piece.toLowerCase() !== 'p' ? piece.toUpperCase() : '';
  const takes = !!target && !!piece && colorOf(target) !== colorOf(piece);
  const promo = bare.length > 4 ? `=${bare[4].toUpperCase()}` : '';
  return `${letter}${from}${takes ? '×' : '–'}${to}${promo}${tail}`;
}

/**
 * @typedef {{ply: number, text: string}} Chess2Entry  One move of the list (ply from 1).
 * @typedef {{number: number, white: Chess2Entry[], black: Chess2Entry[]}} Chess2Row
 * One row of the move list: a turn's number and what each side played in it (a Two Kings side
 * may play twice: its king turn).
 */

/**
 * The move list in rows numbered by turn, as on a score sheet: `by` says who played each move,
 * the number goes up when White plays after Black.
 * @param {{text: string, by: string}[]} moves
 * @param {number} firstNumber  the start position's fullmove number
 * @returns {Chess2Row[]}
 */
export function chess2Rows(moves, firstNumber = 1) {
  /** @type {Chess2Row[]} */
  const rows = [];
  let number = firstNumber;
  /** @type {string | null} */
  let previous = null;
  moves.forEach((m, i) => {
    if (previous === 'black' && m.by === 'white') number += 1;
    let row = rows[rows.length - 1];
    if (!row || row.number !== number) {
      row = { number, white: [], black: [] };
      rows.push(row);
    }
    (m.by === 'black' ? row.black : row.white).push({ ply: i + 1, text: m.text });
    previous = m.by;
  });
  return rows;
}
