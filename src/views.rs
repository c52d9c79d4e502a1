//! JSON shapes of core values, shared by REST answers and WebSocket events.

use chessd_core::{
    game::{DrawPolicy, Game, GameResult, Reason, Status},
    Color, Role,
};
use serde::{Deserialize, Serialize};

/// A result as JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultView {
    /// The game goes on.
    Ongoing,
    /// White won.
    WhiteWins,
    /// Black won.
    BlackWins,
    /// Drawn.
    Draw,
}

/// Why a game ended, as JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonView {
    /// Checkmate.
    Checkmate,
    /// Stalemate.
    Stalemate,
    /// Neither side can mate.
    InsufficientMaterial,
    /// 100 half-moves without capture or pawn move (automatic policy) or claimed.
    FiftyMoves,
    /// Threefold repetition.
    ThreefoldRepetition,
    /// Fivefold repetition.
    FivefoldRepetition,
    /// 150 half-moves without capture or pawn move.
    SeventyFiveMoves,
    /// A side resigned.
    Resignation,
    /// A side ran out of time.
    Timeout,
    /// Both sides agreed to a draw.
    Agreement,
    /// Set by the admin.
    Manual,
}

impl From<Reason> for ReasonView {
    fn from(r: Reason) -> ReasonView {
        match r {
            Reason::Checkmate => ReasonView::Checkmate,
            Reason::Stalemate => ReasonView::Stalemate,
            Reason::InsufficientMaterial => ReasonView::InsufficientMaterial,
            Reason::FiftyMoves => ReasonView::FiftyMoves,
            Reason::ThreefoldRepetition => ReasonView::ThreefoldRepetition,
            Reason::FivefoldRepetition => ReasonView::FivefoldRepetition,
            Reason::SeventyFiveMoves => ReasonView::SeventyFiveMoves,
            Reason::Resignation => ReasonView::Resignation,
            Reason::Timeout => ReasonView::Timeout,
            Reason::Agreement => ReasonView::Agreement,
            Reason::Manual => ReasonView::Manual,
        }
    }
}

impl From<GameResult> for ResultView {
    fn from(r: GameResult) -> ResultView {
        match r {
            GameResult::Ongoing => ResultView::Ongoing,
            GameResult::WhiteWins => ResultView::WhiteWins,
            GameResult::BlackWins => ResultView::BlackWins,
            GameResult::Draw => ResultView::Draw,
        }
    }
}

/// `{"result": ..., "reason": ..., "note": ...}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusView {
    /// `ongoing`, `white_wins`, `black_wins` or `draw`.
    pub result: ResultView,
    /// Why the game ended, or null.
    pub reason: Option<ReasonView>,
    /// The text given with a manual draw or winner, or null.
    pub note: Option<String>,
}

impl From<&Status> for StatusView {
    fn from(s: &Status) -> StatusView {
        StatusView {
            result: s.result.into(),
            reason: s.reason.map(Into::into),
            note: s.note.clone(),
        }
    }
}

impl StatusView {
    /// The winner, if any.
    pub fn winner(&self) -> Option<Side> {
        match self.result {
            ResultView::WhiteWins => Some(Side::White),
            ResultView::BlackWins => Some(Side::Black),
            _ => None,
        }
    }
}

/// The JSON name of a result.
pub fn result_name(r: GameResult) -> &'static str {
    match r {
        GameResult::Ongoing => "ongoing",
        GameResult::WhiteWins => "white_wins",
        GameResult::BlackWins => "black_wins",
        GameResult::Draw => "draw",
    }
}

/// A colour as JSON (`"white"` / `"black"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// White.
    White,
    /// Black.
    Black,
}

impl From<Color> for Side {
    fn from(c: Color) -> Side {
        match c {
            Color::White => Side::White,
            Color::Black => Side::Black,
        }
    }
}

impl From<Side> for Color {
    fn from(s: Side) -> Color {
        match s {
            Side::White => Color::White,
            Side::Black => Color::Black,
        }
    }
}

/// The draw policy as JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum PolicyView {
    /// Threefold repetition and 100 half-moves end the game (Binbo's behaviour).
    #[default]
    Automatic,
    /// Threefold and fifty moves are claimable; fivefold and 75 moves end the game.
    Claims,
}

impl From<PolicyView> for DrawPolicy {
    fn from(p: PolicyView) -> DrawPolicy {
        match p {
            PolicyView::Automatic => DrawPolicy::Automatic,
            PolicyView::Claims => DrawPolicy::Claims,
        }
    }
}

impl From<DrawPolicy> for PolicyView {
    fn from(p: DrawPolicy) -> PolicyView {
        match p {
            DrawPolicy::Automatic => PolicyView::Automatic,
            DrawPolicy::Claims => PolicyView::Claims,
        }
    }
}

/// A promotion piece as JSON (`"q"`, `"r"`, `"b"`, `"n"`).
pub fn parse_promotion(text: &str) -> Option<Role> {
    match text {
        "q" | "Q" | "queen" => Some(Role::Queen),
        "r" | "R" | "rook" => Some(Role::Rook),
        "b" | "B" | "bishop" => Some(Role::Bishop),
        "n" | "N" | "knight" => Some(Role::Knight),
        _ => None,
    }
}

/// One move of the history.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct MoveView {
    /// The move in UCI.
    pub uci: String,
    /// The move in SAN.
    pub san: String,
}

/// The moves played so far.
pub fn history(game: &Game) -> Vec<MoveView> {
    game.history()
        .iter()
        .map(|m| MoveView {
            uci: m.uci.clone(),
            san: m.san.clone(),
        })
        .collect()
}
