//! Static exchange evaluation: the material balance of the capture sequence on one square
//! when both sides always recapture with their least valuable piece and may stop at will.
//! Pins are ignored; a king never captures onto a defended square.

use super::eval::SEE_VALUE;
use crate::{Bitboard, Color, Move, MoveKind, Position, Role, Square};

/// The exchange value of `mv` (legal in `pos`) for the side playing it, in centipawns.
pub(crate) fn see(pos: &Position, mv: Move) -> i32 {
    if mv.is_castle() {
        return 0;
    }
    let from = mv.from();
    let to = mv.to();
    let Some(mover) = pos.moved_role(mv) else {
        return 0;
    };
    let mut gain = [0i32; 34];
    gain[0] = pos.captured_role(mv).map_or(0, |r| SEE_VALUE[r.index()]);
    let mut on_square = mover;
    if let MoveKind::Promotion(role) = mv.kind() {
        gain[0] += SEE_VALUE[role.index()] - SEE_VALUE[Role::Pawn.index()];
        on_square = role;
    }
    let mut occ = pos.occupied() - from;
    if mv.is_en_passant() {
        occ = occ - Square::new(to.index() as u32 ^ 8);
    }
    let mut side = !pos.turn();
    let mut d = 0;
    while let Some((sq, role)) = least_valuable(pos, attackers(pos, to, side, occ)) {
        if role == Role::King && attackers(pos, to, !side, occ - sq).nonempty() {
            break;
        }
        d += 1;
        gain[d] = SEE_VALUE[on_square.index()] - gain[d - 1];
        if d + 1 >= gain.len() {
            break;
        }
        occ = occ - sq;
        on_square = role;
        side = !side;
    }
    while d > 0 {
        gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
        d -= 1;
    }
    gain[0]
}

/// Pieces of `side` still on the board (`occ`) that attack `sq` through `occ`.
#[inline]
fn attackers(pos: &Position, sq: Square, side: Color, occ: Bitboard) -> Bitboard {
    pos.attackers_to(sq, side, occ) & occ
}

/// The least valuable piece among `attackers`, with its role.
#[inline]
fn least_valuable(pos: &Position, attackers: Bitboard) -> Option<(Square, Role)> {
    Role::ALL
        .into_iter()
        .find_map(|role| (attackers & pos.by_role(role)).first().map(|sq| (sq, role)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FenMode;

    fn see_of(fen: &str, uci: &str) -> i32 {
        let pos = Position::from_fen(fen, FenMode::Strict).unwrap();
        let mv = pos.parse_uci(uci).unwrap();
        see(&pos, mv)
    }

    #[test]
    fn exchanges() {
        // An undefended pawn.
        assert_eq!(
            see_of("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5"),
            100
        );
        // Knight takes a pawn defended by a pawn: loses the knight for a pawn.
        assert_eq!(
            see_of(
                "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1",
                "d3e5"
            ),
            100 - 320
        );
        // A quiet move to an attacked square loses the piece.
        assert_eq!(see_of("4k3/8/8/4p3/8/8/8/3RK3 w - - 0 1", "d1d4"), -500);
        // The king recaptures when the square is no longer defended: two rooks for the queen.
        assert_eq!(see_of("4k3/8/8/8/8/3r4/3r4/3QK3 w - - 0 1", "d1d2"), 50);
        // The king may not recapture onto a defended square (the rook on d8 behind the bishop).
        assert_eq!(see_of("3rk3/8/8/8/1b6/8/3r4/3RK3 w - - 0 1", "d1d2"), 0);
    }
}
