//! A game's journal: what is stored for each versioned event, and how a stored game is
//! rebuilt from how it was created plus its journal.
//!
//! Entries hold only what replaying needs (a move in UCI and the clocks after it, a draw
//! offer, a result set without a move, a re-initialisation); replaying through the rules
//! re-derives everything else (SAN, FEN, status) and the events clients catch up with.

use std::time::{Duration, Instant};

use chessd_core::{
    chess2::{ActionParseError, Chess2Action},
    game::{DrawPolicy, GameResult, Reason, Status},
    Color, Move,
};
use chessd_protocol::uci::GoLimits;
use compact_str::CompactString;
use serde::{Deserialize, Serialize};

use crate::{
    game::{
        board::Board,
        clock::{Clock, ClockView, TimeControl},
        events::{EventKind, EventLog},
        options::GameOptions,
        state::{SavedClock, SavedState},
        GameError,
    },
    store::StoredGame,
};

pub use packed::Reading;

/// One stored event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t")]
pub enum Entry {
    /// A move, with both clocks after it when the game is timed.
    #[serde(rename = "m")]
    Move {
        /// The move in UCI (a Chess 2 step in its notation); a move's text is short enough
        /// to be held inline.
        #[serde(rename = "u")]
        uci: CompactString,
        /// White's and Black's remaining time after the move.
        #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
        clocks: Option<[u64; 2]>,
        /// The move itself when it was decoded from a packed record (never stored).
        #[serde(skip)]
        decoded: Decoded,
    },
    /// A draw offer.
    #[serde(rename = "o")]
    DrawOffered {
        /// Who offered.
        by: Color,
    },
    /// A draw offer declined (or withdrawn by a move).
    #[serde(rename = "d")]
    DrawDeclined {
        /// Who declined.
        by: Color,
    },
    /// The game ended without a move.
    #[serde(rename = "e")]
    End {
        /// The final status.
        status: Status,
        /// Both clocks at the end, when the game is timed.
        #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
        clocks: Option<[u64; 2]>,
    },
    /// A takeback offer.
    #[serde(rename = "to")]
    TakebackOffered {
        /// Who offered.
        by: Color,
    },
    /// A takeback offer declined (or withdrawn by a move).
    #[serde(rename = "td")]
    TakebackDeclined {
        /// Who declined.
        by: Color,
    },
    /// The last `plies` moves were taken back (an accepted offer), with both clocks then.
    #[serde(rename = "tb")]
    Takeback {
        /// Moves taken back.
        plies: usize,
        /// White's and Black's remaining time at the takeback.
        #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
        clocks: Option<[u64; 2]>,
    },
    /// A rematch offer, with the digest of the offerer's seat secret in the rematch (hex).
    #[serde(rename = "ro")]
    RematchOffered {
        /// Who offered.
        by: Color,
        /// The digest of the secret the offerer's seat in the rematch is proven by.
        seat: String,
    },
    /// A rematch offer declined.
    #[serde(rename = "rd")]
    RematchDeclined {
        /// Who declined.
        by: Color,
    },
    /// The rematch was created: the game's id.
    #[serde(rename = "rm")]
    Rematch {
        /// The rematch's id.
        game: uuid::Uuid,
    },
    /// The game was re-initialised (FEN, PGN or a restored state).
    #[serde(rename = "r")]
    Reset {
        /// The game from then on (boxed: the rarest entry is the largest by far, and every
        /// entry takes the largest's room).
        state: Box<SavedState>,
    },
}

/// A chess move as the codec decoded it from a packed record, with the Zobrist key of the
/// position it was decoded in: replaying it in a position with that key needs neither its
/// text parsed nor its legality checked again (the codec only ever yields one of the
/// position's legal moves). A hint, not data: it is never stored, and entries compare equal
/// whatever their hints.
#[derive(Clone, Copy, Debug, Default)]
pub struct Decoded(Option<(Move, u64)>);

impl Decoded {
    /// The hint for `mv`, decoded in the position whose key is `key`.
    pub fn new(mv: Move, key: u64) -> Decoded {
        Decoded(Some((mv, key)))
    }

    /// No hint: the move is read from its text.
    pub const NONE: Decoded = Decoded(None);

    /// The move, when it was decoded in a position with the key `key`.
    fn in_position(self, key: u64) -> Option<Move> {
        self.0.filter(|&(_, k)| k == key).map(|(mv, _)| mv)
    }
}

impl PartialEq for Decoded {
    fn eq(&self, _: &Decoded) -> bool {
        true
    }
}

impl Eq for Decoded {}

fn both(view: Option<ClockView>) -> Option<[u64; 2]> {
    view.map(|v| [v.white_ms, v.black_ms])
}

impl Entry {
    /// A move as played and stored: its text and the clocks after it (no decoded move).
    pub fn played(uci: impl Into<CompactString>, clocks: Option<[u64; 2]>) -> Entry {
        Entry::Move {
            uci: uci.into(),
            clocks,
            decoded: Decoded::NONE,
        }
    }

    /// The stored text. Moves, nearly every entry, are short: the move in UCI, then both
    /// clocks when the game is timed (`e2e4` or `e2e4 59000 60000`); every other entry is JSON.
    pub fn encode(&self) -> String {
        match self {
            Entry::Move {
                uci, clocks: None, ..
            } => uci.to_string(),
            Entry::Move {
                uci,
                clocks: Some([white, black]),
                ..
            } => format!("{uci} {white} {black}"),
            other => serde_json::to_string(other).unwrap_or_default(),
        }
    }

    /// Reads [`Entry::encode`] back.
    pub fn decode(text: &str) -> Result<Entry, String> {
        if text.starts_with('{') {
            return serde_json::from_str(text).map_err(|e| e.to_string());
        }
        let mut parts = text.split(' ');
        let uci = parts.next().unwrap_or_default();
        let clocks = match (parts.next(), parts.next(), parts.next()) {
            (None, None, None) => None,
            (Some(w), Some(b), None) => Some([
                w.parse().map_err(|_| format!("bad clock in '{text}'"))?,
                b.parse().map_err(|_| format!("bad clock in '{text}'"))?,
            ]),
            _ => return Err(format!("'{text}' is not a stored move")),
        };
        Ok(Entry::played(uci, clocks))
    }

    /// The entry for a published event, or `None` for events that change no game state.
    /// `state` gives the whole game, for a re-initialisation.
    pub fn for_event(event: &EventKind, state: impl FnOnce() -> SavedState) -> Option<Entry> {
        Some(match event {
            EventKind::Move { uci, clocks, .. } => Entry::played(uci.as_str(), both(*clocks)),
            EventKind::Chess2Step { record, clocks, .. } => {
                Entry::played(record.as_str(), both(*clocks))
            }
            EventKind::DrawOffered { by } => Entry::DrawOffered { by: *by },
            EventKind::DrawDeclined { by } => Entry::DrawDeclined { by: *by },
            EventKind::GameEnd { status, clocks } => Entry::End {
                status: status.clone(),
                clocks: both(*clocks),
            },
            EventKind::Reset { .. } => Entry::Reset {
                state: Box::new(state()),
            },
            EventKind::TakebackOffered { by } => Entry::TakebackOffered { by: *by },
            EventKind::TakebackDeclined { by } => Entry::TakebackDeclined { by: *by },
            EventKind::TakenBack { plies, clocks, .. } => Entry::Takeback {
                plies: *plies,
                clocks: both(*clocks),
            },
            EventKind::RematchOffered { by, seat } => Entry::RematchOffered {
                by: *by,
                seat: hex::encode(seat),
            },
            EventKind::RematchDeclined { by } => Entry::RematchDeclined { by: *by },
            EventKind::Rematch { game } => Entry::Rematch { game: *game },
            _ => return None,
        })
    }
}

/// An engine that plays one side, as stored: re-attached when the game comes back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredOpponent {
    /// The configured engine's name.
    pub engine: String,
    /// The side it plays.
    pub plays: Color,
    /// Its search limits.
    pub go: Option<GoLimits>,
    /// Who created the game (its engine session counts against that client):
    /// [`ClientKey::stored`](crate::admission::ClientKey::stored).
    pub client: String,
}

/// A game's options as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredOptions {
    /// Idle timeout in seconds (0: none).
    pub idle_timeout_secs: u64,
    /// Abandon timeout in seconds (0: none).
    pub abandon_after_secs: u64,
    /// The terminate webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<String>,
    /// The time control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
    /// The draw policy.
    pub draw_policy: DrawPolicy,
    /// The engine opponent the game was created with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent: Option<StoredOpponent>,
    /// The engine playing the other side, when two engines play the game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rival: Option<StoredOpponent>,
    /// Chess 2: chessd's own player, on the sides it plays.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chess2_bots: Vec<crate::game::options::Chess2Bot>,
}

impl StoredOptions {
    /// The stored form of `options` with the game's engine opponents (none, one, or the two
    /// of a game two engines play).
    pub fn of(options: &GameOptions, opponents: &[StoredOpponent]) -> StoredOptions {
        StoredOptions {
            idle_timeout_secs: options.idle_timeout.map_or(0, |d| d.as_secs()),
            abandon_after_secs: options.abandon_after.map_or(0, |d| d.as_secs()),
            webhook: options.webhook.as_ref().map(|u| u.to_string()),
            time_control: options.time_control,
            draw_policy: options.draw_policy,
            opponent: opponents.first().cloned(),
            rival: opponents.get(1).cloned(),
            chess2_bots: options.chess2_bots.clone(),
        }
    }

    /// The game's engine opponents as stored: the opponent, then the rival.
    pub fn opponents(&self) -> Vec<StoredOpponent> {
        self.opponent.iter().chain(&self.rival).cloned().collect()
    }

    /// The options back. A webhook that no longer parses is dropped.
    pub fn options(&self) -> GameOptions {
        let secs = |s: u64| (s > 0).then(|| Duration::from_secs(s));
        GameOptions {
            idle_timeout: secs(self.idle_timeout_secs),
            abandon_after: secs(self.abandon_after_secs),
            webhook: self
                .webhook
                .as_deref()
                .and_then(|u| url::Url::parse(u).ok())
                .map(Box::new),
            time_control: self.time_control,
            draw_policy: self.draw_policy,
            chess2_bots: self.chess2_bots.clone(),
        }
    }
}

/// The setup stored for a new game: the game as created, its clocks full.
pub fn setup_of(game: &Board, time_control: Option<TimeControl>) -> SavedState {
    let clock = time_control.map(|control| SavedClock {
        control,
        white_ms: control.initial_ms,
        black_ms: control.initial_ms,
    });
    SavedState::capture(game, clock, None)
}

/// The stored text of a game's setup: its saved state without the fields that are empty
/// (`null`) or informational (the status, recomputed when the game is rebuilt), which saves
/// about a hundred bytes per stored game. It reads back as the same `SavedState` without
/// its status.
pub fn setup_text(setup: &SavedState) -> String {
    let mut value = serde_json::to_value(setup).unwrap_or_default();
    if let Some(fields) = value.as_object_mut() {
        fields.remove("status");
        fields.retain(|_, v| !v.is_null());
    }
    value.to_string()
}

/// A game rebuilt from the store.
#[derive(Debug)]
pub struct Replayed {
    /// The game.
    pub game: Board,
    /// Its clocks (running for the side to move when the game is under way).
    pub clock: Option<Clock>,
    /// A pending draw offer.
    pub draw_offer: Option<Color>,
    /// Takeback and rematch offers, and the rematch made.
    pub offers: crate::game::offers::Offers,
    /// The events, as clients saw them, for those that catch up.
    pub log: EventLog,
}

/// A stored game's journal, read from its packed record and its rows.
#[derive(Debug)]
pub struct StoredJournal {
    /// How the game was created.
    pub setup: SavedState,
    /// Its options.
    pub options: StoredOptions,
    /// Its entries, by version from 1.
    pub entries: Vec<(u64, Entry)>,
    /// The SAN of each of the replayed game's moves, in order, when read with
    /// [`Reading::Export`] and known ([`packed::Unpacked::sans`], and no row after the record
    /// moves, takes back or starts another game).
    pub sans: Option<Vec<CompactString>>,
}

/// Reads a stored game's journal: its packed record (if it has one), then the rows after it.
/// Options written after the record was made override the record's.
pub fn read_stored(stored: &StoredGame) -> Result<StoredJournal, GameError> {
    read_stored_with(stored, Reading::Full)
}

/// [`read_stored`] for what `reading` needs: for an export, the moves' SAN when the record
/// gives them ([`StoredJournal::sans`]), and the record's moves without their UCI text or
/// clocks ([`Reading::Export`]).
pub fn read_stored_with(stored: &StoredGame, reading: Reading) -> Result<StoredJournal, GameError> {
    let corrupt = |what: &str, e: &dyn std::fmt::Display| {
        GameError::Internal(format!("stored game {}: {what}: {e}", stored.id))
    };
    let (setup, packed_options, mut entries, mut sans) = match &stored.packed {
        Some(record) => {
            let unpacked =
                packed::unpack_with(record, reading).map_err(|e| corrupt("packed journal", &e))?;
            if unpacked.entries.len() as i64 != stored.packed_through {
                return Err(corrupt(
                    "packed journal",
                    &format!(
                        "{} entries, not {}",
                        unpacked.entries.len(),
                        stored.packed_through
                    ),
                ));
            }
            (
                unpacked.setup,
                unpacked.options,
                unpacked.entries,
                unpacked.sans,
            )
        }
        None => (
            serde_json::from_str(&stored.setup).map_err(|e| corrupt("setup", &e))?,
            None,
            Vec::new(),
            None,
        ),
    };
    let options = match packed_options {
        Some(options) if stored.options.is_empty() => options,
        _ => serde_json::from_str(&stored.options).map_err(|e| corrupt("options", &e))?,
    };
    entries.reserve(stored.entries.len());
    for e in &stored.entries {
        let entry = Entry::decode(&e.body)
            .map_err(|err| corrupt(&format!("version {}", e.version), &err))?;
        if matches!(
            entry,
            Entry::Move { .. } | Entry::Takeback { .. } | Entry::Reset { .. }
        ) {
            // The record's SAN no longer end where the game does.
            sans = None;
        }
        entries.push((e.version as u64, entry));
    }
    Ok(StoredJournal {
        setup,
        options,
        entries,
        sans,
    })
}

/// Rebuilds a stored game from its journal ([`read_stored`]), [`replay`]ed under its options'
/// draw policy.
pub fn replay_stored(
    journal: &StoredJournal,
    history: usize,
    now: Instant,
) -> Result<Replayed, GameError> {
    replay(
        &journal.setup,
        journal.options.draw_policy,
        &journal.entries,
        history,
        now,
    )
}

fn corrupt(version: u64, message: impl std::fmt::Display) -> GameError {
    GameError::Internal(format!("stored game, version {version}: {message}"))
}

/// Rebuilds a game from its setup and journal (`entries`, by version from 1), replaying every
/// move through the rules under `policy` (the game's current draw policy). Clocks resume as
/// they stood at the last entry: time the server was down is charged to no one.
pub fn replay(
    setup: &SavedState,
    policy: DrawPolicy,
    entries: &[(u64, Entry)],
    history: usize,
    now: Instant,
) -> Result<Replayed, GameError> {
    let mut start = setup.clone();
    start.draw_policy = policy;
    start.status = None;
    let mut game = start.restore()?;
    let mut clock = setup
        .clock
        .map(|c| Clock::with_remaining(c.control, c.white_ms, c.black_ms));
    resume(&game, clock.as_mut(), now);
    let mut draw_offer = None;
    let mut offers = crate::game::offers::Offers::default();
    let mut log = EventLog::new(history);
    for (version, entry) in entries {
        let version = *version;
        let event = match entry {
            Entry::Move {
                uci,
                clocks,
                decoded,
            } => {
                let event =
                    replay_move(&mut game, uci, *decoded).map_err(|e| corrupt(version, e))?;
                set_clocks(&mut clock, *clocks);
                resume(&game, clock.as_mut(), now);
                if game.is_over() {
                    draw_offer = None;
                }
                offers.takeback = None;
                let clocks = clock.as_ref().map(|c| c.view(now));
                match event {
                    Some(event) => event.with_clocks(clocks),
                    None => {
                        log.record_move(game.plies(), clocks);
                        check_version(&log, version)?;
                        continue;
                    }
                }
            }
            Entry::DrawOffered { by } => {
                draw_offer = Some(*by);
                EventKind::DrawOffered { by: *by }
            }
            Entry::DrawDeclined { by } => {
                draw_offer = None;
                EventKind::DrawDeclined { by: *by }
            }
            Entry::End { status, clocks } => {
                end(&mut game, status).map_err(|e| corrupt(version, e))?;
                set_clocks(&mut clock, *clocks);
                draw_offer = None;
                offers.takeback = None;
                EventKind::GameEnd {
                    status: game.status().clone(),
                    clocks: clock.as_ref().map(|c| c.view(now)),
                }
            }
            Entry::TakebackOffered { by } => {
                offers.takeback = Some(*by);
                EventKind::TakebackOffered { by: *by }
            }
            Entry::TakebackDeclined { by } => {
                offers.takeback = None;
                EventKind::TakebackDeclined { by: *by }
            }
            Entry::Takeback { plies, clocks } => {
                game.take_back(*plies).map_err(|e| corrupt(version, e))?;
                set_clocks(&mut clock, *clocks);
                if let Some(c) = clock.as_mut() {
                    c.stop(now);
                }
                resume(&game, clock.as_mut(), now);
                offers.takeback = None;
                draw_offer = None;
                // Clients that reconnect from before the takeback resynchronise.
                log.clear_history();
                EventKind::taken_back(&game, *plies, clock.as_ref().map(|c| c.view(now)))
            }
            Entry::RematchOffered { by, seat } => {
                let digest = hex::decode(seat)
                    .ok()
                    .and_then(|d| <[u8; 16]>::try_from(d).ok())
                    .ok_or_else(|| corrupt(version, "a rematch offer without its seat"))?;
                offers.rematch = Some((*by, digest));
                EventKind::RematchOffered {
                    by: *by,
                    seat: digest,
                }
            }
            Entry::RematchDeclined { by } => {
                offers.rematch = None;
                EventKind::RematchDeclined { by: *by }
            }
            Entry::Rematch { game: id } => {
                offers.rematch = None;
                offers.rematch_game = Some(*id);
                EventKind::Rematch { game: *id }
            }
            Entry::Reset { state } => {
                game = state.restore().map_err(|e| corrupt(version, e))?;
                clock = state
                    .clock
                    .map(|c| Clock::with_remaining(c.control, c.white_ms, c.black_ms));
                resume(&game, clock.as_mut(), now);
                draw_offer = state.draw_offer;
                offers.takeback = None;
                log.clear_history();
                EventKind::Reset {
                    fen: game.fen(),
                    status: game.status().clone(),
                }
            }
        };
        log.record(&event, None);
        check_version(&log, version)?;
    }
    Ok(Replayed {
        game,
        clock,
        draw_offer,
        offers,
        log,
    })
}

/// Fails when the log did not reach `version` with the entry just replayed.
fn check_version(log: &EventLog, version: u64) -> Result<(), GameError> {
    if log.version() == version {
        Ok(())
    } else {
        Err(corrupt(
            version,
            "the journal's versions are not consecutive",
        ))
    }
}

fn set_clocks(clock: &mut Option<Clock>, clocks: Option<[u64; 2]>) {
    if let (Some(c), Some([white, black])) = (clock.as_mut(), clocks) {
        *c = Clock::with_remaining(c.control(), white, black);
    }
}

/// Replays one stored move (a Chess 2 step). A standard game's move is played without
/// notation (`None`: the event log keeps only its ply); a Chess 2 step gives its event,
/// clocks not yet set.
fn replay_move(
    game: &mut Board,
    text: &str,
    decoded: Decoded,
) -> Result<Option<EventKind>, GameError> {
    match game {
        Board::Chess(game) => {
            if let Some(mv) = decoded.in_position(game.position().hash()) {
                game.replay_decoded(mv)?;
                return Ok(None);
            }
            let mv = game
                .position()
                .parse_uci(text)
                .map_err(|e| GameError::Internal(format!("{text}: {e}")))?;
            game.replay(mv)?;
            Ok(None)
        }
        Board::Chess2(game) => {
            let step: Chess2Action = text
                .parse()
                .map_err(|e: ActionParseError| GameError::Chess2Notation(e.to_string()))?;
            let by = game.side_of(step);
            let played = game.replay(step)?.cloned();
            Ok(Some(EventKind::chess2_step(
                game,
                by,
                step,
                played.as_ref(),
                None,
            )))
        }
    }
}

/// Starts the side to move's clock when the game is under way (its first move made).
fn resume(game: &Board, clock: Option<&mut Clock>, now: Instant) {
    if let Some(c) = clock {
        if !game.is_over() && game.has_started() {
            c.start(game.to_act(), now);
        }
    }
}

/// Applies a result set without a move; a game already over must have ended the same way.
fn end(game: &mut Board, status: &Status) -> Result<(), String> {
    if game.is_over() {
        return if game.status() == status {
            Ok(())
        } else {
            Err(format!(
                "the game ended as {:?}, not {status:?}",
                game.status()
            ))
        };
    }
    let winner = status.result.winner();
    let outcome = match (status.reason, winner) {
        (Some(Reason::Resignation), Some(w)) => game.resign(!w),
        (Some(Reason::Agreement), None) => game.draw_by_agreement(),
        (Some(Reason::Manual), None) => game.set_draw(status.note.clone()),
        (Some(Reason::Manual), Some(w)) => game.set_winner(w, status.note.clone()),
        (Some(Reason::Timeout), Some(w)) => game.flag(!w),
        (Some(Reason::Timeout), None) => game.flag(game.to_act()),
        (Some(_), None) => game.claim_draw(),
        (None, None) if status.result == GameResult::Aborted => game.abort(),
        _ => return Err(format!("{status:?} cannot be set without a move")),
    };
    outcome.map_err(|e| e.to_string())?;
    if game.status() != status {
        return Err(format!(
            "the game ended as {:?}, not {status:?}",
            game.status()
        ));
    }
    Ok(())
}

pub mod packed;
#[cfg(test)]
mod replay_property;

#[cfg(test)]
mod tests {
    use super::*;
    use chessd_core::{game::Game, Position};

    fn entries(list: Vec<Entry>) -> Vec<(u64, Entry)> {
        list.into_iter()
            .enumerate()
            .map(|(i, e)| (i as u64 + 1, e))
            .collect()
    }

    fn mv(uci: &str) -> Entry {
        Entry::played(uci, None)
    }

    /// A journal read back is a vector of entries, most of them moves: an entry is a move's
    /// size, not a re-initialisation's (a whole saved game).
    #[test]
    fn an_entry_is_the_size_of_a_move() {
        let size = std::mem::size_of::<Entry>();
        assert!(size <= 72, "{size} bytes");
    }

    #[test]
    fn a_takeback_and_an_abort_replay_as_played_and_round_trip() {
        let setup = setup_of(&Game::new(Position::default()).into(), None);
        let journal = entries(vec![
            mv("e2e4"),
            mv("e7e5"),
            Entry::TakebackOffered { by: Color::Black },
            Entry::Takeback {
                plies: 1,
                clocks: None,
            },
            mv("d7d5"),
            Entry::RematchOffered {
                by: Color::White,
                seat: "00112233445566778899aabbccddeeff".into(),
            },
        ]);
        for (_, e) in &journal {
            assert_eq!(&Entry::decode(&e.encode()).unwrap(), e);
        }
        let r = replay(&setup, DrawPolicy::default(), &journal, 16, Instant::now()).unwrap();
        let mut played = Game::new(Position::default());
        for m in ["e2e4", "d7d5"] {
            played.play_uci(m).unwrap();
        }
        assert_eq!(r.game.fen(), played.position().fen());
        assert_eq!(r.log.version(), 6);
        assert_eq!(r.offers.takeback, None);
        assert_eq!(r.offers.rematch.map(|(by, _)| by), Some(Color::White));
        // A client from before the takeback resynchronises; one that saw everything up to it
        // gets the takeback itself (which carries the position), one after it catches up.
        assert!(r.log.since(2, &r.game).is_none());
        assert!(r.log.since(3, &r.game).unwrap()[0]
            .json
            .contains("\"taken_back\""));
        assert!(r.log.since(4, &r.game).unwrap()[0]
            .json
            .contains("\"san\":\"d5\""));

        let mut aborted = Game::new(Position::default());
        aborted.abort().unwrap();
        let journal = entries(vec![Entry::End {
            status: aborted.status().clone(),
            clocks: None,
        }]);
        let r = replay(&setup, DrawPolicy::default(), &journal, 16, Instant::now()).unwrap();
        assert_eq!(r.game.status().result, GameResult::Aborted);
    }

    #[test]
    fn a_replayed_game_matches_the_one_played() {
        let mut played = Game::new(Position::default());
        let setup = setup_of(&played.clone().into(), None);
        for m in ["e2e4", "e7e5", "g1f3"] {
            played.play_uci(m).unwrap();
        }
        played.resign(Color::Black).unwrap();
        let journal = entries(vec![
            mv("e2e4"),
            mv("e7e5"),
            Entry::DrawOffered { by: Color::White },
            Entry::DrawDeclined { by: Color::Black },
            mv("g1f3"),
            Entry::End {
                status: played.status().clone(),
                clocks: None,
            },
        ]);
        let r = replay(&setup, DrawPolicy::default(), &journal, 16, Instant::now()).unwrap();
        assert_eq!(r.game.fen(), played.position().fen());
        assert_eq!(r.game.status(), played.status());
        assert_eq!(r.log.version(), 6);
        let missed = r.log.since(4, &r.game).unwrap();
        assert!(
            missed[0].json.contains("\"san\":\"Nf3\""),
            "{}",
            missed[0].json
        );
        assert!(missed[1].json.contains("resignation"), "{}", missed[1].json);
    }

    /// A decoded move is played as decoded only in the position it was decoded in; anywhere
    /// else its text is read and checked as any stored move's. Hints never make entries differ.
    #[test]
    fn a_decoded_move_is_trusted_only_in_its_own_position() {
        let start = Position::default();
        let setup = setup_of(&Game::new(start).into(), None);
        let e4 = start.parse_uci("e2e4").unwrap();
        let hinted = |text: &str, key: u64| Entry::Move {
            uci: text.into(),
            clocks: None,
            decoded: Decoded::new(e4, key),
        };
        let replayed = |entry: Entry| {
            replay(
                &setup,
                DrawPolicy::default(),
                &entries(vec![entry]),
                1,
                Instant::now(),
            )
        };
        // The text is not read when the position matches: the hint alone plays e2e4.
        let r = replayed(hinted("not a move", start.hash())).unwrap();
        let mut after = Game::new(start);
        after.play(e4).unwrap();
        assert_eq!(r.game.fen(), after.position().fen());
        // In another position the hint is ignored: a bad text fails, a good one is played.
        assert!(replayed(hinted("not a move", start.hash() ^ 1)).is_err());
        let d4 = replayed(hinted("d2d4", start.hash() ^ 1)).unwrap();
        assert!(d4.game.fen().starts_with("rnbqkbnr/pppppppp/8/8/3P4/"));
        assert_eq!(hinted("e2e4", 1), mv("e2e4"));
        assert_ne!(hinted("e2e4", 1), mv("d2d4"));
    }

    #[test]
    fn clocks_resume_as_they_stood_for_the_side_to_move() {
        let control = TimeControl {
            initial_ms: 60_000,
            increment_ms: 0,
        };
        let setup = setup_of(&Game::new(Position::default()).into(), Some(control));
        let journal = entries(vec![
            Entry::played("e2e4", Some([60_000, 60_000])),
            Entry::played("e7e5", Some([60_000, 51_000])),
        ]);
        let now = Instant::now();
        let r = replay(&setup, DrawPolicy::default(), &journal, 16, now).unwrap();
        let clock = r.clock.unwrap();
        assert_eq!(clock.running(), Some(Color::White));
        assert_eq!(clock.remaining(Color::Black, now), 51_000);
        assert_eq!(clock.remaining(Color::White, now), 60_000);
    }

    #[test]
    fn a_stored_setup_reads_back_without_its_status() {
        let control = TimeControl {
            initial_ms: 60_000,
            increment_ms: 2_000,
        };
        let mut game = Game::from_fen("7k/8/8/8/8/8/8/K5R1 w - - 0 1").unwrap();
        game.play_uci("g1g2").unwrap();
        for setup in [
            setup_of(&Game::new(Position::default()).into(), None),
            setup_of(&game.clone().into(), Some(control)),
        ] {
            let text = setup_text(&setup);
            assert!(!text.contains("null") && !text.contains("status"), "{text}");
            let back: SavedState = serde_json::from_str(&text).unwrap();
            assert_eq!(
                back,
                SavedState {
                    status: None,
                    ..setup
                }
            );
        }
        let options = StoredOptions::of(
            &GameOptions {
                idle_timeout: None,
                abandon_after: Some(Duration::from_secs(600)),
                webhook: None,
                time_control: None,
                draw_policy: DrawPolicy::default(),
                chess2_bots: Vec::new(),
            },
            &[],
        );
        let text = serde_json::to_string(&options).unwrap();
        assert!(!text.contains("null"), "{text}");
        assert_eq!(
            serde_json::from_str::<StoredOptions>(&text).unwrap(),
            options
        );
        // A game two engines play keeps both, in order; options stored before there were
        // two still read.
        let engine = |name: &str, plays| StoredOpponent {
            engine: name.into(),
            plays,
            go: None,
            client: "ip:127.0.0.1".into(),
        };
        let both = [
            engine("stockfish", Color::White),
            engine("toga", Color::Black),
        ];
        let two = StoredOptions::of(&options.options(), &both);
        let text = serde_json::to_string(&two).unwrap();
        let back = serde_json::from_str::<StoredOptions>(&text).unwrap();
        assert_eq!(back.opponents(), both.to_vec());
        let one =
            serde_json::to_string(&StoredOptions::of(&options.options(), &both[..1])).unwrap();
        assert!(!one.contains("rival"), "{one}");
        let back = serde_json::from_str::<StoredOptions>(&one).unwrap();
        assert_eq!(back.opponents(), both[..1].to_vec());
    }

    #[test]
    fn a_corrupt_journal_is_refused() {
        let setup = setup_of(&Game::new(Position::default()).into(), None);
        let illegal = entries(vec![mv("e2e4"), mv("e2e4")]);
        assert!(replay(&setup, DrawPolicy::default(), &illegal, 16, Instant::now()).is_err());
        let gap = vec![(1, mv("e2e4")), (3, mv("e7e5"))];
        assert!(replay(&setup, DrawPolicy::default(), &gap, 16, Instant::now()).is_err());
        let bad_end = entries(vec![Entry::End {
            status: Status {
                result: chessd_core::game::GameResult::WhiteWins,
                reason: Some(Reason::Checkmate),
                note: None,
            },
            clocks: None,
        }]);
        assert!(replay(&setup, DrawPolicy::default(), &bad_end, 16, Instant::now()).is_err());
    }

    #[test]
    fn a_chess2_journal_in_the_earlier_forms_replays() {
        // Written before a bid of stones lost its gain sign and before a Whirlwind had to
        // destroy something: an empty Whirlwind, a pass, a duel won with `bid:w:2+`.
        let start = "4k3/8/8/3p4/4P3/8/3K4/6K1 w - - 0 1 kc 33";
        let game = chessd_core::chess2::Chess2Game::new(
            chessd_core::chess2::Chess2Position::from_epd(start).unwrap(),
            DrawPolicy::default(),
        );
        let setup = setup_of(&game.into(), None);
        let texts = [
            "d2d2",
            "0000",
            "e8e7",
            "e4d5",
            "challenge",
            "bid:b:1",
            "bid:w:2+",
        ];
        let journal = entries(texts.iter().map(|t| Entry::decode(t).unwrap()).collect());
        let r = replay(&setup, DrawPolicy::default(), &journal, 16, Instant::now()).unwrap();
        let game = r.game.chess2().unwrap();
        let moves: Vec<String> = game.history().iter().map(|p| p.mv.to_string()).collect();
        assert_eq!(moves, ["d2d2", "0000", "e8e7", "e4d5:12"]);
        assert_eq!(r.game.fen(), "8/4k3/8/3P4/8/8/3K4/6K1 K - - 0 2 kc 22");
        assert_eq!(r.log.version(), 7);
    }

    #[test]
    fn entries_are_short_and_read_back() {
        let timed = Entry::played("e7e8q", Some([59_000, 61_250]));
        let offer = Entry::DrawOffered { by: Color::Black };
        assert_eq!(mv("e2e4").encode(), "e2e4");
        assert_eq!(timed.encode(), "e7e8q 59000 61250");
        assert_eq!(offer.encode(), r#"{"t":"o","by":"black"}"#);
        for e in [mv("e2e4"), timed, offer] {
            assert_eq!(Entry::decode(&e.encode()).unwrap(), e);
        }
        assert!(Entry::decode("e2e4 1").is_err());
        assert!(Entry::decode("e2e4 1 x").is_err());
        assert!(Entry::decode("{").is_err());
    }
}
