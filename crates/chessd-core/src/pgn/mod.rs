//! PGN: reading (streaming, game by game, with comments, NAGs and nested variations) and
//! writing (export format, wrapped at 80 columns).
//!
//! The main line of each game is played on a [`Game`], so the result of reading includes the
//! game's status (checkmate, draw by the fifty-move rule, …). Variations are checked against
//! the position they branch from and kept as a tree. An error in one game is reported with
//! the game number, the ply and the token, and reading goes on with the next game.
//!
//! ```
//! use chessd_core::pgn::PgnReader;
//! use chessd_core::game::{GameResult, Reason};
//!
//! let pgn = r#"[Event "Example"]
//! [Result "1-0"]
//!
//! 1. e4 e5 2. Bc4 {Italian} Nc6 (2... Nf6 3. d3) 3. Qh5 Nf6?? $4 4. Qxf7# 1-0
//! "#;
//! let game = PgnReader::new(pgn).next().unwrap().unwrap();
//! assert_eq!(game.tag("Event"), Some("Example"));
//! assert_eq!(game.moves.len(), 7);
//! assert_eq!(game.moves[2].comments, ["Italian"]);
//! assert_eq!(game.moves[3].variations[0].moves[1].san, "d3");
//! assert_eq!(game.moves[5].nags, [4, 4]);
//! assert_eq!(game.game.status().reason, Some(Reason::Checkmate));
//! assert_eq!(game.result, Some(GameResult::WhiteWins));
//!
//! let text = game.to_pgn();
//! assert!(text.contains("1. e4 e5 2. Bc4 { Italian } 2... Nc6 ( 2... Nf6 3. d3 ) 3. Qh5"));
//! ```

mod builder;
mod error;
mod lexer;
mod reader;
mod setup;
mod writer;

use std::fmt;

pub use error::{PgnError, PgnErrorKind};
pub use reader::{PgnParser, PgnReader};
pub use setup::variant_is_chess960;
pub use writer::{write_chess2_game, write_game, write_noted_game, write_played_game, LINE_WIDTH};

use crate::{
    game::{Game, GameResult},
    Move, Position,
};

/// How deep variations may nest; deeper nesting is an error
/// ([`PgnErrorKind::VariationTooDeep`]).
pub const MAX_VARIATION_DEPTH: usize = 100;

/// One game read from PGN.
#[derive(Clone, Debug)]
pub struct PgnGame {
    /// The game's number in the input, from 1 (0 for a game made with
    /// [`PgnGame::from_game`]).
    pub number: usize,
    /// The tag pairs in the order they were written.
    pub tags: Vec<(String, String)>,
    /// The position the game starts from (from `[FEN]`, Chess960 if `[Variant]` says so).
    pub start: Position,
    /// Comments before the first move.
    pub prelude: Vec<String>,
    /// The main line.
    pub moves: Vec<PgnMove>,
    /// The result token at the end of the movetext, if there was one.
    pub result: Option<GameResult>,
    /// The main line played from the start position: history with SAN, final position and
    /// status. The status comes from the rules only (checkmate, automatic draws); a result
    /// written in the PGN, such as a resignation, is in [`PgnGame::result`].
    pub game: Game,
}

/// A move of a line, with what was written about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnMove {
    /// The move.
    pub mv: Move,
    /// Its SAN in the position it was played from, as this library writes it (whatever the
    /// lenient form in the input).
    pub san: String,
    /// Numeric annotation glyphs; suffixes are stored as their NAGs (`!` 1, `?` 2, `!!` 3,
    /// `??` 4, `!?` 5, `?!` 6).
    pub nags: Vec<u8>,
    /// Comments written after the move, trimmed.
    pub comments: Vec<String>,
    /// Alternatives to this move, each starting from the position before it.
    pub variations: Vec<Variation>,
}

/// A variation: a line of play replacing a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variation {
    /// Comments before the variation's first move.
    pub prelude: Vec<String>,
    /// The variation's moves (the first replaces the move the variation belongs to).
    pub moves: Vec<PgnMove>,
}

impl PgnGame {
    /// The value of the last tag called `name` (compared ignoring ASCII case).
    pub fn tag(&self, name: &str) -> Option<&str> {
        setup::find_tag(&self.tags, name)
    }

    /// The position after the main line.
    pub fn position(&self) -> &Position {
        self.game.position()
    }

    /// A PGN game for a played game: its moves and status, with `tags` (the seven-tag roster
    /// is completed when written; the result comes from the game's status).
    pub fn from_game(game: &Game, tags: Vec<(String, String)>) -> PgnGame {
        PgnGame {
            number: 0,
            tags,
            start: *game.start_position(),
            prelude: Vec::new(),
            // SAN only (a move's UCI text is not written): one string a move.
            moves: game
                .history()
                .iter()
                .zip(game.san_history())
                .map(|(&mv, san)| PgnMove {
                    mv,
                    san,
                    nags: Vec::new(),
                    comments: Vec::new(),
                    variations: Vec::new(),
                })
                .collect(),
            result: Some(game.status().result),
            game: game.clone(),
        }
    }

    /// The game in PGN export format (see [`write_game`]).
    pub fn to_pgn(&self) -> String {
        write_game(self)
    }
}

impl fmt::Display for PgnGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_pgn())
    }
}

/// Reads the first game of `text`.
pub fn read_game(text: &str) -> Result<PgnGame, PgnError> {
    PgnReader::new(text).next().unwrap_or(Err(PgnError {
        game: 1,
        ply: None,
        token: None,
        line: 0,
        kind: PgnErrorKind::NoGame,
    }))
}
