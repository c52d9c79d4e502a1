//! Chess 2 steps ([`Chess2Action`]): each step is written with what the game allows at that
//! point, so the writer and the reader both replay the game.
//!
//! - No duel pending: a move, as its index among [`Chess2Game::legal_moves`] (generation
//!   order) in truncated binary over `n + 1` values; the value `n` escapes a move outside
//!   the list (an empty Whirlwind of a game stored under earlier rules), written as one bit
//!   (`1`: the pass `0000`) or `0`, from (6 bits), to (6 bits) and promotion (3 bits: none,
//!   knight, bishop, rook, queen).
//! - A duel waits for the defender: one bit, `1` challenge, `0` decline.
//! - A duel waits for bids: one bit for the bidder when both still owe a bid (`0` the
//!   defender), none otherwise; the bid's index among [`Chess2Game::allowed_bids`] in
//!   truncated binary; for a bid of 0, its choice: `0` none, `10` gain, `11` take.

use super::{
    universal::{read_truncated, write_truncated},
    BitReader, BitWriter, CodecError,
};
use crate::{
    chess2::{Chess2Action, Chess2Game, Chess2Move, Chess2Position, DuelStage},
    game::DrawPolicy,
    Color, Role, Square,
};

/// The promotion roles in the escape's 3-bit field, after 0 for none.
const PROMOTION_FIELD: [Role; 4] = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

/// What a step is written as, worked out before the game takes it.
enum Encoded {
    Move {
        index: u32,
        bound: u32,
        escape: Option<Chess2Move>,
    },
    Answer(bool),
    Bid {
        bidder: Option<bool>,
        index: u32,
        bound: u32,
        gain: Option<Option<bool>>,
    },
}

/// Writes the steps of a Chess 2 game, replaying them in its own copy of the game.
///
/// ```
/// use chessd_core::chess2::{Chess2Action, Chess2Game, Chess2Position};
/// use chessd_core::codec::{Chess2StepReader, Chess2StepWriter};
/// use chessd_core::game::DrawPolicy;
///
/// let start = Chess2Position::from_epd("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 cc 33").unwrap();
/// let game = Chess2Game::new(start, DrawPolicy::Automatic);
/// let mut writer = Chess2StepWriter::new(game.clone());
/// for step in ["e4d5", "challenge", "bid:b:1", "bid:w:0-"] {
///     writer.push(step.parse::<Chess2Action>().unwrap()).unwrap();
/// }
/// let bytes = writer.finish();
/// let mut reader = Chess2StepReader::new(game, &bytes, 4);
/// let steps: Vec<String> = reader.by_ref().map(|s| s.unwrap().to_string()).collect();
/// assert_eq!(steps, ["e4d5", "challenge", "bid:b:1", "bid:w:0-"]);
/// assert_eq!(reader.game().position().to_epd(), "4k3/8/8/8/8/8/8/4K3 b - - 0 1 cc 43");
/// ```
pub struct Chess2StepWriter {
    bits: BitWriter,
    game: Chess2Game,
}

impl Chess2StepWriter {
    /// A writer of the steps taken in `game` from now on (usually a new game).
    pub fn new(game: Chess2Game) -> Chess2StepWriter {
        Chess2StepWriter::with_bits(BitWriter::new(), game)
    }

    /// A writer that appends to `bits`.
    pub fn with_bits(bits: BitWriter, game: Chess2Game) -> Chess2StepWriter {
        Chess2StepWriter { bits, game }
    }

    /// The game after the steps written so far.
    pub fn game(&self) -> &Chess2Game {
        &self.game
    }

    /// Appends `step` ([normalized](Chess2Action::normalized)), as the game replays it
    /// ([`Chess2Game::replay`]); a step the game refuses is not written.
    pub fn push(&mut self, step: Chess2Action) -> Result<(), CodecError> {
        let step = step.normalized();
        let encoded = encode(&self.game, step)?;
        self.game.replay(step).map_err(CodecError::Refused)?;
        let w = &mut self.bits;
        match encoded {
            Encoded::Move {
                index,
                bound,
                escape,
            } => {
                write_truncated(w, index, bound);
                if let Some(mv) = escape {
                    write_escaped(w, mv);
                }
            }
            Encoded::Answer(challenge) => w.write_bit(challenge),
            Encoded::Bid {
                bidder,
                index,
                bound,
                gain,
            } => {
                if let Some(attacker) = bidder {
                    w.write_bit(attacker);
                }
                write_truncated(w, index, bound);
                if let Some(gain) = gain {
                    match gain {
                        None => w.write_bit(false),
                        Some(g) => w.write(if g { 0b10 } else { 0b11 }, 2),
                    }
                }
            }
        }
        Ok(())
    }

    /// How many bits have been written.
    pub fn len_bits(&self) -> usize {
        self.bits.len_bits()
    }

    /// The bits written, to append something else to.
    pub fn into_bits(self) -> BitWriter {
        self.bits
    }

    /// The bytes (the last one padded with zero bits).
    pub fn finish(self) -> Vec<u8> {
        self.bits.finish()
    }

    /// The game after the steps written, and the bits, to write on (after a step of
    /// something else).
    pub fn into_parts(self) -> (Chess2Game, BitWriter) {
        (self.game, self.bits)
    }
}

/// How `step` is written in `game` (before taking it); steps that cannot be written in this
/// state are refused as the game would refuse them.
fn encode(game: &Chess2Game, step: Chess2Action) -> Result<Encoded, CodecError> {
    let refused = |g: &Chess2Game| {
        let mut probe = g.clone();
        match probe.replay(step) {
            Err(e) => CodecError::Refused(e),
            // A step the game takes but this state cannot hold: not expected.
            Ok(_) => CodecError::Corrupt,
        }
    };
    let Some(pending) = game.pending_duel() else {
        let Chess2Action::Move(mv) = step else {
            return Err(refused(game));
        };
        let legal = game.legal_moves();
        let bound = legal.len() as u32 + 1;
        return Ok(match legal.iter().position(|&m| m == mv) {
            Some(i) => Encoded::Move {
                index: i as u32,
                bound,
                escape: None,
            },
            None => Encoded::Move {
                index: bound - 1,
                bound,
                escape: Some(mv),
            },
        });
    };
    match (pending.stage(), step) {
        (DuelStage::Challenge, Chess2Action::Challenge) => Ok(Encoded::Answer(true)),
        (DuelStage::Challenge, Chess2Action::Decline) => Ok(Encoded::Answer(false)),
        (DuelStage::Bids { .. }, Chess2Action::Bid { by, stones, gain }) => {
            let both =
                pending.awaits_bid_from(Color::White) && pending.awaits_bid_from(Color::Black);
            let allowed = game.allowed_bids(by);
            let index = allowed
                .iter()
                .position(|&b| b == stones)
                .ok_or_else(|| refused(game))?;
            Ok(Encoded::Bid {
                bidder: both.then_some(by == pending.attacker()),
                index: index as u32,
                bound: allowed.len() as u32,
                gain: (stones == 0).then_some(gain),
            })
        }
        _ => Err(refused(game)),
    }
}

/// Writes a move outside the legal list.
fn write_escaped(w: &mut BitWriter, mv: Chess2Move) {
    match mv {
        Chess2Move::Pass => w.write_bit(true),
        Chess2Move::Play {
            from,
            to,
            promotion,
            ..
        } => {
            w.write_bit(false);
            w.write(from.index() as u64, 6);
            w.write(to.index() as u64, 6);
            let field = promotion
                .and_then(|r| PROMOTION_FIELD.iter().position(|&p| p == r))
                .map_or(0, |i| i + 1);
            w.write(field as u64, 3);
        }
    }
}

/// Reads a move written by [`write_escaped`].
fn read_escaped(r: &mut BitReader<'_>) -> Result<Chess2Move, CodecError> {
    if r.read_bit()? {
        return Ok(Chess2Move::Pass);
    }
    let from = Square::new(r.read(6)? as u32);
    let to = Square::new(r.read(6)? as u32);
    let promotion = match r.read(3)? as usize {
        0 => None,
        i @ 1..=4 => Some(PROMOTION_FIELD[i - 1]),
        _ => return Err(CodecError::Corrupt),
    };
    Ok(Chess2Move::new(from, to, promotion))
}

/// Reads a known number of Chess 2 steps, replaying them: an iterator of steps, with
/// [`Chess2StepReader::game`] the game after the last one read. After an error it ends.
pub struct Chess2StepReader<'a> {
    bits: BitReader<'a>,
    game: Chess2Game,
    left: usize,
}

impl<'a> Chess2StepReader<'a> {
    /// A reader of `count` steps taken in `game` (usually a new game), encoded in `bytes`.
    pub fn new(game: Chess2Game, bytes: &'a [u8], count: usize) -> Chess2StepReader<'a> {
        Chess2StepReader::from_bits(game, BitReader::new(bytes), count)
    }

    /// A reader of `count` steps taken in `game`, read from `bits` on.
    pub fn from_bits(game: Chess2Game, bits: BitReader<'a>, count: usize) -> Chess2StepReader<'a> {
        Chess2StepReader {
            bits,
            game,
            left: count,
        }
    }

    /// The game after the steps read so far.
    pub fn game(&self) -> &Chess2Game {
        &self.game
    }

    /// The game after the steps read so far, kept.
    pub fn into_game(self) -> Chess2Game {
        self.game
    }

    /// The bits after the steps read so far (and the game), to read on.
    pub fn into_parts(self) -> (Chess2Game, BitReader<'a>) {
        (self.game, self.bits)
    }

    /// Reads the next step and takes it.
    fn read_step(&mut self) -> Result<Chess2Action, CodecError> {
        let r = &mut self.bits;
        let game = &self.game;
        let step = match game.pending_duel() {
            None => {
                let legal = game.legal_moves();
                let bound = legal.len() as u32 + 1;
                let index = read_truncated(r, bound)? as usize;
                Chess2Action::Move(match legal.get(index) {
                    Some(&mv) => mv,
                    None => read_escaped(r)?,
                })
            }
            Some(pending) => match pending.stage() {
                DuelStage::Challenge => {
                    if r.read_bit()? {
                        Chess2Action::Challenge
                    } else {
                        Chess2Action::Decline
                    }
                }
                DuelStage::Bids { .. } => {
                    let attacker = pending.attacker();
                    let by = match (
                        pending.awaits_bid_from(attacker),
                        pending.awaits_bid_from(!attacker),
                    ) {
                        (true, true) if r.read_bit()? => attacker,
                        (true, true) | (false, true) => !attacker,
                        (true, false) => attacker,
                        (false, false) => return Err(CodecError::Corrupt),
                    };
                    let allowed = game.allowed_bids(by);
                    if allowed.is_empty() {
                        return Err(CodecError::Corrupt);
                    }
                    let stones = allowed[read_truncated(r, allowed.len() as u32)? as usize];
                    let gain = if stones > 0 || !r.read_bit()? {
                        None
                    } else {
                        Some(!r.read_bit()?)
                    };
                    Chess2Action::Bid { by, stones, gain }
                }
            },
        };
        self.game.replay(step).map_err(CodecError::Refused)?;
        Ok(step)
    }
}

impl Iterator for Chess2StepReader<'_> {
    type Item = Result<Chess2Action, CodecError>;

    fn next(&mut self) -> Option<Result<Chess2Action, CodecError>> {
        if self.left == 0 {
            return None;
        }
        let result = self.read_step();
        self.left = if result.is_ok() { self.left - 1 } else { 0 };
        Some(result)
    }
}

/// Every step of `game` from its start position, encoded.
pub fn encode_chess2(game: &Chess2Game) -> Result<Vec<u8>, CodecError> {
    let start = Chess2Game::new(*game.start_position(), game.policy());
    let mut writer = Chess2StepWriter::new(start);
    for &step in game.steps() {
        writer.push(step)?;
    }
    Ok(writer.finish())
}

/// The game of `count` steps encoded in `bytes` from `start` under `policy`; bytes that hold
/// more than those steps are refused.
pub fn decode_chess2(
    start: Chess2Position,
    policy: DrawPolicy,
    bytes: &[u8],
    count: usize,
) -> Result<Chess2Game, CodecError> {
    let mut reader = Chess2StepReader::new(Chess2Game::new(start, policy), bytes, count);
    for step in reader.by_ref() {
        step?;
    }
    let (game, bits) = reader.into_parts();
    bits.expect_end()?;
    Ok(game)
}
