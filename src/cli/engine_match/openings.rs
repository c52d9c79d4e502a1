//! The match's fixed openings: main lines of common openings, each played with both colours
//! (game `i` plays opening `i / 2`, taken in turn).

use chessd_core::game::Game;

/// Openings as UCI moves from the standard start (the first is the start itself).
const OPENINGS: [&str; 10] = [
    "",
    "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6",
    "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6",
    "d2d4 d7d5 c2c4 e7e6 b1c3 g8f6",
    "c2c4 e7e5 b1c3 g8f6 g1f3 b8c6",
    "e2e4 e7e6 d2d4 d7d5 b1c3 g8f6",
    "d2d4 g8f6 c2c4 g7g6 b1c3 f8g7 e2e4 d7d6",
    "e2e4 c7c6 d2d4 d7d5 e4e5 c8f5",
    "d2d4 g8f6 c2c4 e7e6 g1f3 b7b6",
    "e2e4 e7e5 g1f3 g8f6 f3e5 d7d6",
];

/// The number of the opening game `index` (from 0) plays, from 1.
pub(super) fn number(index: u32) -> usize {
    (index as usize / 2) % OPENINGS.len() + 1
}

/// The game after the opening of game `index` (from 0).
pub(super) fn start(index: u32) -> Result<Game, String> {
    let mut game = Game::default();
    for mv in OPENINGS[number(index) - 1].split_whitespace() {
        game.play_uci(mv)
            .map_err(|e| format!("opening {}: {mv}: {e}", number(index)))?;
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_opening_is_legal_and_played_with_both_colours() {
        for index in 0..OPENINGS.len() as u32 * 2 {
            let game = start(index).unwrap();
            assert!(!game.is_over());
            assert_eq!(number(index), number(index ^ 1));
        }
        assert_eq!(start(2).unwrap().notated_history()[5].san, "a6");
        assert_eq!(number(20), 1, "taken in turn");
    }
}
