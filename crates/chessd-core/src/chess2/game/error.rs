//! Why a step of a Chess 2 game is refused ([`Chess2GameError`]).

use std::fmt;

use crate::{chess2::PlayError, game::Status, Color};

/// Why a step of a Chess 2 game is refused (the game is unchanged).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chess2GameError {
    /// The game is over.
    GameOver(Status),
    /// The game already has a result.
    AlreadyHasStatus(Status),
    /// The move cannot be played.
    Play(PlayError),
    /// A move sent with duel fields: in a game, duels are their own steps.
    DuelFieldsInGame,
    /// A move while a duel waits to be settled.
    DuelPending,
    /// A duel step with no duel waiting for it.
    NoDuel,
    /// The step is not this side's to take now.
    NotYourStep(Color),
    /// A side has already bid in this duel.
    AlreadyBid(Color),
    /// A bid this side may not make (its stones, or the rule that makes a defender facing an
    /// attacker without stones bid 1).
    BadBid {
        /// The bid.
        stones: u8,
        /// The bids allowed.
        allowed: Vec<u8>,
    },
    /// No draw can be claimed.
    NothingToClaim,
    /// A bid made for no named side (by someone who holds no seat: the game's admin).
    BidSideMissing,
}

impl fmt::Display for Chess2GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Chess2GameError::GameOver(status) => write!(f, "the game is over ({status})"),
            Chess2GameError::AlreadyHasStatus(status) => {
                write!(f, "the game already has a result ({status})")
            }
            Chess2GameError::Play(e) => e.fmt(f),
            Chess2GameError::DuelFieldsInGame => f.write_str(
                "send the move without duel fields: in a game the defender challenges and both \
                 sides bid as steps of their own",
            ),
            Chess2GameError::DuelPending => {
                f.write_str("a duel waits to be settled: challenge, decline or bid first")
            }
            Chess2GameError::NoDuel => f.write_str("no duel is waiting for this step"),
            Chess2GameError::NotYourStep(color) => {
                write!(f, "this step is not {color}'s to take now")
            }
            Chess2GameError::AlreadyBid(color) => write!(f, "{color} has already bid"),
            Chess2GameError::BadBid { stones, allowed } => {
                write!(
                    f,
                    "a bid of {stones} is not allowed here; allowed: {allowed:?}"
                )
            }
            Chess2GameError::BidSideMissing => {
                f.write_str("name the side that bids (side): only a seat bids for itself")
            }
            Chess2GameError::NothingToClaim => {
                f.write_str("no draw can be claimed (no threefold repetition or fifty-move rule)")
            }
        }
    }
}

impl std::error::Error for Chess2GameError {}
