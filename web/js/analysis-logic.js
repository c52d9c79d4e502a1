// @ts-check
// The analysis panel's pure parts: which engine to offer first, scores from White's side, lines
// with move numbers, and whether an engine frame is about the position analysed. No DOM, so
// node's tests import it.

import { colorOf, numberedLine, squareIndex } from './chess.js';
import { moveNumberAt, sideToMoveAt } from './game-state.js';

/** @typedef {import('./game-state.js').AnalysisLine} AnalysisLine */
/** @typedef {import('./game-state.js').EngineEntry} EngineEntry */

/**
 * The engine the analysis chooser starts on, among the reachable `engines`: `saved` (the one
 * chosen last time), else Stockfish (a name with "stockfish" or "sf"), else the server's default.
 * @param {EngineEntry[]} engines
 * @param {string | null} saved
 * @returns {string | null}
 */
export function pickEngine(engines, saved) {
  /** @param {(name: string) => boolean} test */
  const byName = (test) => engines.find((e) => test(e.name.toLowerCase()));
  const pick = engines.find((e) => e.name === saved)
    || byName((n) => n === 'stockfish')
    || byName((n) => n.includes('stockfish'))
    || byName((n) => n === 'sf')
    || byName((n) => n.includes('sf'))
    || engines.find((e) => e.default)
    || engines[0];
  return pick ? pick.name : null;
}

/**
 * The score of a line from White's side: the server's `white_score`, or the UCI score (from the
 * side to move) turned round when Black is to move. `turn` is the side to move ('w'|'b') in the
 * position analysed.
 * @param {AnalysisLine} line
 * @param {string} turn
 * @returns {{cp?: number, mate?: number}}
 */
export function whiteScore(line, turn) {
  if (line.white_score && typeof line.white_score === 'object') return line.white_score;
  const s = line.score || {};
  const flip = (line.pov ? line.pov === 'black' : turn === 'b') ? -1 : 1;
  /** @type {{cp?: number, mate?: number}} */
  const out = {};
  if (typeof s.mate === 'number') out.mate = s.mate * flip;
  if (typeof s.cp === 'number') out.cp = s.cp * flip;
  return out;
}

/**
 * A score as shown: "+0.35", "-1.20", "#3", "-#2", "…" (none yet).
 * @param {{cp?: number, mate?: number}} s
 */
export function scoreText(s) {
  if (typeof s.mate === 'number') return `${s.mate < 0 ? '-' : ''}#${Math.abs(s.mate)}`;
  if (typeof s.cp === 'number') {
    const v = s.cp / 100;
    return `${v > 0 ? '+' : ''}${v.toFixed(2)}`;
  }
  return '…';
}

/**
 * The first 12 moves of a line (SAN, else UCI) with move numbers, for the position after `ply`
 * plies from `start`: "2… Nc6 3. Bb5 a6".
 * @param {AnalysisLine} line
 * @param {{turn: string, fullmove: number}} start
 * @param {number} ply
 */
export function pvText(line, start, ply) {
  const sans = (line.pv_san && line.pv_san.length ? line.pv_san : line.pv_uci) || [];
  return numberedLine(sans.slice(0, 12), sideToMoveAt(start.turn, ply), moveNumberAt(start, ply));
}

/**
 * Whether an engine frame is about the position `board` with `turn` to move (a frame of the
 * search the engine is leaving may still arrive after a restart elsewhere).
 * @param {AnalysisLine} f
 * @param {(string | null)[] | undefined} board
 * @param {string} turn
 */
export function aboutPosition(f, board, turn) {
  if (f.pov && f.pov !== (turn === 'w' ? 'white' : 'black')) return false;
  const first = (f.pv_uci || [])[0];
  if (!first) return true;
  if (f.pv_san && !f.pv_san.length) return false; // not legal where the engine started
  const piece = board && board[squareIndex(first.slice(0, 2))];
  return !!piece && colorOf(piece) === turn;
}

/**
 * The number of lines an engine offers, read from the refusal of a request for `asked` lines
 * ("multipv must be 1 to 2"), when that is fewer; else null.
 * @param {{code?: string, message?: string}} e
 * @param {number} asked
 * @returns {number | null}
 */
export function fewerLines(e, asked) {
  const m = e.code === 'engine_unsupported' && /multipv must be 1 to (\d+)/i.exec(e.message || '');
  if (!m) return null;
  const n = Number(m[1]);
  return n >= 1 && n < asked ? n : null;
}

/**
 * The panel's state for its `data-state`: starting, on, done or off.
 * @param {{on: boolean, starting?: boolean, done: boolean}} a
 */
export function analysisStateName(a) {
  return a.on ? (a.starting ? 'starting' : 'on') : a.done ? 'done' : 'off';
}
