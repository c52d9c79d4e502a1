//! Small JSON shapes shared by several routes: a move in both notations, the history, and the
//! promotion names clients may send.

use chessd_core::{game::PlayedMove, Role};

use crate::game::Board;
use serde::{Deserialize, Serialize};

/// One move: UCI and SAN (and, in Chess 2, who played it and the position after it).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
pub(crate) struct MoveView {
    /// The move in UCI.
    pub uci: String,
    /// The move in SAN.
    pub san: String,
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
            uci: m.uci,
            san: m.san,
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
        Board::Chess(game) => game
            .notated_history()
            .into_iter()
            .map(MoveView::from)
            .collect(),
        Board::Chess2(game) => game
            .history()
            .iter()
            .map(|p| {
                let text = p.mv.to_string();
                MoveView {
                    uci: text.clone(),
                    san: text,
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
