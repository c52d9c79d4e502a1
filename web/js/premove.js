// @ts-check
// Premoves: the moves a player may queue while the opponent thinks, played as soon as it is
// their turn if they are legal then. As on lichess, a premove follows the piece's geometry
// only (blockers and checks may change before it is played): the server's legal moves decide
// when the turn comes. Pure: no DOM, so node's tests import it.

import { colorOf, squareName } from './chess.js';

const KNIGHT = [[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]];
const KING = [[1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]];
const ROOK = [[1, 0], [0, 1], [-1, 0], [0, -1]];
const BISHOP = [[1, 1], [-1, 1], [-1, -1], [1, -1]];

/**
 * The premoves of `color` in `board` (64 FEN letters or null, a1 = 0), as UCI; a pawn reaching
 * the last rank premoves to a queen.
 * @param {(string | null)[]} board
 * @param {'white' | 'black'} color
 * @returns {string[]}
 */
export function premoveTargets(board, color) {
  /** @type {string[]} */
  const out = [];
  const side = color === 'white' ? 'w' : 'b';
  board.forEach((piece, from) => {
    if (!piece || colorOf(piece) !== side) return;
    const file = from % 8;
    const rank = Math.floor(from / 8);
    /** Adds from → (file + df, rank + dr); false when that is off the board.
     * @param {number} df @param {number} dr @param {string} [promo] */
    const add = (df, dr, promo = '') => {
      const f = file + df;
      const r = rank + dr;
      if (f < 0 || f > 7 || r < 0 || r > 7) return false;
      // Every square on the way is a target, an own piece's too: it may be gone by then
      // (taken, and recaptured), and a blocker may have moved away.
      out.push(`${squareName(from)}${squareName(r * 8 + f)}${promo}`);
      return true;
    };
    /** @param {number[][]} dirs */
    const rays = (dirs) => {
      for (const [df, dr] of dirs) for (let k = 1; k < 8; k += 1) if (!add(df * k, dr * k)) break;
    };
    switch (piece.toLowerCase()) {
      case 'n':
        KNIGHT.forEach(([df, dr]) => add(df, dr));
        break;
      case 'b':
        rays(BISHOP);
        break;
      case 'r':
        rays(ROOK);
        break;
      case 'q':
        rays(ROOK);
        rays(BISHOP);
        break;
      case 'k': {
        KING.forEach(([df, dr]) => add(df, dr));
        // Castling from the king's home square, whatever the rights are by then.
        const home = side === 'w' ? 0 : 7;
        if (rank === home && file === 4) {
          add(2, 0);
          add(-2, 0);
        }
        break;
      }
      case 'p': {
        const dir = side === 'w' ? 1 : -1;
        const last = side === 'w' ? 7 : 0;
        const promo = rank + dir === last ? 'q' : '';
        add(0, dir, promo);
        if (rank === (side === 'w' ? 1 : 6)) add(0, 2 * dir);
        add(1, dir, promo);
        add(-1, dir, promo);
        break;
      }
      default:
        break;
    }
  });
  return out;
}

/**
 * The legal move a premove stands for once it is the player's turn (a promotion premove plays
 * a queen), or null when it is not legal then.
 * @param {string} premove
 * @param {string[]} legal
 * @returns {string | null}
 */
export function premoveToPlay(premove, legal) {
  const from = premove.slice(0, 4);
  const exact = legal.find((m) => m === premove);
  if (exact) return exact;
  const matches = legal.filter((m) => m.slice(0, 4) === from);
  if (matches.length === 0) return null;
  return matches.find((m) => m.endsWith('q')) || matches[0];
}
