//! Small JSON shapes shared by several routes: a move in both notations, the history, and the
//! promotion names clients may send.

use chessd_core::{game::PlayedMove, Role};
use compact_str::CompactString;

use crate::game::{move_text::MoveText, Board};
use serde::{Deserialize, Serialize};

/// One move: UCI and SAN (and, in Chess 2, who played it and the position after it). A chess
/// move's notations are short enough to be held inline: a history costs no allocation a move.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
pub(crate) struct MoveView {
    /// The move in UCI.
    #[schema(value_type = String)]
    pub uci: CompactString,
    /// The move in SAN.
    #[schema(value_type = String)]
    pub san: CompactString,
    /// Chess 2 only: the side that played the move (`white` or `black`; a Two Kings side may
    /// play twice in a row, so the ply does not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// Chess 2 only: the position after the move, in EPD (clients step through the game with it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epd: Option<String>,
}

impl From<PlayedMove> for MoveView {
    fn from(m: PlayedMove) -> MoveView {
        MoveView {
            uci: m.uci.into(),
            san: m.san.into(),
            by: None,
            epd: None,
        }
    }
}

impl From<&PlayedMove> for MoveView {
    fn from(m: &PlayedMove) -> MoveView {
        MoveView::from(m.clone())
    }
}

/// The moves played so far. A Chess 2 move shows its Go engine move string, duel fields
/// included, as both `uci` and `san` (Chess 2 has no SAN), with the side that played it and
/// the position after it.
pub(crate) fn history(board: &Board) -> Vec<MoveView> {
    match board {
        Board::Chess(game) => game.history_with_san(|pos, mv, san| {
            let mut uci = MoveText::default();
            pos.append_uci(mv, &mut uci);
            MoveView {
                uci: uci.to_compact(),
                san: CompactString::from(san),
                by: None,
                epd: None,
            }
        }),
        Board::Chess2(game) => game
            .history()
            .iter()
            .map(|p| {
                let text = p.mv.to_string();
                MoveView {
                    uci: text.as_str().into(),
                    san: text.into(),
                    by: Some(p.by.name().to_string()),
                    epd: Some(p.epd.clone()),
                }
            })
            .collect(),
    }
}

/// A promotion piece as clients send it (`"q"`, `"r"`, `"b"`, `"n"`, or the piece's name).
pub(crate) fn parse_promotion(text: &str) -> Option<Role> {
    match text {
        "q" | "Q" | "queen" => Some(Role::Queen),
        "r" | "R" | "rook" => Some(Role::Rook),
        "b" | "B" | "bishop" => Some(Role::Bishop),
        "n" | "N" | "knight" => Some(Role::Knight),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        allocations::counted,
        test_games::{random_game, Rng},
    };

    /// A game's history, as a game view and an export write it, is written (and serialised)
    /// without an allocation a move: four times the moves, a few allocations more (vectors
    /// doubling).
    #[test]
    fn a_history_allocates_nothing_a_move() {
        let made = |plies: usize| {
            let game = random_game(&mut Rng(0x9E37_79B9_7F4A_7C15), plies);
            let board = Board::Chess(game.clone());
            let (json, made) = counted(|| serde_json::to_vec(&history(&board)).unwrap());
            let moves: Vec<MoveView> = serde_json::from_slice(&json).unwrap();
            assert_eq!(moves.len(), plies);
            // Each move's SAN as `Position::san` writes it, move by move.
            let mut pos = *game.start_position();
            let expected: Vec<MoveView> = game
                .history()
                .iter()
                .map(|&mv| {
                    let played = PlayedMove::new(&pos, mv);
                    pos.play_unchecked(mv);
                    MoveView::from(&played)
                })
                .collect();
            assert_eq!(moves, expected);
            made
        };
        let (short, long) = (made(40), made(160));
        assert!(
            long <= short + 12,
            "{short} allocations for 40 plies, {long} for 160"
        );
    }
}
