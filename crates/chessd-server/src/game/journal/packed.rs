//! A game's journal packed into one record: how it was created, its options and every entry,
//! in a few bits a move (the store keeps a game that left memory this way, see
//! `game::packing`).
//!
//! One bitstream, most significant bit first:
//!
//! 1. the format (8 bits, [`FORMAT`]);
//! 2. the setup: plain (variant, start position unless it is the standard one, draw
//!    policy, clocks, the number of moves it holds) or, for anything rarer (a result set, a
//!    draw offer), its JSON;
//! 3. the options when the record holds them: plain (timeouts, time control, draw policy) or
//!    JSON when the game has a webhook or engines;
//! 4. the journal: its number of entries (versions 1 to n, so no version is written) and
//!    the entries that are not moves, each after the number of moves before it: a draw
//!    offer or refusal in 3 bits, an end in about a byte plus its clocks, anything else
//!    (a re-initialisation) as its JSON;
//! 5. the moves, the setup's then the journal's, each by its rank among the legal moves
//!    (`chessd_core::codec`); Chess 2 steps by their index;
//! 6. in a timed game, the clocks after each journal move, as the time the mover spent, in
//!    centiseconds when every time is a whole number of them (a finished game's clocks,
//!    rounded by [`to_centiseconds`]), else in milliseconds.
//!
//! [`pack`] refuses a journal it cannot give back exactly (it reads its record back to check),
//! so a record always reads back as the journal it was made from.

use chessd_core::{
    chess2::{Chess2Action, Chess2Game, Chess2Position},
    codec::{
        read_exp_golomb, write_exp_golomb, BitReader, BitWriter, Chess2StepReader,
        Chess2StepWriter, ClockReader, ClockWriter, CodecError, MoveReader, MoveWriter,
        TimeControl as CodecTimeControl,
    },
    game::{DrawPolicy, GameResult, Reason, Status},
    Color, FenMode, Position,
};

use compact_str::{CompactString, ToCompactString};

use super::{setup_text, Decoded, Entry, StoredOptions};
use crate::game::{
    board::Board,
    clock::TimeControl,
    move_text::MoveText,
    state::{SavedClock, SavedState, CHESS2, STATE_FORMAT},
};

/// The record's format.
pub const FORMAT: u64 = 1;

/// Why a journal was not packed, or a record not read.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// The bits are not a record.
    #[error("packed journal: {0}")]
    Codec(#[from] CodecError),
    /// The journal cannot be packed (it stays as it is).
    #[error("the journal cannot be packed: {0}")]
    Unpackable(String),
    /// The record reads as something no journal holds.
    #[error("packed journal: {0}")]
    Corrupt(String),
}

/// A journal read back from its record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unpacked {
    /// How the game was created.
    pub setup: SavedState,
    /// Its options, when the record holds them.
    pub options: Option<StoredOptions>,
    /// Its entries, by version from 1.
    pub entries: Vec<(u64, Entry)>,
    /// When read for [`Reading::Export`]: the SAN of each move of the game, its setup's
    /// moves then the journal's, in order. Only for a chess game whose journal neither takes
    /// moves back nor re-initialises the game, so that they are the SAN of the replayed game's
    /// moves (`None` otherwise).
    pub sans: Option<Vec<CompactString>>,
}

/// What a record is read for ([`unpack_with`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// Bringing the game back: every entry as it was journaled.
    Full,
    /// An export, which writes the game's moves and result, never its clocks: each chess
    /// move's SAN is written while decoding it ([`Unpacked::sans`]), and the chess moves'
    /// entries hold the decoded move without its UCI text or clocks (the clocks are neither
    /// read nor checked).
    Export,
}

/// Packs a game's journal (`entries` by version from 1) with its setup (without its status,
/// informational, as the store keeps it) and, when given, its options; refused when the
/// record would not read back exactly as given.
pub fn pack(
    setup: &SavedState,
    options: Option<&StoredOptions>,
    entries: &[(u64, Entry)],
) -> Result<Vec<u8>, PackError> {
    if let Some((at, (version, _))) = entries
        .iter()
        .enumerate()
        .find(|(i, (v, _))| *v != *i as u64 + 1)
    {
        return Err(PackError::Unpackable(format!(
            "entry {} has version {version}",
            at + 1
        )));
    }
    if entries
        .iter()
        .any(|(_, e)| matches!(e, Entry::Takeback { .. }))
    {
        // The packed moves walk the game forwards only: a game with a takeback keeps its rows.
        return Err(PackError::Unpackable("the game has a takeback".into()));
    }
    let bytes = write(setup, options, entries)?;
    let back = unpack(&bytes)?;
    let same = back.setup.status.is_none()
        && SavedState {
            status: None,
            ..back.setup
        } == SavedState {
            status: None,
            ..setup.clone()
        }
        && back.options.as_ref() == options
        && back.entries.len() == entries.len()
        && back.entries.iter().zip(entries).all(|(a, b)| a == b);
    if !same {
        return Err(PackError::Unpackable(
            "the record does not read back as the journal".into(),
        ));
    }
    Ok(bytes)
}

/// Reads a record made by [`pack`].
pub fn unpack(bytes: &[u8]) -> Result<Unpacked, PackError> {
    unpack_with(bytes, Reading::Full)
}

/// [`unpack`] for what `reading` needs.
pub fn unpack_with(bytes: &[u8], reading: Reading) -> Result<Unpacked, PackError> {
    let mut r = BitReader::new(bytes);
    let format = r.read(8)?;
    if format != FORMAT {
        return Err(PackError::Corrupt(format!("unknown format {format}")));
    }
    let (setup, setup_moves) = read_setup(&mut r)?;
    let options = if r.read_bit()? {
        Some(read_options(&mut r, &setup)?)
    } else {
        None
    };
    let unit = if setup.clock.is_some() && r.read_bit()? {
        CENTIS
    } else {
        1
    };
    let count = read_count(&mut r)?;
    let others = read_count(&mut r)?;
    if others > count {
        return Err(PackError::Corrupt("more other entries than entries".into()));
    }
    let mut placed = Vec::with_capacity(others);
    let mut before = 0;
    for _ in 0..others {
        before += read_count(&mut r)?;
        placed.push((before, read_other(&mut r, unit)?));
    }
    let moves = count - others;
    if before > moves {
        return Err(PackError::Corrupt("an entry after the last move".into()));
    }
    read_moves(
        r,
        setup,
        options,
        Counts {
            moves,
            setup_moves,
            unit,
        },
        placed,
        reading,
    )
}

/// Writes the record (without checking it reads back).
fn write(
    setup: &SavedState,
    options: Option<&StoredOptions>,
    entries: &[(u64, Entry)],
) -> Result<Vec<u8>, PackError> {
    let mut w = BitWriter::new();
    w.write(FORMAT, 8);
    write_setup(&mut w, setup);
    w.write_bit(options.is_some());
    if let Some(options) = options {
        write_options(&mut w, options, setup);
    }
    let timed = setup.clock.is_some();
    let unit = clock_unit(setup, entries);
    if timed {
        w.write_bit(unit == CENTIS);
    }
    write_count(&mut w, entries.len());
    let others: Vec<(usize, &Entry)> = {
        let mut moves = 0;
        let mut list = Vec::new();
        for (_, entry) in entries {
            match entry {
                Entry::Move { clocks, .. } => {
                    if clocks.is_some() != timed {
                        return Err(PackError::Unpackable(
                            "a move's clocks do not match the setup's".into(),
                        ));
                    }
                    moves += 1;
                }
                other => list.push((moves, other)),
            }
        }
        list
    };
    write_count(&mut w, others.len());
    let mut before = 0;
    for (at, entry) in &others {
        write_count(&mut w, at - before);
        before = *at;
        write_other(&mut w, entry, unit);
    }
    write_moves(w, setup, entries, unit)
}

// The setup.

/// Whether `setup` is written plain (else as its JSON).
fn plain_setup(setup: &SavedState) -> bool {
    setup.format == STATE_FORMAT
        && matches!(setup.variant.as_deref(), None | Some(CHESS2))
        && setup.set_result.is_none()
        && setup.draw_offer.is_none()
}

fn standard_fen() -> &'static str {
    static FEN: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| Position::startpos().fen());
    &FEN
}

fn write_setup(w: &mut BitWriter, setup: &SavedState) {
    let plain = plain_setup(setup);
    w.write_bit(plain);
    if !plain {
        write_text(w, &setup_text(setup));
        return;
    }
    let chess2 = setup.variant.is_some();
    w.write_bit(chess2);
    let standard = !chess2 && setup.start_fen == standard_fen();
    w.write_bit(standard);
    if !standard {
        write_text(w, &setup.start_fen);
    }
    w.write_bit(setup.draw_policy == DrawPolicy::Claims);
    write_clock(w, setup.clock);
    write_count(w, setup.moves.len());
}

/// Reads the setup, its moves not yet (their number instead).
fn read_setup(r: &mut BitReader<'_>) -> Result<(SavedState, usize), PackError> {
    if !r.read_bit()? {
        let text = read_text(r)?;
        let setup: SavedState =
            serde_json::from_str(&text).map_err(|e| PackError::Corrupt(e.to_string()))?;
        return Ok((setup, 0));
    }
    let chess2 = r.read_bit()?;
    let start_fen = if r.read_bit()? {
        standard_fen().to_string()
    } else {
        read_text(r)?
    };
    let draw_policy = if r.read_bit()? {
        DrawPolicy::Claims
    } else {
        DrawPolicy::Automatic
    };
    let clock = read_clock(r)?;
    let moves = read_count(r)?;
    Ok((
        SavedState {
            format: STATE_FORMAT.to_string(),
            variant: chess2.then(|| CHESS2.to_string()),
            start_fen,
            moves: Vec::new(),
            draw_policy,
            set_result: None,
            clock,
            draw_offer: None,
            status: None,
        },
        moves,
    ))
}

/// Exp-Golomb orders: of a time in ms, of an increment in ms, of a count.
const TIME_K: u32 = 16;
const INCREMENT_K: u32 = 10;
const COUNT_K: u32 = 2;

fn write_control(w: &mut BitWriter, control: TimeControl) {
    write_exp_golomb(w, control.initial_ms, TIME_K);
    write_exp_golomb(w, control.increment_ms, INCREMENT_K);
}

fn read_control(r: &mut BitReader<'_>) -> Result<TimeControl, PackError> {
    Ok(TimeControl {
        initial_ms: read_exp_golomb(r, TIME_K)?,
        increment_ms: read_exp_golomb(r, INCREMENT_K)?,
    })
}

fn write_clock(w: &mut BitWriter, clock: Option<SavedClock>) {
    w.write_bit(clock.is_some());
    if let Some(c) = clock {
        write_control(w, c.control);
        let full = c.white_ms == c.control.initial_ms && c.black_ms == c.control.initial_ms;
        w.write_bit(full);
        if !full {
            write_exp_golomb(w, c.white_ms, TIME_K);
            write_exp_golomb(w, c.black_ms, TIME_K);
        }
    }
}

fn read_clock(r: &mut BitReader<'_>) -> Result<Option<SavedClock>, PackError> {
    if !r.read_bit()? {
        return Ok(None);
    }
    let control = read_control(r)?;
    let (white_ms, black_ms) = if r.read_bit()? {
        (control.initial_ms, control.initial_ms)
    } else {
        (read_exp_golomb(r, TIME_K)?, read_exp_golomb(r, TIME_K)?)
    };
    Ok(Some(SavedClock {
        control,
        white_ms,
        black_ms,
    }))
}

// The options.

/// Whether `options` are written plain (else as their JSON).
fn plain_options(options: &StoredOptions) -> bool {
    options.webhook.is_none()
        && options.opponent.is_none()
        && options.rival.is_none()
        && options.chess2_bots.is_empty()
}

fn write_options(w: &mut BitWriter, options: &StoredOptions, setup: &SavedState) {
    let plain = plain_options(options);
    w.write_bit(plain);
    if !plain {
        write_text(w, &serde_json::to_string(options).unwrap_or_default());
        return;
    }
    write_exp_golomb(w, options.idle_timeout_secs, 6);
    write_exp_golomb(w, options.abandon_after_secs, 6);
    let setup_control = setup.clock.map(|c| c.control);
    match options.time_control {
        None => w.write_bit(false),
        Some(control) => {
            w.write_bit(true);
            let same = Some(control) == setup_control;
            w.write_bit(same);
            if !same {
                write_control(w, control);
            }
        }
    }
    w.write_bit(options.draw_policy == DrawPolicy::Claims);
}

fn read_options(r: &mut BitReader<'_>, setup: &SavedState) -> Result<StoredOptions, PackError> {
    if !r.read_bit()? {
        let text = read_text(r)?;
        return serde_json::from_str(&text).map_err(|e| PackError::Corrupt(e.to_string()));
    }
    let idle_timeout_secs = read_exp_golomb(r, 6)?;
    let abandon_after_secs = read_exp_golomb(r, 6)?;
    let time_control = if !r.read_bit()? {
        None
    } else if r.read_bit()? {
        Some(
            setup
                .clock
                .ok_or_else(|| PackError::Corrupt("no setup clock to refer to".into()))?
                .control,
        )
    } else {
        Some(read_control(r)?)
    };
    let draw_policy = if r.read_bit()? {
        DrawPolicy::Claims
    } else {
        DrawPolicy::Automatic
    };
    Ok(StoredOptions {
        idle_timeout_secs,
        abandon_after_secs,
        webhook: None,
        time_control,
        draw_policy,
        opponent: None,
        rival: None,
        chess2_bots: Vec::new(),
    })
}

// Entries other than moves.

/// The kinds of entries other than moves (3 bits).
const OFFER: u64 = 0;
const DECLINE: u64 = 1;
const END: u64 = 2;
const JSON: u64 = 3;

fn write_other(w: &mut BitWriter, entry: &Entry, unit: u64) {
    match entry {
        Entry::DrawOffered { by } => {
            w.write(OFFER, 3);
            w.write_bit(*by == Color::Black);
        }
        Entry::DrawDeclined { by } => {
            w.write(DECLINE, 3);
            w.write_bit(*by == Color::Black);
        }
        Entry::End { status, clocks }
            if status.note.is_none() && status.result != GameResult::Aborted =>
        {
            w.write(END, 3);
            w.write(result_code(status.result), 2);
            w.write(status.reason.map_or(0, |r| reason_code(r) + 1), 4);
            w.write_bit(clocks.is_some());
            for ms in clocks.iter().flatten() {
                write_exp_golomb(w, *ms / unit, TIME_K);
            }
        }
        other => {
            w.write(JSON, 3);
            write_text(w, &other.encode());
        }
    }
}

fn read_other(r: &mut BitReader<'_>, unit: u64) -> Result<Entry, PackError> {
    let side = |black: bool| if black { Color::Black } else { Color::White };
    Ok(match r.read(3)? {
        OFFER => Entry::DrawOffered {
            by: side(r.read_bit()?),
        },
        DECLINE => Entry::DrawDeclined {
            by: side(r.read_bit()?),
        },
        END => {
            let result = RESULTS[r.read(2)? as usize];
            let reason = match r.read(4)? as usize {
                0 => None,
                code => Some(
                    Reason::ALL
                        .into_iter()
                        .find(|&r| reason_code(r) + 1 == code as u64)
                        .ok_or_else(|| PackError::Corrupt(format!("reason {code}")))?,
                ),
            };
            let clocks = if r.read_bit()? {
                Some([
                    scaled(read_exp_golomb(r, TIME_K)?, unit)?,
                    scaled(read_exp_golomb(r, TIME_K)?, unit)?,
                ])
            } else {
                None
            };
            Entry::End {
                status: Status {
                    result,
                    reason,
                    note: None,
                },
                clocks,
            }
        }
        JSON => {
            let text = read_text(r)?;
            let entry = Entry::decode(&text).map_err(PackError::Corrupt)?;
            if matches!(entry, Entry::Move { .. }) {
                return Err(PackError::Corrupt("a move among the other entries".into()));
            }
            entry
        }
        kind => return Err(PackError::Corrupt(format!("entry kind {kind}"))),
    })
}

/// Results by their code.
const RESULTS: [GameResult; 4] = [
    GameResult::Ongoing,
    GameResult::WhiteWins,
    GameResult::BlackWins,
    GameResult::Draw,
];

fn result_code(result: GameResult) -> u64 {
    match result {
        GameResult::Ongoing => 0,
        GameResult::WhiteWins => 1,
        GameResult::BlackWins => 2,
        // An aborted game's end is written as JSON (see `write_other`).
        GameResult::Draw | GameResult::Aborted => 3,
    }
}

/// A reason's code in a record (at most 14: 4 bits, 0 for none, hold the code plus one).
fn reason_code(reason: Reason) -> u64 {
    match reason {
        Reason::Checkmate => 0,
        Reason::Stalemate => 1,
        Reason::InsufficientMaterial => 2,
        Reason::FiftyMoves => 3,
        Reason::ThreefoldRepetition => 4,
        Reason::FivefoldRepetition => 5,
        Reason::SeventyFiveMoves => 6,
        Reason::Resignation => 7,
        Reason::Timeout => 8,
        Reason::Agreement => 9,
        Reason::Manual => 10,
        Reason::MidlineInvasion => 11,
        Reason::NoLegalMoves => 12,
    }
}

// The moves and the clocks.

/// The game the moves are played in: the position of a standard game, a whole Chess 2 game
/// (its duels decide what a step may be).
enum Walk {
    Chess(Position),
    Chess2(Box<Chess2Game>),
}

impl Walk {
    /// The game at `setup`'s start, before its moves.
    fn start(setup: &SavedState) -> Result<Walk, PackError> {
        let bad = |e: &dyn std::fmt::Display| PackError::Unpackable(format!("start: {e}"));
        Ok(match setup.variant {
            None => Walk::Chess(
                Position::from_fen(&setup.start_fen, FenMode::Strict).map_err(|e| bad(&e))?,
            ),
            Some(_) => Walk::Chess2(Box::new(Chess2Game::new(
                Chess2Position::from_epd(&setup.start_fen).map_err(|e| bad(&e))?,
                setup.draw_policy,
            ))),
        })
    }

    /// The game a re-initialisation starts.
    fn reset(state: &SavedState) -> Result<Walk, PackError> {
        let board = state
            .restore()
            .map_err(|e| PackError::Unpackable(format!("re-initialisation: {e}")))?;
        Ok(match board {
            Board::Chess(game) => Walk::Chess(*game.position()),
            Board::Chess2(game) => Walk::Chess2(game),
        })
    }
}

/// Writes moves, playing them.
enum StepWriter {
    Chess(Position, Box<MoveWriter>),
    Chess2(Box<Chess2StepWriter>),
}

impl StepWriter {
    fn new(walk: Walk, bits: BitWriter) -> StepWriter {
        match walk {
            Walk::Chess(pos) => StepWriter::Chess(pos, Box::new(MoveWriter::with_bits(bits))),
            Walk::Chess2(game) => {
                StepWriter::Chess2(Box::new(Chess2StepWriter::with_bits(bits, *game)))
            }
        }
    }

    fn into_bits(self) -> BitWriter {
        match self {
            StepWriter::Chess(_, writer) => writer.into_bits(),
            StepWriter::Chess2(writer) => writer.into_bits(),
        }
    }

    /// Writes the move `text` and plays it; gives the side that made it.
    fn write(&mut self, text: &str) -> Result<Color, PackError> {
        let unpackable = |e: &dyn std::fmt::Display| PackError::Unpackable(format!("{text}: {e}"));
        match self {
            StepWriter::Chess(pos, writer) => {
                let mv = pos.parse_uci(text).map_err(|e| unpackable(&e))?;
                writer.push(pos, mv)?;
                let mover = pos.turn();
                pos.play_unchecked(mv);
                Ok(mover)
            }
            StepWriter::Chess2(writer) => {
                let step: Chess2Action = text.parse().map_err(|e| unpackable(&e))?;
                let mover = writer.game().side_of(step);
                writer.push(step)?;
                Ok(mover)
            }
        }
    }
}

fn write_moves(
    w: BitWriter,
    setup: &SavedState,
    entries: &[(u64, Entry)],
    unit: u64,
) -> Result<Vec<u8>, PackError> {
    let mut steps = StepWriter::new(Walk::start(setup)?, w);
    for text in &setup.moves {
        steps.write(text)?;
    }
    let mut clocked = Vec::new();
    for (_, entry) in entries {
        match entry {
            Entry::Move { uci, clocks, .. } => {
                let mover = steps.write(uci)?;
                if let Some(clocks) = clocks {
                    clocked.push((mover, *clocks));
                }
            }
            Entry::Reset { state } => {
                steps = StepWriter::new(Walk::reset(state)?, steps.into_bits())
            }
            _ => {}
        }
    }
    let bits = steps.into_bits();
    match setup.clock {
        None => Ok(bits.finish()),
        Some(clock) => {
            let mut writer = ClockWriter::with_bits(bits, codec_control(clock.control, unit));
            for (mover, [white, black]) in clocked {
                writer.push(mover, [white / unit, black / unit]);
            }
            Ok(writer.finish())
        }
    }
}

/// The time control in the record's unit of time.
fn codec_control(control: TimeControl, unit: u64) -> CodecTimeControl {
    CodecTimeControl {
        initial_ms: control.initial_ms / unit,
        increment_ms: control.increment_ms / unit,
    }
}

/// A time read in `unit`, in ms.
fn scaled(value: u64, unit: u64) -> Result<u64, PackError> {
    value
        .checked_mul(unit)
        .ok_or_else(|| PackError::Corrupt(format!("a time of {value}")))
}

/// The record's unit of time, in ms: centiseconds when every time it holds is a whole number
/// of them (a finished game's clocks, [`to_centiseconds`]), else milliseconds.
fn clock_unit(setup: &SavedState, entries: &[(u64, Entry)]) -> u64 {
    let whole = |ms: u64| ms.is_multiple_of(CENTIS);
    let setup_whole = setup.clock.is_none_or(|c| {
        whole(c.control.initial_ms)
            && whole(c.control.increment_ms)
            && whole(c.white_ms)
            && whole(c.black_ms)
    });
    let entries_whole = entries.iter().all(|(_, entry)| match entry {
        Entry::Move { clocks, .. } | Entry::End { clocks, .. } => {
            clocks.is_none_or(|[w, b]| whole(w) && whole(b))
        }
        _ => true,
    });
    if setup_whole && entries_whole {
        CENTIS
    } else {
        1
    }
}

/// A centisecond, in ms.
const CENTIS: u64 = 10;

/// Rounds every clock of `entries` to the nearest centisecond: how a finished game keeps its
/// clocks (as lichess keeps them), which saves about 3 bits a move. An ongoing game keeps its
/// clocks to the millisecond.
pub fn to_centiseconds(entries: &mut [(u64, Entry)]) {
    let round = |ms: u64| ms.saturating_add(CENTIS / 2) / CENTIS * CENTIS;
    for (_, entry) in entries {
        if let Entry::Move {
            clocks: Some(c), ..
        }
        | Entry::End {
            clocks: Some(c), ..
        } = entry
        {
            *c = [round(c[0]), round(c[1])];
        }
    }
}

/// A step read: its text, the side that made it, and the chess move as decoded.
type ReadStep = (CompactString, Color, Decoded);

/// Reads moves, playing them.
enum StepReader<'a> {
    Chess(Box<MoveReader<'a>>),
    Chess2(Box<Chess2StepReader<'a>>),
}

impl<'a> StepReader<'a> {
    fn new(walk: Walk, bits: BitReader<'a>) -> StepReader<'a> {
        // The reader is told of no count: the record's counts say how many to read.
        match walk {
            Walk::Chess(pos) => {
                StepReader::Chess(Box::new(MoveReader::from_bits(pos, bits, usize::MAX)))
            }
            Walk::Chess2(game) => StepReader::Chess2(Box::new(Chess2StepReader::from_bits(
                *game,
                bits,
                usize::MAX,
            ))),
        }
    }

    fn into_bits(self) -> BitReader<'a> {
        match self {
            StepReader::Chess(reader) => reader.into_bits(),
            StepReader::Chess2(reader) => reader.into_parts().1,
        }
    }

    /// Reads `count` moves, each with the side that made it and, for chess, the move as
    /// decoded; pushes each chess move's SAN to `sans` when given, and then writes no UCI text
    /// (an export needs none).
    fn read(
        &mut self,
        count: usize,
        out: &mut Vec<ReadStep>,
        mut sans: Option<&mut Vec<CompactString>>,
    ) -> Result<(), PackError> {
        for _ in 0..count {
            out.push(match self {
                StepReader::Chess(reader) => {
                    let before = reader.as_ref().position();
                    let (mover, key) = (before.turn(), before.hash());
                    let (mv, uci) = match sans.as_deref_mut() {
                        Some(sans) => {
                            let mut san = MoveText::default();
                            let mv = reader.next_noted(&mut san).ok_or(CodecError::Truncated)??;
                            sans.push(san.to_compact());
                            (mv, CompactString::const_new(""))
                        }
                        None => {
                            let mv = reader.next().ok_or(CodecError::Truncated)??;
                            // A move's UCI needs only the move and the Chess960 flag, which
                            // the move does not change.
                            let mut uci = MoveText::default();
                            reader.as_ref().position().append_uci(mv, &mut uci);
                            (mv, uci.to_compact())
                        }
                    };
                    (uci, mover, Decoded::new(mv, key))
                }
                StepReader::Chess2(reader) => {
                    // The side a step is made by, as `Chess2Game::side_of` tells it before the
                    // step: a bid names its bidder, anything else is the side to act.
                    let to_act = reader.game().to_act();
                    let step = reader.next().ok_or(CodecError::Truncated)??;
                    let by = match step {
                        Chess2Action::Bid { by, .. } => by,
                        _ => to_act,
                    };
                    (step.to_compact_string(), by, Decoded::NONE)
                }
            });
        }
        Ok(())
    }
}

/// A record's counts: its moves, its setup's moves, and its clocks' unit.
struct Counts {
    moves: usize,
    setup_moves: usize,
    unit: u64,
}

fn read_moves(
    bits: BitReader<'_>,
    mut setup: SavedState,
    options: Option<StoredOptions>,
    Counts {
        moves,
        setup_moves,
        unit,
    }: Counts,
    placed: Vec<(usize, Entry)>,
    reading: Reading,
) -> Result<Unpacked, PackError> {
    let corrupt = |e: PackError| match e {
        PackError::Unpackable(m) => PackError::Corrupt(m),
        other => other,
    };
    let mut steps = StepReader::new(Walk::start(&setup).map_err(corrupt)?, bits);
    // The SAN follow the replayed game's moves only when no entry takes moves back or starts
    // another game.
    let noted = reading == Reading::Export
        && matches!(steps, StepReader::Chess(_))
        && !placed
            .iter()
            .any(|(_, e)| matches!(e, Entry::Takeback { .. } | Entry::Reset { .. }));
    let mut sans = noted.then(|| Vec::with_capacity((setup_moves + moves).min(1024)));
    let mut texts = Vec::with_capacity(setup_moves.min(1024));
    steps.read(setup_moves, &mut texts, sans.as_mut())?;
    setup.moves = texts.into_iter().map(|(text, _, _)| text.into()).collect();
    let mut played: Vec<ReadStep> = Vec::with_capacity(moves.min(1024));
    // Moves run up to each other entry; a re-initialisation starts another game.
    let mut read = 0;
    for (before, entry) in &placed {
        steps.read(before - read, &mut played, sans.as_mut())?;
        read = *before;
        if let Entry::Reset { state } = entry {
            steps = StepReader::new(Walk::reset(state).map_err(corrupt)?, steps.into_bits());
        }
    }
    steps.read(moves - read, &mut played, sans.as_mut())?;
    let mut bits = steps.into_bits();
    let mut clocks = Vec::with_capacity(moves.min(1024));
    // An export writes no clocks: they are left unread (and the record's end unchecked).
    if !noted {
        if let Some(clock) = setup.clock {
            let mut reader = ClockReader::from_bits(codec_control(clock.control, unit), bits);
            for (_, mover, _) in &played {
                let [white, black] = reader.next_clocks(*mover)?;
                clocks.push(Some([scaled(white, unit)?, scaled(black, unit)?]));
            }
            bits = reader.into_bits();
        }
        bits.expect_end()?;
    }
    clocks.resize(played.len(), None);
    // The entries in their order: the moves, with each other entry after its moves.
    let mut entries: Vec<(u64, Entry)> = Vec::with_capacity(played.len() + placed.len());
    let mut moves_in = played
        .into_iter()
        .zip(clocks)
        .map(|((uci, _, decoded), clocks)| Entry::Move {
            uci,
            clocks,
            decoded,
        });
    let mut taken = 0;
    for (before, entry) in placed {
        for mv in moves_in.by_ref().take(before - taken) {
            entries.push((entries.len() as u64 + 1, mv));
        }
        taken = before;
        entries.push((entries.len() as u64 + 1, entry));
    }
    for mv in moves_in {
        entries.push((entries.len() as u64 + 1, mv));
    }
    Ok(Unpacked {
        setup,
        options,
        entries,
        sans,
    })
}

// Counts and text.

/// The most entries (or moves, or bytes of text) a record may say it holds: more is corrupt.
const MAX_COUNT: u64 = 1 << 24;

fn write_count(w: &mut BitWriter, n: usize) {
    write_exp_golomb(w, n as u64, COUNT_K);
}

fn read_count(r: &mut BitReader<'_>) -> Result<usize, PackError> {
    let n = read_exp_golomb(r, COUNT_K)?;
    if n > MAX_COUNT {
        return Err(PackError::Corrupt(format!("a count of {n}")));
    }
    Ok(n as usize)
}

fn write_text(w: &mut BitWriter, text: &str) {
    write_count(w, text.len());
    for byte in text.bytes() {
        w.write(u64::from(byte), 8);
    }
}

fn read_text(r: &mut BitReader<'_>) -> Result<String, PackError> {
    let len = read_count(r)?;
    if len * 8 > r.bits_left() {
        return Err(CodecError::Truncated.into());
    }
    let bytes = (0..len)
        .map(|_| r.read(8).map(|b| b as u8))
        .collect::<Result<Vec<u8>, _>>()?;
    String::from_utf8(bytes).map_err(|e| PackError::Corrupt(e.to_string()))
}

#[cfg(test)]
mod tests;
