// @ts-check
// Chess helpers for display only: FEN placement, squares, applying a known-legal UCI move to a
// board (for looking back through a game), check and result texts. Legality always comes from
// the server.

export const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
export const FILES = 'abcdefgh';

/**
 * Square index (a1 = 0 … h8 = 63) of a name like "e4", or -1.
 * @param {unknown} name
 * @returns {number}
 */
export function squareIndex(name) {
  if (typeof name !== 'string' || name.length !== 2) return -1;
  const f = FILES.indexOf(name[0]);
  const r = name.charCodeAt(1) - 49;
  return f < 0 || r < 0 || r > 7 ? -1 : r * 8 + f;
}

/** The name of a square index. @param {number} i */
export function squareName(i) {
  return FILES[i % 8] + String(Math.floor(i / 8) + 1);
}

/** @typedef {(string | null)[]} Squares  64 FEN piece letters ('P', 'n', …) or null, a1 first. */

/**
 * Parses a FEN: `{board: Array(64) of 'P','n',… or null, turn: 'w'|'b', fullmove}`.
 * @param {string | null | undefined} fen
 * @returns {{board: Squares, turn: string, fullmove: number}}
 */
export function parseFen(fen) {
  const parts = String(fen || '').trim().split(/\s+/);
  /** @type {Squares} */
  const board = new Array(64).fill(null);
  const rows = (parts[0] || '').split('/');
  if (rows.length !== 8) throw new Error('a FEN needs 8 ranks');
  rows.forEach((row, i) => {
    const rank = 7 - i;
    let file = 0;
    for (const c of row) {
      if (/[1-8]/.test(c)) file += Number(c);
      else if (/[pnbrqkPNBRQK]/.test(c)) {
        if (file > 7) throw new Error('a rank is too long');
        board[rank * 8 + file] = c;
        file += 1;
      } else throw new Error(`unexpected '${c}' in the FEN`);
    }
    if (file !== 8) throw new Error('a rank does not have 8 squares');
  });
  return {
    board,
    turn: parts[1] === 'b' ? 'b' : 'w',
    fullmove: Number(parts[5]) || 1,
  };
}

/** 'w' for a white piece letter, 'b' for black. @param {string | null} piece */
export function colorOf(piece) {
  return piece && piece === piece.toUpperCase() ? 'w' : 'b';
}

/**
 * The board after a legal UCI move (castling as e1g1 or king-takes-rook e1h1, en passant,
 * promotion). Only placement is tracked: this is for drawing earlier positions.
 * @param {Squares} board
 * @param {string} uci
 * @returns {Squares}
 */
export function applyUci(board, uci) {
  const next = board.slice();
  const from = squareIndex(uci.slice(0, 2));
  const to = squareIndex(uci.slice(2, 4));
  const piece = next[from];
  if (!piece || to < 0) return next;
  const white = colorOf(piece) === 'w';
  const target = next[to];
  const isKing = piece.toLowerCase() === 'k';
  // Castling: king takes own rook, or a king moving two files.
  if (isKing && target && colorOf(target) === colorOf(piece) && target.toLowerCase() === 'r') {
    const rank = Math.floor(from / 8) * 8;
    const kingside = to % 8 > from % 8;
    next[from] = null;
    next[to] = null;
    next[rank + (kingside ? 6 : 2)] = piece;
    next[rank + (kingside ? 5 : 3)] = target;
    return next;
  }
  if (isKing && Math.abs((to % 8) - (from % 8)) === 2) {
    const rank = Math.floor(from / 8) * 8;
    const kingside = to % 8 > from % 8;
    const rookFrom = rank + (kingside ? 7 : 0);
    next[rank + (kingside ? 5 : 3)] = next[rookFrom];
    next[rookFrom] = null;
  }
  // En passant: a pawn moving diagonally to an empty square.
  if (piece.toLowerCase() === 'p' && from % 8 !== to % 8 && !target) {
    next[to + (white ? -8 : 8)] = null;
  }
  next[from] = null;
  const promo = uci[4];
  next[to] = promo ? (white ? promo.toUpperCase() : promo.toLowerCase()) : piece;
  return next;
}

/** Where the king of `color` ('w'|'b') stands, or -1. @param {Squares} board @param {string} color */
export function kingSquare(board, color) {
  return board.indexOf(color === 'w' ? 'K' : 'k');
}

/** The squares [from, to] of a UCI move as drawn (castling king-takes-rook shown as the rook).
 * @param {string} uci */
export function moveSquares(uci) {
  return [squareIndex(uci.slice(0, 2)), squareIndex(uci.slice(2, 4))];
}

/** Whether a SAN move gives check (or mate). @param {string | null | undefined} san */
export function sanChecks(san) {
  return /[+#]$/.test(san || '');
}

/** @type {Record<string, string>} */
const REASONS = {
  checkmate: 'checkmate',
  stalemate: 'stalemate',
  insufficient_material: 'insufficient material',
  fifty_moves: 'the fifty-move rule',
  threefold_repetition: 'threefold repetition',
  fivefold_repetition: 'fivefold repetition',
  seventy_five_moves: 'the 75-move rule',
  resignation: 'resignation',
  timeout: 'time',
  agreement: 'agreement',
  manual: 'decision',
  midline_invasion: 'midline invasion',
  no_legal_moves: 'having no legal move',
};

/**
 * `{score, title, detail, sentence}` of a finished status, e.g. `1–0`, `White wins`,
 * `by checkmate` and `White wins by checkmate`: the sentence names the reason once.
 * @param {{result: string, reason?: string, note?: string} | null | undefined} status
 * @returns {{score: string, title: string, detail: string, sentence: string} | null}
 */
export function resultText(status) {
  if (!status || status.result === 'ongoing') return null;
  if (status.result === 'aborted') return { score: '–', title: 'Aborted', detail: '', sentence: 'Game aborted' };
  const reason = REASONS[status.reason || ''] || status.reason || '';
  const by = status.reason === 'timeout'
    ? (status.result === 'draw' ? 'on time, with no mating material left' : 'on time')
    : `by ${reason}`;
  const detail = status.note ? `${by} (${status.note})` : by;
  /** @type {Record<string, [string, string]>} */
  const decisive = {
    white_wins: ['1–0', 'White wins'],
    black_wins: ['0–1', 'Black wins'],
  };
  const [score, title] = decisive[status.result] || ['½–½', 'Draw'];
  return { score, title, detail, sentence: `${title} ${detail}` };
}

/**
 * Move numbers for a list of SAN moves starting with `turn` to move at move `fullmove`.
 * @param {string[]} sans
 * @param {string} [turn]
 * @param {number} [fullmove]
 */
export function numberedLine(sans, turn = 'w', fullmove = 1) {
  /** @type {string[]} */
  const out = [];
  let n = fullmove;
  let white = turn === 'w';
  sans.forEach((san, i) => {
    if (white) out.push(`${n}. ${san}`);
    else out.push(i === 0 ? `${n}… ${san}` : san);
    if (!white) n += 1;
    white = !white;
  });
  return out.join(' ');
}
