//! Chess 2 move strings, as the Go engine CGamesPlay/chess2 writes them: UCI-like squares, a
//! promotion letter, then one `:`-separated field per duel of the move.
//!
//! A duel field is empty (the defender did not duel), one digit (the defender's challenge,
//! not yet answered), or two digits (challenge and answer); an answer of 0 is followed by `+`
//! (the attacker, having called a bluff or lost, gains a stone when both bid 0) or `-` (the
//! defender loses one instead). A Whirlwind is written as a move to its own square (`e1e1`),
//! a pass in a king turn as `0000`. At most three duels (an Elephant's rampage); only the
//! last may be unanswered.

use std::{fmt, str::FromStr};

use crate::{Role, Square};

/// The most duels one move can have (an Elephant's rampage over three squares).
const MAX_DUELS: usize = 3;

/// One duel of a move, from the defender's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Duel {
    /// The defender's challenge (0..=2), or `None` when the defender did not duel.
    challenge: Option<u8>,
    /// The attacker's answer (0..=2), once given.
    response: Option<u8>,
    /// With an answer of 0: whether the attacker gains a stone (`+`) rather than the
    /// defender losing one (`-`).
    gain: bool,
}

impl Duel {
    /// No duel: the defender let the capture happen.
    pub const DECLINED: Duel = Duel {
        challenge: None,
        response: None,
        gain: false,
    };

    /// A challenge of `bid` stones, not yet answered; `None` if `bid > 2`.
    pub const fn challenged(bid: u8) -> Option<Duel> {
        if bid > 2 {
            return None;
        }
        Some(Duel {
            challenge: Some(bid),
            response: None,
            gain: false,
        })
    }

    /// A challenge of `challenge` answered with `response` stones; `gain` matters only for an
    /// answer of 0 (see [`Duel::gains_stone`]). `None` if a bid is over 2.
    pub const fn answered(challenge: u8, response: u8, gain: bool) -> Option<Duel> {
        if challenge > 2 || response > 2 {
            return None;
        }
        Some(Duel {
            challenge: Some(challenge),
            response: Some(response),
            gain: gain && response == 0,
        })
    }

    /// Whether the defender started a duel.
    pub const fn is_started(&self) -> bool {
        self.challenge.is_some()
    }

    /// Whether the attacker has answered.
    pub const fn is_complete(&self) -> bool {
        self.response.is_some()
    }

    /// The defender's bid (0 when no duel was started).
    pub const fn challenge(&self) -> u8 {
        match self.challenge {
            Some(bid) => bid,
            None => 0,
        }
    }

    /// The attacker's bid, once given.
    pub const fn response(&self) -> Option<u8> {
        self.response
    }

    /// With an answer of 0: whether the attacker chose to gain a stone (`+`) rather than take
    /// one from the defender (`-`).
    pub const fn gains_stone(&self) -> bool {
        self.gain
    }
}

impl fmt::Display for Duel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(challenge) = self.challenge {
            write!(f, "{challenge}")?;
        }
        if let Some(response) = self.response {
            write!(f, "{response}")?;
            if response == 0 {
                f.write_str(if self.gain { "+" } else { "-" })?;
            }
        }
        Ok(())
    }
}

/// A Chess 2 move with the duels it led to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Chess2Move {
    /// A pass, allowed only in a Two Kings king turn (`0000`).
    Pass,
    /// A piece's move (a Whirlwind when `from == to`).
    Play {
        /// The square moved from.
        from: Square,
        /// The square moved to.
        to: Square,
        /// The promotion piece, read in the promoting side's army.
        promotion: Option<Role>,
        /// The duels, in the order of the pieces taken; [`Duel::DECLINED`] past `duel_count`.
        duels: [Duel; MAX_DUELS],
        /// How many duel fields the move string has.
        duel_count: u8,
    },
}

impl Chess2Move {
    /// A move without duel fields.
    pub const fn new(from: Square, to: Square, promotion: Option<Role>) -> Chess2Move {
        Chess2Move::Play {
            from,
            to,
            promotion,
            duels: [Duel::DECLINED; MAX_DUELS],
            duel_count: 0,
        }
    }

    /// The duel fields of the move (empty for a pass).
    pub fn duels(&self) -> &[Duel] {
        match self {
            Chess2Move::Pass => &[],
            Chess2Move::Play {
                duels, duel_count, ..
            } => &duels[..usize::from(*duel_count)],
        }
    }

    /// The same move with these duel fields (at most three; only the last may be unanswered),
    /// or `None` if they do not fit or this is a pass.
    pub fn with_duels(self, list: &[Duel]) -> Option<Chess2Move> {
        let Chess2Move::Play {
            from,
            to,
            promotion,
            ..
        } = self
        else {
            return None;
        };
        if list.len() > MAX_DUELS
            || list
                .iter()
                .rev()
                .skip(1)
                .any(|d| d.is_started() && !d.is_complete())
        {
            return None;
        }
        let mut duels = [Duel::DECLINED; MAX_DUELS];
        duels[..list.len()].copy_from_slice(list);
        Some(Chess2Move::Play {
            from,
            to,
            promotion,
            duels,
            duel_count: list.len() as u8,
        })
    }
}

/// Why a Chess 2 move string was not understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveParseError {
    /// The squares are not two squares such as `e2e4` (or the pass `0000`).
    BadSquares(String),
    /// The promotion letter is not one of `q r b n` (either case).
    BadPromotion(char),
    /// A duel field is not empty, a bid 0..2, or two bids with `+`/`-` after an answer of 0.
    BadDuel(String),
    /// More than three duel fields, or an unanswered duel before the last field.
    TooManyDuels,
    /// Drop moves (`p@e4`) set up boards in the Go engine; they are not moves of a game.
    Drop,
}

impl fmt::Display for MoveParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveParseError::BadSquares(s) => {
                write!(f, "'{s}' is not a move such as e2e4, e7e8q:12 or 0000")
            }
            MoveParseError::BadPromotion(c) => {
                write!(f, "'{c}' is not a promotion letter (q, r, b or n)")
            }
            MoveParseError::BadDuel(s) => write!(
                f,
                "'{s}' is not a duel field (empty, a challenge 0-2, or challenge and answer, \
                 with + or - after an answer of 0)"
            ),
            MoveParseError::TooManyDuels => {
                f.write_str("a move has at most three duels, and only the last may be unanswered")
            }
            MoveParseError::Drop => f.write_str("drop moves are not moves of a game"),
        }
    }
}

impl std::error::Error for MoveParseError {}

impl FromStr for Chess2Move {
    type Err = MoveParseError;

    fn from_str(s: &str) -> Result<Chess2Move, MoveParseError> {
        if s == "0000" {
            return Ok(Chess2Move::Pass);
        }
        if s.contains('@') {
            return Err(MoveParseError::Drop);
        }
        let (head, duel_text) = match s.split_once(':') {
            Some((head, rest)) => (head, Some(rest)),
            None => (s, None),
        };
        let bad_squares = || MoveParseError::BadSquares(head.to_string());
        let (from, to) = match (head.get(0..2), head.get(2..4)) {
            (Some(from), Some(to)) => (
                from.parse::<Square>().map_err(|_| bad_squares())?,
                to.parse::<Square>().map_err(|_| bad_squares())?,
            ),
            _ => return Err(bad_squares()),
        };
        let promotion = match head.get(4..) {
            Some("") => None,
            Some(letter) => {
                let mut chars = letter.chars();
                let c = chars.next().ok_or_else(bad_squares)?;
                if chars.next().is_some() {
                    return Err(bad_squares());
                }
                match Role::from_char(c.to_ascii_lowercase()) {
                    Some(role @ (Role::Queen | Role::Rook | Role::Bishop | Role::Knight)) => {
                        Some(role)
                    }
                    _ => return Err(MoveParseError::BadPromotion(c)),
                }
            }
            None => return Err(bad_squares()),
        };
        let mut duels = Vec::new();
        if let Some(text) = duel_text {
            for field in text.split(':') {
                duels.push(parse_duel(field)?);
            }
        }
        Chess2Move::new(from, to, promotion)
            .with_duels(&duels)
            .ok_or(MoveParseError::TooManyDuels)
    }
}

/// One duel field.
fn parse_duel(field: &str) -> Result<Duel, MoveParseError> {
    let bad = || MoveParseError::BadDuel(field.to_string());
    let bid = |c: u8| match c {
        b'0'..=b'2' => Ok(c - b'0'),
        _ => Err(bad()),
    };
    match field.as_bytes() {
        [] => Ok(Duel::DECLINED),
        [c] => Ok(Duel::challenged(bid(*c)?).ok_or_else(bad)?),
        [c, r] if *r != b'0' => Ok(Duel::answered(bid(*c)?, bid(*r)?, false).ok_or_else(bad)?),
        [c, b'0', sign @ (b'+' | b'-')] => {
            Ok(Duel::answered(bid(*c)?, 0, *sign == b'+').ok_or_else(bad)?)
        }
        _ => Err(bad()),
    }
}

impl fmt::Display for Chess2Move {
    /// The Go engine's form; a promotion letter is written in upper case, as that engine
    /// lists its legal moves (clients send back what they were given).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Chess2Move::Pass => f.write_str("0000"),
            Chess2Move::Play {
                from,
                to,
                promotion,
                ..
            } => {
                write!(f, "{from}{to}")?;
                if let Some(role) = promotion {
                    write!(f, "{}", role.upper_char())?;
                }
                for duel in self.duels() {
                    write!(f, ":{duel}")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(s: &str) -> Chess2Move {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn the_go_engines_forms_round_trip() {
        for s in [
            "d2d4",
            "0000",
            "e1e1",
            "e7a7:10+",
            "a4d4:21",
            "a8d8::10+",
            "a7a8Q:22",
            "b5e8:1",
            "h1h4:00-:12:2",
            "c2c4:",
        ] {
            assert_eq!(mv(s).to_string(), s);
        }
        // A lower-case promotion is read, and written as the Go engine writes it.
        assert_eq!(mv("e7e8n").to_string(), "e7e8N");
    }

    #[test]
    fn duel_fields_read_back() {
        let m = mv("a8d8::10+:2");
        let duels = m.duels();
        assert_eq!(duels.len(), 3);
        assert!(!duels[0].is_started());
        assert_eq!(
            (
                duels[1].challenge(),
                duels[1].response(),
                duels[1].gains_stone()
            ),
            (1, Some(0), true)
        );
        assert!(duels[2].is_started() && !duels[2].is_complete());
        assert_eq!(duels[2].challenge(), 2);
        assert_eq!(mv("e2e4").duels(), &[]);
        assert_eq!(Chess2Move::Pass.duels(), &[]);
        let Chess2Move::Play { promotion, .. } = mv("a2a1r") else {
            panic!("not a play")
        };
        assert_eq!(promotion, Some(Role::Rook));
    }

    #[test]
    fn bad_strings_say_what_is_wrong() {
        let bad = |s: &str| s.parse::<Chess2Move>().unwrap_err();
        assert_eq!(bad("e2"), MoveParseError::BadSquares("e2".into()));
        assert_eq!(bad("e2e9"), MoveParseError::BadSquares("e2e9".into()));
        assert_eq!(bad("e7e8qq"), MoveParseError::BadSquares("e7e8qq".into()));
        assert_eq!(bad("e7e8k"), MoveParseError::BadPromotion('k'));
        assert_eq!(bad("e7e8p"), MoveParseError::BadPromotion('p'));
        assert_eq!(bad("e2e4:3"), MoveParseError::BadDuel("3".into()));
        assert_eq!(bad("e2e4:10"), MoveParseError::BadDuel("10".into()));
        assert_eq!(bad("e2e4:12+"), MoveParseError::BadDuel("12+".into()));
        assert_eq!(bad("e2e4:00*"), MoveParseError::BadDuel("00*".into()));
        assert_eq!(bad("e2e4:1:12"), MoveParseError::TooManyDuels);
        assert_eq!(bad("e2e4::::"), MoveParseError::TooManyDuels);
        assert_eq!(bad("p@e4"), MoveParseError::Drop);
        assert!(!bad("").to_string().is_empty());
    }

    #[test]
    fn duel_constructors_check_their_bids() {
        assert_eq!(Duel::challenged(3), None);
        assert_eq!(Duel::answered(1, 3, false), None);
        // The gain flag only means something after an answer of 0.
        assert_eq!(Duel::answered(1, 2, true), Duel::answered(1, 2, false));
        assert_eq!(Duel::answered(2, 0, true).unwrap().to_string(), "20+");
        assert_eq!(Duel::DECLINED.to_string(), "");
    }
}
