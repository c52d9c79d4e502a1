// @ts-check
// What each Chess 2 army changes: its special pieces, the letter that marks them on the board,
// and how they move (the rules as docs/chess2.md gives them). Pure: node's tests import it.

/**
 * @typedef {{letter: string, roles: string, name: string, rule: string}} ArmyPiece
 * `roles`: the FEN letters (lower case) of the pieces it stands for.
 */

/** @type {Record<string, ArmyPiece[]>} The special pieces of each army, by the army's letter. */
export const ARMY_PIECES = {
  c: [],
  n: [
    { letter: 'N', roles: 'q', name: 'Nemesis', rule: 'moves like a queen; captures only the enemy king, and only that king captures it' },
    { letter: 'n', roles: 'p', name: 'Nemesis pawn', rule: 'no double step; may also step onto an empty square towards the enemy king' },
  ],
  e: [
    { letter: 'E', roles: 'rbn', name: 'Empowered piece', rule: 'also moves as a friendly knight, bishop or rook beside it (orthogonally)' },
    { letter: 'e', roles: 'q', name: 'Empowered queen', rule: 'moves only as a king' },
  ],
  r: [
    { letter: 'R', roles: 'q', name: 'Reaper', rule: 'goes to any square but the enemy back rank, taking any piece but a king' },
    { letter: 'G', roles: 'r', name: 'Ghost', rule: 'goes to any empty square; never captures, is never captured, blocks every path' },
  ],
  k: [
    { letter: 'W', roles: 'k', name: 'Warrior king', rule: 'two kings and no queen; the Whirlwind destroys every piece around it; an extra king turn after each turn' },
  ],
  a: [
    { letter: 'H', roles: 'n', name: 'Wild Horse', rule: 'a knight that may also take its own pieces' },
    { letter: 'T', roles: 'b', name: 'Tiger', rule: 'up to 2 squares diagonally; stays on its square when it captures' },
    { letter: 'E', roles: 'r', name: 'Elephant', rule: 'up to 3 squares orthogonally, rampaging through what it meets' },
    { letter: 'J', roles: 'q', name: 'Jungle Queen', rule: 'moves as a rook or as a knight' },
  ],
};

/**
 * The board letter of `piece` (a FEN letter) in a game of `armies`, or null for a plain piece.
 * @param {{white: string, black: string} | null | undefined} armies
 * @param {string} piece
 * @returns {string | null}
 */
export function armyBadge(armies, piece) {
  if (!armies) return null;
  const army = piece === piece.toUpperCase() ? armies.white : armies.black;
  const special = (ARMY_PIECES[army] || []).find((p) => p.roles.includes(piece.toLowerCase()));
  return special ? special.letter : null;
}
