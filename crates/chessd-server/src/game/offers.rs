//! The in-game offers beyond draws: takebacks and rematches, and the rules of when a game may
//! be aborted or taken back.

use chessd_core::Color;
use uuid::Uuid;

use crate::game::{board::Board, secrets::KeptDigest};

/// A game's takeback and rematch offers, and the rematch once made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Offers {
    /// The side whose takeback offer waits for the opponent.
    pub takeback: Option<Color>,
    /// The side whose rematch offer waits, with the digest of its seat secret in the rematch.
    pub rematch: Option<(Color, KeptDigest)>,
    /// The rematch, once created.
    pub rematch_game: Option<Uuid>,
}

/// Whether takebacks are allowed in this game: in casual games only (`rated`: the game is
/// rated, from its players), as lichess.
pub fn takebacks_allowed(_game: &Board, rated: bool) -> bool {
    !rated
}

/// Whether the game may still be aborted: it goes on and not both sides have moved yet (as
/// lichess: a game is aborted in its first moves, before it counts).
pub fn abort_allowed(game: &Board) -> bool {
    !game.is_over() && game.plies() < 2
}

/// The moves a takeback offered by `by` undoes: the last one when it was `by`'s own, the last
/// two when `by` is to move again (its own move and the opponent's answer), as lichess.
/// `None` when `by` has no move to take back.
pub fn takeback_plies(game: &Board, by: Color) -> Option<usize> {
    let plies = game.plies();
    let start_turn = if plies.is_multiple_of(2) {
        game.to_act()
    } else {
        !game.to_act()
    };
    // Plies made by `by`: the side to move at the start makes plies 1, 3, 5…
    let by_moves = if by == start_turn {
        plies.div_ceil(2)
    } else {
        plies / 2
    };
    if by_moves == 0 {
        return None;
    }
    Some(if game.to_act() == by { 2 } else { 1 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessd_core::game::Game;

    fn after(moves: &[&str]) -> Board {
        let mut g = Game::default();
        for m in moves {
            g.play_uci(m).unwrap();
        }
        g.into()
    }

    #[test]
    fn takebacks_undo_the_offerers_last_move() {
        let start = after(&[]);
        assert_eq!(takeback_plies(&start, Color::White), None);
        let one = after(&["e2e4"]);
        assert_eq!(takeback_plies(&one, Color::White), Some(1));
        assert_eq!(takeback_plies(&one, Color::Black), None);
        let two = after(&["e2e4", "e7e5"]);
        assert_eq!(takeback_plies(&two, Color::White), Some(2));
        assert_eq!(takeback_plies(&two, Color::Black), Some(1));
        assert!(abort_allowed(&one));
        assert!(!abort_allowed(&two));
    }
}
