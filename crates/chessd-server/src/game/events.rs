//! Versioned game events and the bounded history kept for reconnecting clients.

use std::{collections::VecDeque, sync::Arc};

use serde::Serialize;

use chessd_core::{
    game::{Game, Status},
    Color,
};
use chessd_protocol::uci::pv_san;

use crate::game::{
    board::{Board, DuelView},
    clock::ClockView,
    replies::EngineInfoView,
};

/// What changed in a game.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// A move was played.
    Move {
        /// Half-moves played so far, this one included.
        ply: usize,
        /// The move in UCI.
        uci: String,
        /// The move in SAN.
        san: String,
        /// The position after the move.
        fen: String,
        /// The status after the move.
        #[schema(value_type = crate::schemas::StatusView)]
        status: Status,
        /// Both clocks after the move, when the game is timed.
        clocks: Option<ClockView>,
    },
    /// A step of a Chess 2 game: a move, or a duel's challenge, decline or bid.
    Chess2Step {
        /// Moves completed so far.
        ply: usize,
        /// Who took the step.
        #[schema(value_type = crate::schemas::Side)]
        by: Color,
        /// The step as everyone may see it: the move string, `challenge`, `decline`, or `bid`
        /// (its amount shows once both bids are in, in `duel.settled` or `played`).
        action: String,
        /// The move this step completed, with its duel fields (`e4d5:12`).
        #[serde(skip_serializing_if = "Option::is_none")]
        played: Option<String>,
        /// The position after the step, in EPD (before the move while a duel waits).
        epd: String,
        /// The duel waiting to be settled, if any.
        duel: Option<DuelView>,
        /// The status after the step.
        #[schema(value_type = crate::schemas::StatusView)]
        status: Status,
        /// Both clocks after the step, when the game is timed.
        clocks: Option<ClockView>,
        /// The step as stored (a bid with its amount): never sent to clients.
        #[serde(skip)]
        record: String,
    },
    /// A side offered a draw.
    DrawOffered {
        /// Who offered.
        #[schema(value_type = crate::schemas::Side)]
        by: Color,
    },
    /// A draw offer was declined or withdrawn by a move.
    DrawDeclined {
        /// Who declined.
        #[schema(value_type = crate::schemas::Side)]
        by: Color,
    },
    /// The game ended without a move (resignation, agreement, manual result, flag, claim).
    GameEnd {
        /// The final status.
        #[schema(value_type = crate::schemas::StatusView)]
        status: Status,
        /// Both clocks, when the game is timed.
        clocks: Option<ClockView>,
    },
    /// The game was re-initialised (new position, PGN or restored state); clients reload it.
    Reset {
        /// The current position.
        fen: String,
        /// The status.
        #[schema(value_type = crate::schemas::StatusView)]
        status: Status,
    },
    /// A side offered to take back the last move (its own, or both sides' last when it is to
    /// move again).
    TakebackOffered {
        /// Who offered.
        #[schema(value_type = crate::schemas::Side)]
        by: Color,
    },
    /// A takeback offer was declined (or withdrawn by a move).
    TakebackDeclined {
        /// Who declined.
        #[schema(value_type = crate::schemas::Side)]
        by: Color,
    },
    /// An accepted takeback: the last `plies` moves are undone. Events before this one no
    /// longer describe the game (a client reconnecting from before it gets a `resync`).
    TakenBack {
        /// Moves undone (1 or 2).
        plies: usize,
        /// Half-moves played now.
        ply: usize,
        /// The position now.
        fen: String,
        /// The moves played now, in UCI.
        moves: Vec<String>,
        /// The status now.
        #[schema(value_type = crate::schemas::StatusView)]
        status: Status,
        /// Both clocks now, when the game is timed.
        clocks: Option<ClockView>,
    },
    /// A side offered a rematch (after the end).
    RematchOffered {
        /// Who offered.
        #[schema(value_type = crate::schemas::Side)]
        by: Color,
        /// The digest of the offerer's seat secret in the rematch: never sent to clients.
        #[serde(skip)]
        #[schema(ignore)]
        seat: crate::game::secrets::KeptDigest,
    },
    /// A rematch offer was declined.
    RematchDeclined {
        /// Who declined.
        #[schema(value_type = crate::schemas::Side)]
        by: Color,
    },
    /// The rematch was created (colours swapped). Each seat's socket is then sent its own
    /// `rematch_seat` frame with its secret in the new game.
    Rematch {
        /// The new game's id.
        #[schema(value_type = String, format = Uuid)]
        game: uuid::Uuid,
    },
    /// Transient: a chat message (players' chat to the seats, spectators' chat to the
    /// spectators); carries the current version without bumping it, never replayed.
    Chat(crate::game::chat::ChatLine),
    /// The game's actor stopped (idle timeout, stop, shutdown); no more events follow.
    Stopped {
        /// Why.
        reason: String,
    },
    /// Transient: a parsed `info` line (with a score or a PV) of the game's engine.
    EngineInfo(EngineInfoView),
    /// Transient: any other line of the game's engine, as sent.
    EngineLine {
        /// The raw line.
        line: String,
    },
    /// Transient: the game's engine failed (died, timed out, sent an illegal move).
    EngineError {
        /// The error code (`engine_died`, `engine_timeout`, `engine_illegal_move`, …).
        code: String,
        /// What happened.
        message: String,
    },
    /// Transient: an engine was attached to the game.
    EngineAttached {
        /// Its configured name.
        name: String,
        /// Its `id name`.
        id_name: Option<String>,
    },
    /// Transient: the game's engine was detached (on request, or because it died).
    EngineDetached {
        /// Its configured name.
        name: String,
    },
    /// Transient: an analysis ended by itself (its limits: depth, time, nodes…) or was stopped
    /// at `engines.max_analysis_secs` or for want of a watcher; its result is also kept for
    /// `DELETE …/engine/analysis`.
    EngineAnalysisDone(crate::game::replies::AnalysisReport),
}

impl EventKind {
    /// The event of a Chess 2 step `action` taken by `by`, which completed `played` if it
    /// did: a bid shows as `bid`, its amount only in the duel it settles.
    pub fn chess2_step(
        game: &chessd_core::chess2::Chess2Game,
        by: Color,
        action: chessd_core::chess2::Chess2Action,
        played: Option<&chessd_core::chess2::Chess2Played>,
        clocks: Option<ClockView>,
    ) -> EventKind {
        let public = match action {
            chessd_core::chess2::Chess2Action::Bid { .. } => "bid".to_string(),
            other => other.to_string(),
        };
        EventKind::Chess2Step {
            ply: game.history().len(),
            by,
            action: public,
            played: played.map(|p| p.mv.to_string()),
            epd: game.position().to_epd(),
            duel: DuelView::of(game),
            status: game.status().clone(),
            clocks,
            record: action.to_string(),
        }
    }

    /// The event of a takeback of `plies` moves that left `game` as it is.
    pub fn taken_back(game: &Board, plies: usize, clocks: Option<ClockView>) -> EventKind {
        let moves = match game {
            Board::Chess(g) => g.uci_history(),
            Board::Chess2(_) => Vec::new(),
        };
        EventKind::TakenBack {
            plies,
            ply: game.plies(),
            fen: game.fen(),
            moves,
            status: game.status().clone(),
            clocks,
        }
    }

    /// The same event with these clocks (for a move or a Chess 2 step).
    pub fn with_clocks(mut self, view: Option<ClockView>) -> EventKind {
        if let EventKind::Move { clocks, .. } | EventKind::Chess2Step { clocks, .. } = &mut self {
            *clocks = view;
        }
        self
    }
}

impl EngineInfoView {
    /// The view of `info`, whose PV starts from `root`.
    pub fn new(info: &chessd_protocol::uci::Info, root: &chessd_core::Position) -> EngineInfoView {
        let pov = root.turn();
        EngineInfoView {
            multipv: info.multipv.unwrap_or(1),
            depth: info.depth,
            seldepth: info.seldepth,
            score: info.score,
            pov,
            white_score: info.score.map(|s| s.for_white(pov)),
            wdl: info.wdl,
            pv_uci: info.pv.clone(),
            pv_san: pv_san(root, &info.pv),
            nodes: info.nodes,
            nps: info.nps,
            time: info.time,
            hashfull: info.hashfull,
            tbhits: info.tbhits,
        }
    }
}

/// An event with its version, serialised once and shared by every subscriber.
#[derive(Debug)]
pub struct EventFrame {
    /// The game's version after this event.
    pub version: u64,
    /// The JSON text sent to clients: `{"type": ..., "version": ..., ...}`. Reference-counted,
    /// so sending it to every subscriber copies no text.
    pub json: bytestring::ByteString,
}

#[derive(Serialize)]
struct Versioned<'a> {
    version: u64,
    #[serde(flatten)]
    kind: &'a EventKind,
}

/// What the log keeps of recent events: runs of standard-chess moves as their plies (their
/// notation, position and status are written again from the game if a client asks for them),
/// any other event as it was sent.
#[derive(Debug)]
enum Kept {
    /// `count` consecutive moves of a standard or Chess960 game, the first of which made
    /// `first_ply` half-moves; when `timed`, each has its clocks in [`EventLog::clocks`].
    Moves {
        first_ply: u32,
        count: u32,
        timed: bool,
    },
    /// Any other event, serialised.
    Frame(Arc<EventFrame>),
}

/// Both clocks after a kept move, in 12 bytes (a clock past 49 days keeps its event whole).
#[derive(Clone, Copy, Debug)]
struct KeptClocks {
    white_ms: u32,
    black_ms: u32,
    running: Option<Color>,
}

impl KeptClocks {
    fn of(view: &ClockView) -> Option<KeptClocks> {
        Some(KeptClocks {
            white_ms: view.white_ms.try_into().ok()?,
            black_ms: view.black_ms.try_into().ok()?,
            running: view.running,
        })
    }

    fn view(self) -> ClockView {
        ClockView {
            white_ms: self.white_ms.into(),
            black_ms: self.black_ms.into(),
            running: self.running,
        }
    }
}

/// The version counter and the most recent events, kept compactly (nothing a move for an
/// untimed game, 12 bytes for a timed one, beyond its game's own two bytes): a reconnecting
/// client is sent the events it missed when they are all still held, a snapshot otherwise.
#[derive(Debug)]
pub struct EventLog {
    version: u64,
    /// The kept events, oldest first, up to version `version`.
    recent: VecDeque<Kept>,
    /// How many events (versions) `recent` holds.
    held: usize,
    /// The clocks after each timed move held, oldest first.
    clocks: VecDeque<KeptClocks>,
    capacity: usize,
}

impl EventLog {
    /// An empty log at version 0 keeping at most `capacity` events.
    pub fn new(capacity: usize) -> EventLog {
        EventLog {
            version: 0,
            recent: VecDeque::new(),
            held: 0,
            clocks: VecDeque::new(),
            capacity,
        }
    }

    /// The current version.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Records an event under the next version and serialises it for the subscribers.
    pub fn push(&mut self, kind: &EventKind) -> Arc<EventFrame> {
        let frame = serialise(self.version + 1, kind);
        self.record(kind, Some(&frame));
        frame
    }

    /// Records an event under the next version; `frame` is the event as sent, if it was
    /// (a stored game being replayed sends nothing).
    pub fn record(&mut self, kind: &EventKind, frame: Option<&Arc<EventFrame>>) {
        self.version += 1;
        if self.capacity == 0 {
            return;
        }
        if let EventKind::Move { ply, clocks, .. } = kind {
            if let Some((ply, clocks)) = compact_move(*ply, clocks.as_ref()) {
                self.keep_move(ply, clocks);
                return;
            }
        }
        let frame = match frame {
            Some(frame) => frame.clone(),
            None => serialise(self.version, kind),
        };
        self.make_room();
        self.recent.push_back(Kept::Frame(frame));
        self.held += 1;
    }

    /// Records the next version's event, a move of a standard game (`ply` half-moves played,
    /// this one included), without writing its notation: a stored game being replayed.
    pub fn record_move(&mut self, ply: usize, clocks: Option<ClockView>) {
        self.version += 1;
        if self.capacity == 0 {
            return;
        }
        match compact_move(ply, clocks.as_ref()) {
            Some((ply, clocks)) => self.keep_move(ply, clocks),
            // A clock past 49 days: clients reconnecting before this move get a snapshot.
            None => self.clear_history(),
        }
    }

    /// Keeps the move just recorded.
    fn keep_move(&mut self, ply: u32, clocks: Option<KeptClocks>) {
        self.make_room();
        let timed = clocks.is_some();
        self.clocks.extend(clocks);
        match self.recent.back_mut() {
            Some(Kept::Moves {
                first_ply,
                count,
                timed: run_timed,
            }) if *run_timed == timed && *first_ply + *count == ply => *count += 1,
            _ => self.recent.push_back(Kept::Moves {
                first_ply: ply,
                count: 1,
                timed,
            }),
        }
        self.held += 1;
    }

    /// Forgets the oldest event when the log is full.
    fn make_room(&mut self) {
        if self.held < self.capacity {
            return;
        }
        match self.recent.front_mut() {
            Some(Kept::Moves {
                first_ply,
                count,
                timed,
            }) => {
                if *timed {
                    self.clocks.pop_front();
                }
                *first_ply += 1;
                *count -= 1;
                if *count == 0 {
                    self.recent.pop_front();
                }
            }
            Some(Kept::Frame(_)) => {
                self.recent.pop_front();
            }
            None => return,
        }
        self.held -= 1;
    }

    /// The events after `version`, or `None` when some of them are no longer held (the client
    /// must resynchronise from a full state). Moves are written again from `board`, the game
    /// they were played in, replayed once from its start.
    pub fn since(&self, version: u64, board: &Board) -> Option<Vec<Arc<EventFrame>>> {
        if version > self.version {
            return None;
        }
        let missed = self.version - version;
        if missed > self.held as u64 {
            return None;
        }
        let mut skip = self.held as u64 - missed;
        let mut moves = MoveWriter::new(board);
        let mut out = Vec::with_capacity(missed as usize);
        let mut next_version = self.version - self.held as u64 + 1;
        let mut clocks = self.clocks.iter();
        for kept in &self.recent {
            match kept {
                Kept::Frame(frame) => {
                    if skip > 0 {
                        skip -= 1;
                    } else {
                        out.push(frame.clone());
                    }
                    next_version += 1;
                }
                Kept::Moves {
                    first_ply,
                    count,
                    timed,
                } => {
                    for ply in *first_ply..*first_ply + *count {
                        let clock = if *timed { clocks.next() } else { None };
                        if skip > 0 {
                            skip -= 1;
                        } else {
                            let kind = moves.event(ply as usize, clock.map(|c| c.view()))?;
                            out.push(serialise(next_version, &kind));
                        }
                        next_version += 1;
                    }
                }
            }
        }
        Some(out)
    }

    /// Serialises a transient event (engine output): it carries the current version, does not
    /// bump it and is not kept for reconnecting clients.
    pub fn transient(&self, kind: &EventKind) -> Arc<EventFrame> {
        serialise(self.version, kind)
    }

    /// Forgets held events (after a re-initialisation the old ones no longer apply).
    pub fn clear_history(&mut self) {
        self.recent.clear();
        self.clocks.clear();
        self.held = 0;
    }
}

/// A move's ply and clocks in their kept form, if they fit it.
fn compact_move(ply: usize, clocks: Option<&ClockView>) -> Option<(u32, Option<KeptClocks>)> {
    let ply = u32::try_from(ply).ok()?;
    match clocks {
        None => Some((ply, None)),
        Some(view) => Some((ply, Some(KeptClocks::of(view)?))),
    }
}

/// `kind` under `version`, as sent to clients.
fn serialise(version: u64, kind: &EventKind) -> Arc<EventFrame> {
    let json = serde_json::to_string(&Versioned { version, kind })
        .unwrap_or_else(|e| format!("{{\"type\":\"error\",\"message\":\"{e}\"}}"))
        .into();
    Arc::new(EventFrame { version, json })
}

/// Writes the move events of a standard game again, replaying it forwards from its start.
struct MoveWriter<'b> {
    game: Option<&'b Game>,
    replay: Option<Game>,
}

impl<'b> MoveWriter<'b> {
    fn new(board: &'b Board) -> MoveWriter<'b> {
        let game = match board {
            Board::Chess(game) => Some(game),
            Board::Chess2(_) => None,
        };
        MoveWriter { game, replay: None }
    }

    /// The event of the move that made `ply` half-moves, with `clocks`; `None` when the game
    /// has no such move. Plies must come in increasing order.
    fn event(&mut self, ply: usize, clocks: Option<ClockView>) -> Option<EventKind> {
        let game = self.game?;
        let moves = game.history();
        let replay = self
            .replay
            .get_or_insert_with(|| Game::with_policy(*game.start_position(), game.policy()));
        let done = replay.history().len();
        if ply == 0 || ply > moves.len() || ply <= done {
            return None;
        }
        for &mv in &moves[done..ply - 1] {
            replay.replay(mv).ok()?;
        }
        let played = replay.play(moves[ply - 1]).ok()?;
        Some(EventKind::Move {
            ply,
            uci: played.uci,
            san: played.san,
            fen: replay.position().fen(),
            status: replay.status().clone(),
            clocks,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessd_protocol::uci::{Bound, Score, ScoreValue};

    fn offer() -> EventKind {
        EventKind::DrawOffered { by: Color::White }
    }

    #[test]
    fn scores_from_whites_side() {
        let score = |value, bound| Score { value, bound };
        let cp = score(ScoreValue::Cp(31), Some(Bound::Lower));
        assert_eq!(cp.for_white(Color::White), cp);
        assert_eq!(
            cp.for_white(Color::Black),
            score(ScoreValue::Cp(-31), Some(Bound::Upper))
        );
        assert_eq!(
            score(ScoreValue::Mate(-2), None).for_white(Color::Black),
            score(ScoreValue::Mate(2), None)
        );
        // Black to move, mated in 2 from Black's side: White mates in 2.
        let root = chessd_core::Position::from_fen(
            "6k1/5ppp/8/8/8/8/8/R5K1 b - - 0 1",
            chessd_core::FenMode::Strict,
        )
        .unwrap();
        let info = chessd_protocol::uci::Info {
            score: Some(score(ScoreValue::Mate(-1), None)),
            ..Default::default()
        };
        let view = EngineInfoView::new(&info, &root);
        assert_eq!(view.pov, Color::Black);
        assert_eq!(view.white_score, Some(score(ScoreValue::Mate(1), None)));
    }

    #[test]
    fn replays_exactly_the_missed_events() {
        let mut log = EventLog::new(3);
        for _ in 0..5 {
            log.push(&offer());
        }
        assert_eq!(log.version(), 5);
        let board = Board::Chess(Game::default());
        let missed = log.since(3, &board).unwrap();
        assert_eq!(missed.iter().map(|e| e.version).collect::<Vec<_>>(), [4, 5]);
        assert_eq!(log.since(2, &board).unwrap().len(), 3);
        assert!(
            log.since(1, &board).is_none(),
            "version 2 is no longer held"
        );
        assert!(
            log.since(6, &board).is_none(),
            "a version from the future means resync"
        );
        assert!(log.since(5, &board).unwrap().is_empty());
        assert!(log.push(&offer()).json.contains("\"version\":6"));
    }

    /// Moves are kept as their ply and clocks: the events a reconnecting client is sent are
    /// written again from the game, and must be the very text first sent.
    #[test]
    fn missed_moves_are_written_again_exactly_as_sent() {
        let mut game = Game::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let mut log = EventLog::new(5);
        let mut sent = Vec::new();
        let clocks = |i: u64| ClockView {
            white_ms: 60_000 - i,
            black_ms: 59_000 + i,
            running: Some(if i.is_multiple_of(2) {
                Color::Black
            } else {
                Color::White
            }),
        };
        for (i, uci) in ["e1g1", "e8c8", "a1a8", "c8b7", "a8d8", "h8d8"]
            .iter()
            .enumerate()
        {
            let played = game.play_uci(uci).unwrap();
            let event = EventKind::Move {
                ply: game.history().len(),
                uci: played.uci,
                san: played.san,
                fen: game.position().fen(),
                status: game.status().clone(),
                clocks: Some(clocks(i as u64)),
            };
            sent.push(log.push(&event).json.to_string());
            if i == 2 {
                sent.push(log.push(&offer()).json.to_string());
            }
        }
        let board = Board::Chess(game);
        let again: Vec<String> = log
            .since(2, &board)
            .unwrap()
            .iter()
            .map(|f| f.json.to_string())
            .collect();
        assert_eq!(again, sent[2..]);
        assert!(again[4].contains("\"san\":\"Rxd8\""), "{again:?}");
        assert!(
            log.since(1, &board).is_none(),
            "version 2 is no longer held"
        );
    }
}
