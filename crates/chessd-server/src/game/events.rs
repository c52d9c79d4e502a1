//! Versioned game events and the bounded history kept for reconnecting clients.

use std::{collections::VecDeque, sync::Arc};

use serde::Serialize;

use chessd_core::{game::Status, Color};
use chessd_protocol::uci::pv_san;

use crate::game::{board::DuelView, clock::ClockView, replies::EngineInfoView};

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
            duel: game.pending_duel().map(DuelView::of),
            status: game.status().clone(),
            clocks,
            record: action.to_string(),
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

/// The version counter and the most recent events.
#[derive(Debug)]
pub struct EventLog {
    version: u64,
    recent: VecDeque<Arc<EventFrame>>,
    capacity: usize,
}

impl EventLog {
    /// An empty log at version 0 keeping at most `capacity` events.
    pub fn new(capacity: usize) -> EventLog {
        EventLog {
            version: 0,
            recent: VecDeque::new(),
            capacity,
        }
    }

    /// The current version.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Records an event under the next version.
    pub fn push(&mut self, kind: &EventKind) -> Arc<EventFrame> {
        self.version += 1;
        let json = serde_json::to_string(&Versioned {
            version: self.version,
            kind,
        })
        .unwrap_or_else(|e| format!("{{\"type\":\"error\",\"message\":\"{e}\"}}"))
        .into();
        let frame = Arc::new(EventFrame {
            version: self.version,
            json,
        });
        if self.capacity > 0 {
            if self.recent.len() == self.capacity {
                self.recent.pop_front();
            }
            self.recent.push_back(frame.clone());
        }
        frame
    }

    /// The events after `version`, or `None` when some of them are no longer held (the client
    /// must resynchronise from a full state).
    pub fn since(&self, version: u64) -> Option<Vec<Arc<EventFrame>>> {
        if version > self.version {
            return None;
        }
        if version == self.version {
            return Some(Vec::new());
        }
        let oldest = self.recent.front()?.version;
        if version + 1 < oldest {
            return None;
        }
        Some(
            self.recent
                .iter()
                .filter(|e| e.version > version)
                .cloned()
                .collect(),
        )
    }

    /// Serialises a transient event (engine output): it carries the current version, does not
    /// bump it and is not kept for reconnecting clients.
    pub fn transient(&self, kind: &EventKind) -> Arc<EventFrame> {
        let json = serde_json::to_string(&Versioned {
            version: self.version,
            kind,
        })
        .unwrap_or_else(|e| format!("{{\"type\":\"error\",\"message\":\"{e}\"}}"))
        .into();
        Arc::new(EventFrame {
            version: self.version,
            json,
        })
    }

    /// Forgets held events (after a re-initialisation the old ones no longer apply).
    pub fn clear_history(&mut self) {
        self.recent.clear();
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
        let missed = log.since(3).unwrap();
        assert_eq!(missed.iter().map(|e| e.version).collect::<Vec<_>>(), [4, 5]);
        assert_eq!(log.since(2).unwrap().len(), 3);
        assert!(log.since(1).is_none(), "version 2 is no longer held");
        assert!(
            log.since(6).is_none(),
            "a version from the future means resync"
        );
        assert!(log.since(5).unwrap().is_empty());
        assert!(log.push(&offer()).json.contains("\"version\":6"));
    }
}
