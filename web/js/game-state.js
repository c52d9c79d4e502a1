// @ts-check
// The game page's state and what follows from it alone: whose turn, which position is shown,
// the side to move after a ply, material, the move list's rows, the names on the bars. Pure: no
// DOM, so node's tests import it.

import { parseFen, START_FEN } from './chess.js';

/**
 * What players may do around the moves (the view's `in_game`).
 * @typedef {Object} InGame
 * @property {boolean} abortable
 * @property {boolean} takebacks
 * @property {string | null} takeback_offer
 * @property {string | null} rematch_offer
 * @property {string | null} rematch
 * @property {boolean} chat
 */

/**
 * @typedef {{result: string, reason?: string, note?: string}} GameStatus
 * @typedef {{white_ms: number, black_ms: number, running?: string | null}} Clocks
 * @typedef {{uci: string, san: string}} PlayedMove
 * @typedef {{engine: string, plays: string}} EngineSeat
 * @typedef {Object} GameView  The game as the server shows it (GET /v1/games/{id}, `state`).
 * @property {number} version
 * @property {string} [variant]
 * @property {string} start_fen
 * @property {string} fen
 * @property {string} turn
 * @property {boolean} check
 * @property {GameStatus} status
 * @property {PlayedMove[]} moves
 * @property {Clocks | null} [clocks]
 * @property {string | null} [draw_offer]
 * @property {InGame} [in_game]
 * @property {{opponent?: EngineSeat, opponents?: EngineSeat[]} | null} [options]
 */

/**
 * @typedef {Object} AnalysisLine  An `engine_info` frame, or a line of `engine_analysis_done`.
 * @property {number} [multipv]
 * @property {number} [depth]
 * @property {{cp?: number, mate?: number}} [score]
 * @property {{cp?: number, mate?: number}} [white_score]
 * @property {string} [pov]
 * @property {string[]} [pv_uci]
 * @property {string[]} [pv_san]
 * @property {number} [nodes]
 * @property {number} [nps]
 */

/**
 * @typedef {{name: string, kind?: string, default?: boolean, reachable?: boolean}} EngineEntry
 *
 * @typedef {Object} AnalysisState  The analysis panel: `on` while an analysis runs (or is being
 * started) for the position after `ply` plies (null: the live position, which the server follows
 * move by move); `engines` are the reachable engines offered, `choice` the one chosen; `seq`
 * numbers the starts, so that a late answer of an earlier one changes nothing.
 * @property {boolean} on
 * @property {boolean} [starting]
 * @property {Map<number, AnalysisLine>} lines
 * @property {string | null} error
 * @property {AnalysisLine | null} info
 * @property {boolean} done
 * @property {number | null} ply
 * @property {string | null} engine
 * @property {number | null} multipv
 * @property {EngineEntry[] | null} engines
 * @property {boolean} [enginesLoaded]
 * @property {string | null} choice
 * @property {number} seq
 * @property {Map<string, number>} multipvMax  Lines each engine offers (its MultiPV maximum).
 */

/**
 * @typedef {Object} GameState
 * @property {GameView | null} game
 * @property {number} version  The last version applied (moves, offers, ends).
 * @property {string | null} role  white, black, spectator, admin; null until the socket says.
 * @property {{board: (string | null)[], turn: string, fullmove: number}} start
 * @property {PlayedMove[]} moves
 * @property {(string | null)[][]} boards  The board after each ply (0: the start).
 * @property {number | null} view  null: live; else the ply shown.
 * @property {string[]} legal
 * @property {string | null} legalFor  The FEN `legal` is for.
 * @property {Clocks | null} clocks
 * @property {number} clockAt  When `clocks` came (performance.now()).
 * @property {string | null} pending  A move sent and shown, not yet confirmed.
 * @property {string | null} premove  A move queued while the opponent is to move (UCI), played
 * when the turn comes if it is legal then.
 * @property {string} conn  connecting, open, reconnecting, closed.
 * @property {string | null} orientation
 * @property {boolean} resignArmed
 * @property {AnalysisState} analysis
 * @property {string | false} stopped  Why the server stopped the game, or false.
 * @property {string | null} engine  The engine attached to the game, if any.
 * @property {string | null} enginePlays  The side an engine opponent plays, if any (kept once
 * the game is over: the bars still name it, even when an analysis engine replaces it).
 * @property {string | null} opponentName
 * @property {{white?: string, black?: string}} engineSeats  Every side an engine plays (an
 * engine match has both).
 */

/** @typedef {import('./api.js').RememberedGame} RememberedGame */

/**
 * The state of a game page before anything is loaded. `remembered` is what this browser keeps
 * about the game (its seat, its engine opponent); without a `token` the page is a spectator's.
 * @param {RememberedGame | null} remembered
 * @param {string | null} token
 * @returns {GameState}
 */
export function createGameState(remembered, token) {
  const opponent = remembered && remembered.opponent;
  const engine = opponent && typeof opponent === 'object' && opponent.engine ? opponent.engine : null;
  return {
    game: null,
    version: 0,
    role: token ? null : 'spectator',
    start: parseFen(START_FEN),
    moves: [],
    boards: [],
    view: null,
    legal: [],
    legalFor: null,
    clocks: null,
    clockAt: 0,
    pending: null,
    premove: null,
    conn: 'connecting',
    orientation: null,
    resignArmed: false,
    analysis: {
      on: false, lines: new Map(), error: null, info: null, done: false,
      ply: null, engine: null, multipv: null, engines: null, choice: null, seq: 0,
      multipvMax: new Map(),
    },
    stopped: false,
    engine,
    enginePlays: engine && remembered && remembered.color ? (remembered.color === 'white' ? 'black' : 'white') : null,
    opponentName: engine,
    engineSeats: {},
  };
}

/** @param {GameState} st */
export function isPlayer(st) {
  return st.role === 'white' || st.role === 'black';
}

/**
 * Whether the game goes on (loaded, not finished, not stopped).
 * @param {GameState} st
 * @returns {boolean}
 */
export function ongoing(st) {
  return !!st.game && st.game.status.result === 'ongoing' && !st.stopped;
}

/** @param {GameState} st */
export function myTurn(st) {
  return isPlayer(st) && ongoing(st) && !!st.game && st.game.turn === st.role;
}

/**
 * Whether the player may queue a premove now: a seat's, in a game going on, the opponent to move.
 * @param {GameState} st
 */
export function canPremove(st) {
  return isPlayer(st) && ongoing(st) && !!st.game && st.game.turn !== st.role && !st.pending;
}

/**
 * The ply of the position shown.
 * @param {GameState} st
 */
export function viewPly(st) {
  return st.view === null ? st.moves.length : st.view;
}

/** @param {GameState} st */
export function defaultOrientation(st) {
  return st.role === 'black' ? 'black' : 'white';
}

/**
 * The side to move ('w'|'b') after `ply` plies from a start where `startTurn` was to move.
 * @param {string} startTurn
 * @param {number} ply
 */
export function sideToMoveAt(startTurn, ply) {
  const whiteFirst = startTurn === 'w';
  return (ply % 2 === 0) === whiteFirst ? 'w' : 'b';
}

/**
 * The move number of the move played after `ply` plies.
 * @param {{turn: string, fullmove: number}} start
 * @param {number} ply
 */
export function moveNumberAt(start, ply) {
  return start.fullmove + Math.floor((ply + (start.turn === 'w' ? 0 : 1)) / 2);
}

/** Whether typed text is a UCI move (else it is read as SAN). @param {string} text */
export function isUciText(text) {
  return /^[a-h][1-8][a-h][1-8][qrbn]?$/.test(text);
}

/** @type {Record<string, number>} */
export const VALUES = { p: 1, n: 3, b: 3, r: 5, q: 9, k: 0 };

/**
 * The pieces of each side by kind, and the material score from White's side.
 * @param {(string | null)[]} squares
 * @returns {{count: {w: Record<string, number>, b: Record<string, number>}, score: number}}
 */
export function material(squares) {
  /** @type {{w: Record<string, number>, b: Record<string, number>}} */
  const count = { w: {}, b: {} };
  let score = 0;
  for (const p of squares) {
    if (!p) continue;
    const c = p === p.toUpperCase() ? 'w' : 'b';
    const r = p.toLowerCase();
    count[c][r] = (count[c][r] || 0) + 1;
    score += (c === 'w' ? 1 : -1) * VALUES[r];
  }
  return { count, score };
}

/**
 * The material difference as the big sites show it beside `color`: the opponent's pieces it is
 * up (piece letters, strongest first; it reads right for games started from a FEN too) and its
 * lead in points.
 * @param {(string | null)[]} squares
 * @param {string} color white or black
 * @returns {{pieces: string[], lead: number}}
 */
export function materialEdge(squares, color) {
  const { count, score } = material(squares);
  const me = color === 'white' ? 'w' : 'b';
  const opp = color === 'white' ? 'b' : 'w';
  const pieces = [];
  for (const r of ['q', 'r', 'b', 'n', 'p']) {
    const up = (count[me][r] || 0) - (count[opp][r] || 0);
    for (let i = 0; i < up; i++) pieces.push(opp === 'w' ? r.toUpperCase() : r);
  }
  return { pieces, lead: color === 'white' ? score : -score };
}

/**
 * The name on the bar of `color`: "You", "Computer · stockfish", "White".
 * @param {GameState} st
 * @param {string} color
 */
export function playerName(st, color) {
  const engineSide = st.enginePlays === color;
  const seatEngine = st.engineSeats[/** @type {'white' | 'black'} */ (color)];
  if (st.role === color) return 'You';
  if (seatEngine && !engineSide) return `Computer · ${seatEngine}`;
  if (engineSide) return `Computer · ${st.opponentName || st.engine}`;
  return color === 'white' ? 'White' : 'Black';
}

/**
 * @typedef {{number: number, gap: boolean, moves: {ply: number, san: string}[]}} MoveRow
 * A row of the move list: its number, whether it opens with "…" (Black moved first), its moves.
 */

/**
 * The move list in rows of a move number and one or two moves.
 * @param {PlayedMove[]} moves
 * @param {{turn: string, fullmove: number}} start
 * @returns {MoveRow[]}
 */
export function moveRows(moves, start) {
  /** @type {MoveRow[]} */
  const rows = [];
  const whiteFirst = start.turn === 'w';
  let number = start.fullmove;
  /** @type {MoveRow | null} */
  let row = null;
  moves.forEach((m, i) => {
    const white = (i % 2 === 0) === whiteFirst;
    if (white || !row) {
      row = { number, gap: !white, moves: [] };
      rows.push(row);
    }
    row.moves.push({ ply: i + 1, san: m.san });
    if (!white) number += 1;
  });
  return rows;
}

/**
 * Names the position after `ply` plies: "Position: the starting position", "Analysing the
 * position after 2… Nc6 (live)".
 * @param {GameState} st
 * @param {number} ply
 * @param {boolean} on  Whether it is being analysed.
 */
export function positionText(st, ply, on) {
  const live = ply === st.moves.length && st.view === null;
  let where;
  if (ply === 0) where = 'the starting position';
  else {
    const whiteMoved = sideToMoveAt(st.start.turn, ply - 1) === 'w';
    const n = moveNumberAt(st.start, ply - 1);
    where = `the position after ${n}${whiteMoved ? '.' : '…'} ${st.moves[ply - 1].san}`;
  }
  const over = !!st.game && st.game.status.result !== 'ongoing' && ply === st.moves.length;
  const tail = over ? ' (final)' : live && st.analysis.ply === null ? ' (live)' : '';
  return `${on ? 'Analysing' : 'Position:'} ${where}${tail}`;
}

/**
 * The game's in-game state, made when the view has none (an older server).
 * @param {GameView} g
 * @returns {InGame}
 */
export function inGame(g) {
  if (!g.in_game) g.in_game = { abortable: false, takebacks: false, takeback_offer: null, rematch_offer: null, rematch: null, chat: false };
  return g.in_game;
}

/**
 * Whether the seat `role` has a move of its own in the game to take back.
 * @param {{turn: string, fullmove: number}} start  The start position's side to move.
 * @param {number} plies  Moves played.
 * @param {string | null} role
 */
export function hasOwnMove(start, plies, role) {
  const first = start.turn === 'b' || start.turn === 'black' ? 'black' : 'white';
  const mine = role === first ? Math.ceil(plies / 2) : Math.floor(plies / 2);
  return mine > 0;
}
