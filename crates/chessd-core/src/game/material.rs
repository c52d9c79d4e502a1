//! Insufficient material, with the semantics of python-chess's `has_insufficient_material`
//! (also used by shakmaty and Lichess).

use crate::{Bitboard, Color, Position, Role};

impl Position {
    /// Whether `color` can never checkmate, whatever the opponent plays (python-chess
    /// semantics):
    ///
    /// - pawns, rooks or queens are always sufficient;
    /// - a lone knight is insufficient only if `color` has nothing else and the opponent has
    ///   nothing but queens (pawns, knights, bishops or rooks could block their own king in
    ///   and allow a mate);
    /// - bishops are insufficient only if every bishop on the board (both sides') stands on
    ///   one square colour and there are no pawns or knights anywhere;
    /// - a bare king is insufficient.
    pub fn has_insufficient_material(&self, color: Color) -> bool {
        let ours = self.by_color(color);
        let heavy = self.by_role(Role::Pawn) | self.by_role(Role::Rook) | self.by_role(Role::Queen);
        if ours.intersects(heavy) {
            return false;
        }
        if ours.intersects(self.by_role(Role::Knight)) {
            let theirs = self.by_color(!color);
            let their_helpers = theirs - self.by_role(Role::King) - self.by_role(Role::Queen);
            return ours.count() <= 2 && their_helpers.is_empty();
        }
        if ours.intersects(self.by_role(Role::Bishop)) {
            let bishops = self.by_role(Role::Bishop);
            let same_colour = (bishops & Bitboard::DARK_SQUARES).is_empty()
                || (bishops & Bitboard::LIGHT_SQUARES).is_empty();
            return same_colour
                && self.by_role(Role::Pawn).is_empty()
                && self.by_role(Role::Knight).is_empty();
        }
        true
    }

    /// Whether neither side can ever checkmate (a dead position by python-chess's rules).
    pub fn is_insufficient_material(&self) -> bool {
        Color::ALL
            .into_iter()
            .all(|color| self.has_insufficient_material(color))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::{Color, FenMode, Position};

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen, FenMode::Lenient).unwrap()
    }

    #[test]
    fn bare_kings_and_minor_pieces() {
        assert!(pos("8/8/4k3/8/8/3K4/8/8 w - - 0 1").is_insufficient_material());
        assert!(pos("8/8/4k3/8/8/3KN3/8/8 w - - 0 1").is_insufficient_material());
        assert!(!pos("8/8/4k3/8/8/2NKN3/8/8 w - - 0 1").has_insufficient_material(Color::White));
        assert!(!pos("8/8/4k3/8/8/3KR3/8/8 b - - 0 1").is_insufficient_material());
    }

    #[test]
    fn knight_against_queen_can_only_lose() {
        let p = pos("8/8/4k3/4q3/8/3KN3/8/8 w - - 0 1");
        assert!(p.has_insufficient_material(Color::White));
        assert!(!p.has_insufficient_material(Color::Black));
        assert!(!p.is_insufficient_material());
    }
}
