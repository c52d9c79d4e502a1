//! A game-playing search: iterative deepening alpha-beta over the core's legal move
//! generation, for the built-in UCI engine.
//!
//! - Iterations `1, 2, …` deepen until a limit of [`Limits`] is reached (depth, nodes, move
//!   time, clocks with a simple time manager, mate in N, or only the stop flag), each one a
//!   principal variation search with aspiration windows around the last score.
//! - Inside: check extension, a transposition table (fixed size in MiB, keyed by
//!   [`Position::hash`]), move ordering (table move, captures by most valuable victim /
//!   least valuable attacker with a static exchange test, killer moves, history), null-move
//!   and futility pruning, late-move reductions, and a quiescence search over captures and
//!   promotions (every evasion when in check).
//! - Mates are scored by distance, so the shortest mate is preferred and the longest defence
//!   chosen. Repetitions (of the game's earlier positions as well as along the search path),
//!   the fifty-move rule and bare kings score as draws, so a winning side avoids them and a
//!   losing side looks for them.
//! - The evaluation is material plus piece-square tables, tapered between middlegame and
//!   endgame ([`evaluate`]).
//! - The stop flag and the deadline are checked every 1024 nodes (well under a millisecond).
//!   Whatever stops the search, a legal move is returned when one exists: the best of the
//!   last finished iteration, a better move found by the unfinished one, or (stopped before
//!   any iteration finished) the table's move or the first move in ordering.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use chessd_core::{search::{Limits, Score, Searcher}, FenMode, Position};
//!
//! // White mates in one (Ra8#).
//! let pos = Position::from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", FenMode::Strict).unwrap();
//! let mut searcher = Searcher::new(1);
//! let stop = AtomicBool::new(false);
//! let result = searcher.search(&pos, &[], &Limits::depth(3), &stop, |_info| {});
//! assert_eq!(pos.uci(result.best.unwrap()), "a1a8");
//! assert_eq!(result.score, Score::Mate(1));
//! ```

mod alphabeta;
mod eval;
mod limits;
mod ordering;
mod quiescence;
mod score;
mod see;
mod table;
pub mod tesla;

use std::{
    sync::atomic::AtomicBool,
    time::{Duration, Instant},
};

pub use eval::evaluate;
pub use limits::Limits;
pub use score::Score;

use crate::{Move, Position};
use alphabeta::{reductions, ReductionTable, RootMove, Worker};
use limits::TimePlan;
use ordering::{History, Killers, MovePicker};
use score::{is_mate, INFINITE, MATE};
use table::Table;

/// The deepest iteration.
pub const MAX_DEPTH: u32 = 100;

/// The default transposition table size in MiB.
pub const DEFAULT_HASH_MIB: usize = 16;

/// Half-width of the first aspiration window, in centipawns.
const ASPIRATION: i32 = 25;

/// What the search reports after each finished iteration (a UCI `info` line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// The iteration's depth in plies.
    pub depth: u32,
    /// The deepest ply reached (with extensions and quiescence).
    pub seldepth: u32,
    /// The score of the best move, from the side to move's point of view.
    pub score: Score,
    /// Nodes searched since the start.
    pub nodes: u64,
    /// Nodes per second since the start.
    pub nps: u64,
    /// Time since the start.
    pub time: Duration,
    /// The principal variation, starting with the best move.
    pub pv: Vec<Move>,
    /// How full the transposition table is, in permille.
    pub hashfull: u32,
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play; `None` only when the side to move has no legal move.
    pub best: Option<Move>,
    /// The expected reply (the second move of the principal variation), if known.
    pub ponder: Option<Move>,
    /// The score of `best` (`Mate(0)` when checkmated, `Cp(0)` when stalemated).
    pub score: Score,
    /// The last finished iteration (0 when stopped before the first one finished).
    pub depth: u32,
    /// The deepest ply reached.
    pub seldepth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time spent.
    pub time: Duration,
    /// The principal variation, starting with `best`.
    pub pv: Vec<Move>,
    /// Whether the stop flag, the deadline or the node limit cut the search short (rather
    /// than the depth or mate limit, or a natural end).
    pub stopped: bool,
}

/// The engine's state kept between searches: the transposition table and the history of
/// quiet moves. One `Searcher` searches one position at a time.
pub struct Searcher {
    tt: Table,
    history: History,
    lmr: Box<ReductionTable>,
}

impl std::fmt::Debug for Searcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Searcher")
            .field("hash_bytes", &self.tt.bytes())
            .finish_non_exhaustive()
    }
}

impl Default for Searcher {
    /// A searcher with a [`DEFAULT_HASH_MIB`] table.
    fn default() -> Searcher {
        Searcher::new(DEFAULT_HASH_MIB)
    }
}

impl Searcher {
    /// A searcher with a transposition table of `tt_mib` MiB (0 gives a tiny table; when the
    /// memory cannot be had, the table is made smaller instead of aborting).
    pub fn new(tt_mib: usize) -> Searcher {
        Searcher {
            tt: Table::new(tt_mib),
            history: History::new(),
            lmr: reductions(),
        }
    }

    /// Forgets everything learnt (UCI `ucinewgame`).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.history.clear();
    }

    /// Replaces the transposition table by an empty one of `mib` MiB (UCI `Hash`).
    pub fn resize(&mut self, mib: usize) {
        // Free the old table first, so that both never live at once.
        self.tt = Table::new(0);
        self.tt = Table::new(mib);
    }

    /// The size of the transposition table in bytes.
    pub fn hash_bytes(&self) -> usize {
        self.tt.bytes()
    }

    /// Searches `pos` within `limits`, calling `on_info` after each finished iteration.
    ///
    /// `history` holds the keys ([`Position::hash`]) of the game's positions before `pos`,
    /// oldest first (not `pos` itself); a position that repeats one of them (since the last
    /// capture or pawn move) scores as a draw. `stop` ends the search as soon as it is seen
    /// to be true (within about a thousand nodes).
    pub fn search(
        &mut self,
        pos: &Position,
        history: &[u64],
        limits: &Limits,
        stop: &AtomicBool,
        mut on_info: impl FnMut(&Info),
    ) -> SearchResult {
        let start = Instant::now();
        let plan = TimePlan::new(limits, pos.turn(), start);
        self.tt.new_search();
        self.history.age();

        let legal = pos.legal_moves();
        if legal.is_empty() {
            return without_moves(pos, start, self.tt.hashfull(), &mut on_info);
        }

        let mut root_moves = self.root_moves(pos, limits, legal);
        let max_depth = max_depth(limits);
        let node_limit = limits.nodes.unwrap_or(u64::MAX).max(1);
        let uses_clock = limits.uses_clock(pos.turn());
        let timed = limits.has_time_limit();

        let mut worker = Worker::new(
            &mut self.tt,
            &mut self.history,
            &self.lmr,
            stop,
            plan.hard,
            node_limit,
            history,
        );

        // Before the first iteration finishes, the first move in ordering stands.
        let mut best = root_moves[0].clone();
        best.pv = vec![best.mv];
        let mut best_score = 0;
        let mut completed = 0;
        let mut stopped = false;

        for depth in 1..=max_depth {
            if worker.should_stop_now()
                || plan.soft.is_some_and(|s| depth > 1 && Instant::now() >= s)
            {
                stopped = worker.should_stop_now();
                break;
            }
            let (mut alpha, mut beta) = if depth >= 4 && !is_mate(best_score) {
                (best_score - ASPIRATION, best_score + ASPIRATION)
            } else {
                (-INFINITE, INFINITE)
            };
            let mut delta = ASPIRATION;
            let score = loop {
                let score = worker.search_root(pos, &mut root_moves, depth, alpha, beta);
                if worker.stopped {
                    break score;
                }
                if score <= alpha {
                    beta = (alpha + beta) / 2;
                    alpha = (score - delta).max(-INFINITE);
                } else if score >= beta {
                    beta = (score + delta).min(INFINITE);
                } else {
                    break score;
                }
                delta *= 2;
                if delta > 1000 {
                    alpha = -INFINITE;
                    beta = INFINITE;
                }
            };
            if worker.stopped {
                stopped = true;
                // A move that beat the previous best in the unfinished iteration is better
                // informed than the last finished one.
                let front = &root_moves[0];
                if front.depth == depth && front.mv != best.mv && front.score > -INFINITE {
                    best = front.clone();
                    best_score = front.score;
                }
                break;
            }
            completed = depth;
            best = root_moves[0].clone();
            best_score = score;
            if best.pv.is_empty() {
                best.pv = vec![best.mv];
            }
            let elapsed = start.elapsed();
            on_info(&Info {
                depth,
                seldepth: worker.seldepth as u32,
                score: Score::from_internal(score),
                nodes: worker.nodes,
                nps: nps(worker.nodes, elapsed),
                time: elapsed,
                pv: best.pv.clone(),
                hashfull: worker.table().hashfull(),
            });

            if let Some(n) = limits.mate {
                // Mate in at most n moves is at most 2n - 1 plies.
                let plies = 2 * n.min(MAX_DEPTH) as i32 - 1;
                if score >= MATE - plies {
                    break;
                }
            }
            if timed {
                if plan.soft.is_some_and(|s| Instant::now() >= s) {
                    break;
                }
                // A mate for us seen with some depth to spare will not get shorter.
                if score > 0 && is_mate(score) && depth as i32 >= MATE - score + 2 {
                    break;
                }
                if uses_clock && root_moves.len() == 1 && depth >= 2 {
                    break;
                }
            }
        }

        let nodes = worker.nodes;
        let seldepth = worker.seldepth as u32;
        let ponder = best
            .pv
            .get(1)
            .copied()
            .or_else(|| ponder_from_table(worker.table(), pos, best.mv));
        let mut pv = best.pv;
        if pv.first() != Some(&best.mv) {
            pv = vec![best.mv];
        }
        SearchResult {
            best: Some(best.mv),
            ponder,
            score: Score::from_internal(best_score),
            depth: completed,
            seldepth,
            nodes,
            time: start.elapsed(),
            pv,
            stopped,
        }
    }

    /// The root moves (restricted to `searchmoves` when some of them are legal), the table
    /// move first, then in the usual order.
    fn root_moves(&self, pos: &Position, limits: &Limits, legal: crate::MoveList) -> Vec<RootMove> {
        let mut moves = legal;
        if limits.searchmoves.iter().any(|m| moves.contains(m)) {
            moves.retain(|m| limits.searchmoves.contains(m));
        }
        let tt_move = self.tt.probe(pos.hash()).and_then(|h| h.mv);
        let mut picker = MovePicker::new(pos, moves, tt_move, &Killers::new(), &self.history, 0);
        let mut out = Vec::with_capacity(picker.len());
        while let Some(mv) = picker.next_move() {
            out.push(RootMove {
                mv,
                score: -INFINITE,
                depth: 0,
                pv: Vec::new(),
            });
        }
        out
    }
}

/// The deepest iteration the limits allow (at least 1).
/// The answer for a position without a legal move, said once as an `info`: mated (a mate
/// score of 0) or stalemated (0).
pub(crate) fn without_moves(
    pos: &Position,
    start: Instant,
    hashfull: u32,
    on_info: &mut impl FnMut(&Info),
) -> SearchResult {
    let score = if pos.is_check() {
        Score::Mate(0)
    } else {
        Score::Cp(0)
    };
    on_info(&Info {
        depth: 0,
        seldepth: 0,
        score,
        nodes: 0,
        nps: 0,
        time: start.elapsed(),
        pv: Vec::new(),
        hashfull,
    });
    SearchResult {
        best: None,
        ponder: None,
        score,
        depth: 0,
        seldepth: 0,
        nodes: 0,
        time: start.elapsed(),
        pv: Vec::new(),
        stopped: false,
    }
}

fn max_depth(limits: &Limits) -> u32 {
    let mut max = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
    if let Some(n) = limits.mate {
        let alone = limits.depth.is_none() && limits.nodes.is_none() && !limits.has_time_limit();
        if alone {
            max = max.min(2 * n.min(40) + 4).max(1);
        }
    }
    max
}

/// The table's move in the position after `best`, if it is legal there.
fn ponder_from_table(tt: &Table, pos: &Position, best: Move) -> Option<Move> {
    let child = pos.after(best);
    let mv = tt.probe(child.hash())?.mv?;
    child.is_legal(mv).then_some(mv)
}

fn nps(nodes: u64, elapsed: Duration) -> u64 {
    let micros = elapsed.as_micros().max(1);
    (u128::from(nodes) * 1_000_000 / micros) as u64
}
