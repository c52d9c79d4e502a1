// @ts-check
// What a Chess 2 move's duels came to, in words, from its notation (docs/chess2.md): one
// `:`-separated field per duel, `""` not challenged, `DA` the defender's bid then the
// attacker's, `00+`/`00-` a called bluff where the attacker gained a stone / the defender lost one.

/**
 * The sentences telling each duel of `move` (e.g. `b4c4:12`); none for a move without duels.
 * @param {string} move
 * @returns {string[]}
 */
export function describeDuels(move) {
  const [bare, ...fields] = move.split(':');
  // A single duel is over the destination square; a rampage's are along its path.
  const onSquare = fields.length === 1 && bare.length >= 4 ? ` on ${bare.slice(2, 4)}` : '';
  return fields.map((field, i) => {
    const which = fields.length > 1 ? `Duel ${i + 1}` : 'Duel';
    if (field === '') return `${which}${onSquare}: not challenged, the capture stands.`;
    const defender = Number(field[0]);
    if (field.length < 2) return `${which}${onSquare}: the defender challenged with ${defender}.`;
    const attacker = Number(field[1]);
    const bids = `the defender bid ${defender}, the attacker ${attacker}`;
    if (defender > attacker) return `${which}${onSquare}: ${bids}. The defender wins: the capturing piece is destroyed too.`;
    if (defender === 0 && attacker === 0) {
      const bluff = field[2] === '-' ? 'the defender loses a stone' : 'the attacker gains a stone';
      return `${which}${onSquare}: both bid 0, the bluff is called: the capture stands and ${bluff}.`;
    }
    return `${which}${onSquare}: ${bids}. The capture stands.`;
  });
}
