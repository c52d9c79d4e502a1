//! Seeded random games for the unit tests: a failing seed reproduces.

use chessd_core::{game::Game, Position};

/// A small seeded generator (xorshift).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// A number below `n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// A game of `plies` random legal moves from the standard start, the first `rng` draws that
/// lasts that long (a game that ends sooner is drawn again).
pub(crate) fn random_game(rng: &mut Rng, plies: usize) -> Game {
    loop {
        let mut game = Game::new(Position::default());
        while game.history().len() < plies && !game.is_over() {
            let moves = game.position().legal_moves();
            game.replay(moves[rng.below(moves.len())])
                .expect("a legal move");
        }
        if game.history().len() == plies {
            return game;
        }
    }
}
