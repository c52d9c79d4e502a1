// @ts-check
// What each Chess 2 army changes: its special pieces, the drawing each is shown with (see
// chess2-pieces.js), and how they move (the rules as docs/chess2.md gives them). Pure: node's
// tests import it.

/**
 * @typedef {{kinds: Record<string, string>, name: string, rule: string}} ArmyPiece
 * `kinds`: the drawing of each piece it stands for, by the piece's FEN letter (lower case).
 */

/** @type {Record<string, ArmyPiece[]>} The special pieces of each army, by the army's letter. */
export const ARMY_PIECES = {
  c: [],
  n: [
    { kinds: { q: 'nemesis' }, name: 'Nemesis', rule: 'moves like a queen; captures only the enemy king, and only that king captures it' },
    { kinds: { p: 'nemesis-pawn' }, name: 'Nemesis pawn', rule: 'no double step; may also step onto an empty square towards the enemy king' },
  ],
  e: [
    { kinds: { n: 'empowered-knight', b: 'empowered-bishop', r: 'empowered-rook' }, name: 'Empowered piece', rule: 'also moves as a friendly knight, bishop or rook beside it (orthogonally)' },
    { kinds: { q: 'empowered-queen' }, name: 'Empowered queen', rule: 'moves only as a king' },
  ],
  r: [
    { kinds: { q: 'reaper' }, name: 'Reaper', rule: 'goes to any square but the enemy back rank, taking any piece but a king' },
    { kinds: { r: 'ghost' }, name: 'Ghost', rule: 'goes to any empty square; never captures, is never captured, blocks every path' },
  ],
  k: [
    { kinds: { k: 'warrior-king' }, name: 'Warrior king', rule: 'two kings and no queen; the Whirlwind destroys every piece around it; an extra king turn after each turn' },
  ],
  a: [
    { kinds: { n: 'wild-horse' }, name: 'Wild Horse', rule: 'a knight that may also take its own pieces' },
    { kinds: { b: 'tiger' }, name: 'Tiger', rule: 'up to 2 squares diagonally; stays on its square when it captures' },
    { kinds: { r: 'elephant' }, name: 'Elephant', rule: 'up to 3 squares orthogonally, rampaging through what it meets' },
    { kinds: { q: 'jungle-queen' }, name: 'Jungle Queen', rule: 'moves as a rook or as a knight' },
  ],
};

/** The name of each drawing, as a screen reader says the piece. */
export const KIND_NAMES = /** @type {Record<string, string>} */ ({
  nemesis: 'Nemesis',
  'nemesis-pawn': 'Nemesis pawn',
  'empowered-knight': 'Empowered knight',
  'empowered-bishop': 'Empowered bishop',
  'empowered-rook': 'Empowered rook',
  'empowered-queen': 'Empowered queen',
  reaper: 'Reaper',
  ghost: 'Ghost',
  'warrior-king': 'Warrior king',
  'wild-horse': 'Wild Horse',
  tiger: 'Tiger',
  elephant: 'Elephant',
  'jungle-queen': 'Jungle Queen',
});

/**
 * The <symbol> id of the drawing `kind` in `color` ('w' or 'b'): "piece-w-reaper".
 * @param {string} kind
 * @param {'w' | 'b'} color
 */
export const armyPieceId = (kind, color) => `piece-${color}-${kind}`;

/**
 * @typedef {{kind: string, id: string, name: string}} ArmyLook
 * How the board shows one army piece: its drawing (`kind`), the drawing's <symbol> `id`, and
 * its `name` with its colour ("black Reaper").
 */

/**
 * How `piece` (a FEN letter) is drawn in a game of `armies`, or null for a plain piece (drawn
 * as in standard chess).
 * @param {{white: string, black: string} | null | undefined} armies
 * @param {string | null | undefined} piece
 * @returns {ArmyLook | null}
 */
export function armyLook(armies, piece) {
  if (!armies || !piece) return null;
  const white = piece === piece.toUpperCase();
  const army = white ? armies.white : armies.black;
  const role = piece.toLowerCase();
  const special = (ARMY_PIECES[army] || []).find((p) => role in p.kinds);
  if (!special) return null;
  const kind = special.kinds[role];
  return { kind, id: armyPieceId(kind, white ? 'w' : 'b'), name: `${white ? 'white' : 'black'} ${KIND_NAMES[kind]}` };
}
