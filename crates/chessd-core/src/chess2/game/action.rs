//! The steps of a Chess 2 game ([`Chess2Action`]): a move, the defender's challenge or
//! decline, and the hidden bids, each with a text form that reads back.

use std::{fmt, str::FromStr};

use crate::{
    chess2::{Chess2Move, MoveParseError},
    Color,
};

/// One step of a Chess 2 game, as a player takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chess2Action {
    /// A move by the side to move, without duel fields (the duels are their own steps).
    Move(Chess2Move),
    /// The defender starts a duel over the capture at stake.
    Challenge,
    /// The defender lets the capture at stake happen.
    Decline,
    /// A side's hidden bid in a duel.
    Bid {
        /// Who bids.
        by: Color,
        /// Stones bid, 0 to 2.
        stones: u8,
        /// For the attacker, when both bid 0: gain a stone (`true`) or take one from the
        /// defender (`false`); `None` for the default (gain, unless at the most stones).
        /// Only a bid of 0 keeps it (see [`Chess2Action::normalized`]).
        gain: Option<bool>,
    },
}

impl Chess2Action {
    /// The step as a game keeps and writes it: a bid of 1 or 2 stones rules out a 0–0 duel,
    /// so the choice for one is dropped (`bid:w:2+` is `bid:w:2`).
    pub fn normalized(self) -> Chess2Action {
        match self {
            Chess2Action::Bid { by, stones, .. } if stones > 0 => Chess2Action::Bid {
                by,
                stones,
                gain: None,
            },
            other => other,
        }
    }
}

/// Why a Chess 2 step text was not understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionParseError {
    /// A move string that does not parse.
    Move(MoveParseError),
    /// A bid that is not `bid:<w|b>:<0..2>` with an optional `+` or `-`.
    BadBid(String),
}

impl fmt::Display for ActionParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActionParseError::Move(e) => e.fmt(f),
            ActionParseError::BadBid(text) => write!(
                f,
                "'{text}' is not a bid: write bid:<w|b>:<0..2>, with + or - after 0 for the \
                 attacker"
            ),
        }
    }
}

impl std::error::Error for ActionParseError {}

impl FromStr for Chess2Action {
    type Err = ActionParseError;

    /// Reads `challenge`, `decline`, `bid:w:1`, `bid:b:0+` or a move string (`e2e4`). A bid of
    /// stones stored with a sign by older servers (`bid:w:2+`) reads as the bid alone.
    fn from_str(text: &str) -> Result<Chess2Action, ActionParseError> {
        match text {
            "challenge" => return Ok(Chess2Action::Challenge),
            "decline" => return Ok(Chess2Action::Decline),
            _ => {}
        }
        if let Some(rest) = text.strip_prefix("bid:") {
            return parse_bid(rest)
                .map(Chess2Action::normalized)
                .ok_or_else(|| ActionParseError::BadBid(text.to_string()));
        }
        text.parse()
            .map(Chess2Action::Move)
            .map_err(ActionParseError::Move)
    }
}

/// Reads what follows `bid:`: the side, `:`, the stones 0 to 2, then an optional `+` or `-`.
fn parse_bid(rest: &str) -> Option<Chess2Action> {
    let (side, amount) = rest.split_once(':')?;
    let by = match side {
        "w" => Color::White,
        "b" => Color::Black,
        _ => return None,
    };
    let (digit, gain) = match amount.as_bytes() {
        [d] => (*d, None),
        [d, b'+'] => (*d, Some(true)),
        [d, b'-'] => (*d, Some(false)),
        _ => return None,
    };
    if !(b'0'..=b'2').contains(&digit) {
        return None;
    }
    Some(Chess2Action::Bid {
        by,
        stones: digit - b'0',
        gain,
    })
}

impl fmt::Display for Chess2Action {
    /// Writes the step as a game stores it: a bid's `+` or `-` only after 0 (see
    /// [`Chess2Action::normalized`]), so that what is written always reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Chess2Action::Move(mv) => mv.fmt(f),
            Chess2Action::Challenge => f.write_str("challenge"),
            Chess2Action::Decline => f.write_str("decline"),
            Chess2Action::Bid { by, stones, gain } => {
                let side = if *by == Color::White { 'w' } else { 'b' };
                let sign = match gain {
                    Some(true) if *stones == 0 => "+",
                    Some(false) if *stones == 0 => "-",
                    _ => "",
                };
                write!(f, "bid:{side}:{stones}{sign}")
            }
        }
    }
}
