//! Chess 2 (David Sirlin's, rules version 2.4): six armies, duels with stones, midline
//! invasion. This module is the pure rules layer for the `chess2` variant, apart from the
//! standard [`Position`](crate::Position), whose invariants (one king a side, no duels) it
//! does not share. `docs/chess2.md` gives the rules as chessd plays them and where they
//! differ from the Go engine CGamesPlay/chess2, whose notation this module speaks.
//!
//! So far: the armies, positions in the Go engine's EPD (a FEN, then the two armies and the
//! two stone counts), its move strings with duels, and, for every army, legal moves, move
//! making (every capture succeeding, as in perft), the Two Kings' king turn, threats,
//! midline invasion and [`perft`]; [`Chess2Position::play`] plays a move with its duels, and
//! [`Chess2Position::outcome`] says how a game has ended; [`Chess2Game`] is a game whose duels
//! are steps of their own (challenge, then hidden bids).
//!
//! ```
//! use chessd_core::chess2::{Army, Chess2Move, Chess2Position};
//!
//! let pos = Chess2Position::from_epd("rnbkkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ck 33")
//!     .unwrap();
//! assert_eq!(pos.armies(), [Army::Classic, Army::TwoKings]);
//! assert_eq!(pos.to_epd(), "rnbkkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ck 33");
//!
//! let mv: Chess2Move = "b5e8:12".parse().unwrap();
//! assert_eq!(mv.duels()[0].challenge(), 1);
//! assert_eq!(mv.to_string(), "b5e8:12");
//! ```

mod army;
pub mod bot;
mod duel;
mod epd;
mod game;
mod movegen;
mod notation;

pub use army::Army;
pub use duel::{duel_rank, Chess2Outcome, PlayError};
pub use epd::{Chess2Position, EpdError, MAX_STONES};
pub use game::{
    ActionParseError, Chess2Action, Chess2Game, Chess2GameError, Chess2Played, DuelStage,
    DuelTerms, PendingDuel,
};
pub use movegen::perft;
pub use notation::{Chess2Move, Duel, MoveParseError};
