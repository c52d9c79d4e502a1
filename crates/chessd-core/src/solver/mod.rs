//! Mate-in-N solving: an exact prover for "the side to move mates in at most N moves".
//!
//! Mate in N means the side to move (the attacker) checkmates with at most N of its own moves
//! against every defence. Stalemating the defender is not a mate, and a defender without a
//! legal move that is not in check is stalemated (the attacker fails). Repetitions and the
//! fifty-move rule are ignored, as problem solvers do.
//!
//! The search is a depth-first AND/OR search with iterative deepening on the
//! number of moves at the root (n = 1, 2, … N), so the first n at which a first move works is
//! the proven shortest mate. A lock-free transposition table keyed by position
//! stores proven and disproven bounds (memory bounded by the configured size; it starts small
//! and grows between iterations up to that size). Attacker moves are ordered checks first and
//! fewest defender replies first, defences by table refutation and killer defences; the last
//! attacker move only tries checks. Root moves are shared between threads.
//!
//! ```
//! use chessd_core::{solver::Solver, FenMode, Position};
//! let pos = Position::from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", FenMode::Strict).unwrap();
//! let solution = Solver::new(pos).mate_in(3).find_all_keys(true).solve().unwrap();
//! assert_eq!(solution.mate, Some(1));
//! assert_eq!(solution.main_line, ["Ra8#"]);
//! assert!(solution.unique);
//! ```

mod checks;
mod dfpn;
mod help;
mod legal;
mod limits;
mod search;
mod selfmate;
mod stipulation;
mod table;
mod tree;

use std::{
    fmt,
    sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering::Relaxed},
    time::{Duration, Instant},
};

pub use help::HelpSolution;
pub use limits::StopReason;
pub use selfmate::{SelfDefence, SelfSolution, SelfTree};
pub use stipulation::{Stipulation, StipulationError};
pub use tree::{Defence, MateTree};

use crate::{Move, Position};
use limits::Limits;
use search::{Killers, Searcher, NO_KILLERS};
use table::MateTable;
use tree::TreeBuilder;

/// The longest mate the solver accepts.
pub const MAX_MATE: u32 = 32;

/// The default table size in MiB.
pub const DEFAULT_TABLE_MB: usize = 64;

/// The default limit on the size of the solution trees (attacker moves, all keys together).
pub const DEFAULT_TREE_LIMIT: usize = 100_000;

/// Nodes searched before an iteration is shared between threads (the next iteration is
/// usually some tens of times bigger).
const PARALLEL_MIN_NODES: u64 = 5_000;

/// Table entries allotted for the next iteration per node searched so far. With 64 (before),
/// a sixth of a small solve's time (perf, a #5 of 16 ms) went into zeroing and faulting in a
/// table far bigger than it fills: the #2-#5 problems of `tests/data/exact` took 3.6 s of CPU
/// (one and two threads, each once) and 195,000 page faults; with 16, 3.0 s and 39,000, for
/// 4 % fewer nodes; with 4, 2.8 s, but six game mates in 6 (`dev` set of
/// `tests/data/puzzles/mates_2_8.csv`) then searched 13 % more nodes (with 16: 4 % more
/// nodes, 3 % more CPU).
const TABLE_ENTRIES_PER_NODE: u64 = 16;

/// The smallest table the solver starts with (bytes).
const INITIAL_TABLE_BYTES: usize = 64 << 10;

/// A mate-in-N problem to solve, configured builder-style.
#[derive(Clone, Debug)]
pub struct Solver<'a> {
    pos: Position,
    mate_in: u32,
    threads: usize,
    table_mb: usize,
    find_all_keys: bool,
    keys_within: bool,
    cancel: Option<&'a AtomicBool>,
    progress: Option<&'a AtomicU64>,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    tree_limit: usize,
    shortest: bool,
}

/// What the solver found. (Its serde form, with the `serde` feature, is its fields, moves in
/// their position-free form: a record to keep and read back, not a display form.)
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Solution {
    /// The shortest mate (attacker moves), at most N; `None`: no mate in N.
    pub mate: Option<u32>,
    /// The first moves that mate within [`Solution::mate`] moves, in search order (every one
    /// of them when [`Solution::all_keys`], else the first found).
    pub keys: Vec<Move>,
    /// Whether all keys were searched for (see [`Solver::find_all_keys`]).
    pub all_keys: bool,
    /// Whether there is exactly one key: all keys were searched and one was found. A puzzle
    /// with several keys is cooked.
    pub unique: bool,
    /// When asked for ([`Solver::keys_within`]): every first move that mates within N (not
    /// only in the shortest number of moves), in search order.
    pub keys_within: Option<Vec<Move>>,
    /// One solution tree per key, in the order of [`Solution::keys`].
    pub trees: Vec<MateTree>,
    /// Whether the trees are complete (no subtree cut by the size limit or a stop).
    pub tree_complete: bool,
    /// Whether [`Solution::mate`] is proven the shortest (always in the exact mode
    /// [`Solver::solve`]; in the find mode [`Solver::find`] when the next shorter length was
    /// disproven). Records made before the find mode have no such field and read as `true`.
    #[cfg_attr(feature = "serde", serde(default = "shortest_by_default"))]
    pub shortest_proven: bool,
    /// The main line in SAN: the first key, the most stubborn defence, the answer, … mate.
    pub main_line: Vec<String>,
    /// The main line as moves.
    pub main_line_moves: Vec<Move>,
    /// Positions searched.
    pub nodes: u64,
    /// Wall time of the whole solve.
    pub elapsed: Duration,
}

/// The exact mode's value of [`Solution::shortest_proven`], for records without the field.
#[cfg(feature = "serde")]
fn shortest_by_default() -> bool {
    true
}

impl Solution {
    /// The tree of the first key, if there is a key.
    pub fn tree(&self) -> Option<&MateTree> {
        self.trees.first()
    }
}

/// Why no solution was returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SolveError {
    /// N was outside `1..=MAX_MATE`.
    InvalidMateLength(u32),
    /// The side not to move is in check (a lenient position that cannot arise in play).
    OpponentInCheck,
    /// A limit stopped the search before it finished.
    Stopped {
        /// Which limit.
        reason: StopReason,
        /// Mates up to this many moves were ruled out before the stop.
        no_mate_within: u32,
        /// Positions searched.
        nodes: u64,
        /// Time spent.
        elapsed: Duration,
    },
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::InvalidMateLength(n) => {
                write!(f, "mate length {n} is outside 1..={MAX_MATE}")
            }
            SolveError::OpponentInCheck => f.write_str("the side not to move is in check"),
            SolveError::Stopped {
                reason,
                no_mate_within,
                nodes,
                ..
            } => {
                let why = match reason {
                    StopReason::Cancelled => "cancelled",
                    StopReason::TimeLimit => "time limit reached",
                    StopReason::NodeLimit => "node limit reached",
                };
                write!(f, "{why} after {nodes} nodes")?;
                if *no_mate_within > 0 {
                    write!(f, " (no mate in {no_mate_within} or fewer)")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for SolveError {}

impl<'a> Solver<'a> {
    /// A solver for `pos` (the side to move mates): mate in 2, one thread, a
    /// [`DEFAULT_TABLE_MB`] table, the first key only, no limits.
    pub fn new(pos: Position) -> Solver<'a> {
        Solver {
            pos,
            mate_in: 2,
            threads: 1,
            table_mb: DEFAULT_TABLE_MB,
            find_all_keys: false,
            keys_within: false,
            cancel: None,
            progress: None,
            deadline: None,
            node_limit: None,
            tree_limit: DEFAULT_TREE_LIMIT,
            shortest: false,
        }
    }

    /// Looks for mates in at most `n` moves (`1..=MAX_MATE`).
    pub fn mate_in(mut self, n: u32) -> Self {
        self.mate_in = n;
        self
    }

    /// Search threads (root moves are shared out); 0 means one per available core.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// The most memory the transposition table may take, in MiB.
    pub fn table_mb(mut self, mib: usize) -> Self {
        self.table_mb = mib;
        self
    }

    /// Whether to find every key at the shortest length (deciding uniqueness) rather than
    /// stopping at the first.
    pub fn find_all_keys(mut self, all: bool) -> Self {
        self.find_all_keys = all;
        self
    }

    /// Whether to also list every first move that mates within N, even if not in the
    /// shortest number of moves (costs a full search of the other first moves at N).
    pub fn keys_within(mut self, within: bool) -> Self {
        self.keys_within = within;
        self
    }

    /// A flag that stops the search when set (checked every thousand nodes or so).
    pub fn cancel(mut self, flag: &'a AtomicBool) -> Self {
        self.cancel = Some(flag);
        self
    }

    /// A counter the search adds its nodes to as it goes (every thousand nodes or so), so that
    /// another thread can show its progress.
    pub fn progress(mut self, nodes: &'a AtomicU64) -> Self {
        self.progress = Some(nodes);
        self
    }

    /// A point in time at which the search stops.
    pub fn deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// Stops the search after about this many positions.
    pub fn node_limit(mut self, nodes: u64) -> Self {
        self.node_limit = Some(nodes);
        self
    }

    /// The most attacker moves the solution trees may hold together (larger trees are cut).
    pub fn tree_limit(mut self, moves: usize) -> Self {
        self.tree_limit = moves;
        self
    }

    /// In the find mode ([`Solver::find`]): after a mate is found, search again at its
    /// length minus one, and so on, until the shortest is proven or a limit stops it.
    pub fn shortest(mut self, shortest: bool) -> Self {
        self.shortest = shortest;
        self
    }

    /// The find mode: a proven forced mate in at most N moves, not necessarily the shortest
    /// (unless [`Solver::shortest`] proves it), with one complete proof tree; found by
    /// depth-first proof-number search (see the `dfpn` module). One thread; the key, the
    /// tree and the main line as in [`Solver::solve`], `all_keys` and `unique` false.
    pub fn find(&self) -> Result<Solution, SolveError> {
        let start = Instant::now();
        self.validate()?;
        dfpn::find(self, self.shortest, start)
    }

    /// The helpmate `h#N` (N from [`Solver::mate_in`]): the side to move begins and is
    /// mated by the other side's Nth move, both cooperating. Every solution is listed (see
    /// the `help` module); one thread, the table size and limits as set.
    ///
    /// ```
    /// use chessd_core::{solver::Solver, FenMode, Position};
    /// // h#1: only 1...Kh8 2.Ra8# (every pawn move would free a flight square).
    /// let pos = Position::from_fen("6k1/5ppp/8/8/8/8/8/R5K1 b - - 0 1", FenMode::Strict).unwrap();
    /// let help = Solver::new(pos).mate_in(1).helpmate().unwrap();
    /// assert!(help.unique());
    /// let line = &help.solutions[0];
    /// assert_eq!(pos.uci(line[0]), "g8h8");
    /// assert_eq!(pos.after(line[0]).uci(line[1]), "a1a8");
    /// ```
    pub fn helpmate(&self) -> Result<HelpSolution, SolveError> {
        let start = Instant::now();
        self.validate()?;
        help::solve(self, start)
    }

    /// The selfmate `s#N` (N from [`Solver::mate_in`]): the side to move begins and forces
    /// the other side to mate it within N moves; every key and one complete tree per key
    /// (see the `selfmate` module). One thread, the table size, limits and tree limit as set.
    pub fn selfmate(&self) -> Result<SelfSolution, SolveError> {
        let start = Instant::now();
        self.validate()?;
        selfmate::solve(self, start)
    }

    /// The errors both modes report before searching.
    fn validate(&self) -> Result<(), SolveError> {
        if !(1..=MAX_MATE).contains(&self.mate_in) {
            return Err(SolveError::InvalidMateLength(self.mate_in));
        }
        let us = self.pos.turn();
        if self
            .pos
            .is_attacked(self.pos.king(!us), us, self.pos.occupied())
        {
            return Err(SolveError::OpponentInCheck);
        }
        Ok(())
    }

    /// Runs the search.
    pub fn solve(&self) -> Result<Solution, SolveError> {
        let start = Instant::now();
        self.validate()?;
        let threads = match self.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            t => t,
        };
        let limits = Limits::of(self);
        let max_bytes = self.table_mb.saturating_mul(1 << 20);
        let mut table = MateTable::with_bytes(INITIAL_TABLE_BYTES.min(max_bytes));
        let mut killers = vec![NO_KILLERS; threads];
        let mut nodes = 0u64;
        let stopped = |reason: StopReason, within: u32, nodes: u64| SolveError::Stopped {
            reason,
            no_mate_within: within,
            nodes,
            elapsed: start.elapsed(),
        };

        let root = root_moves(&self.pos);
        // The order in which threads take the root moves, and each move's nodes in the last
        // iteration (see `schedule`).
        let mut order: Vec<usize> = (0..root.len()).collect();
        let mut sizes = vec![0u64; root.len()];
        let mut mate = None;
        let mut keys = Vec::new();
        for n in 1..=self.mate_in {
            if let Some(reason) = limits.check_now() {
                return Err(stopped(reason, n - 1, nodes));
            }
            // Grow the table for the coming iteration (usually some tens of times bigger than
            // all before it): TABLE_ENTRIES_PER_NODE entries of 16 bytes per node so far,
            // within the limit. When old and new table would not fit together, the old
            // entries are given up.
            let wanted =
                (nodes.saturating_mul(TABLE_ENTRIES_PER_NODE * 16)).min(max_bytes as u64) as usize;
            if wanted > table.bytes() * 2 {
                table = if table.bytes() + wanted <= max_bytes {
                    table.resized(wanted)
                } else {
                    drop(std::mem::replace(&mut table, MateTable::with_bytes(0)));
                    MateTable::with_bytes(wanted)
                };
            }
            let threads_now = active(&mut killers, nodes);
            if threads_now.len() > 1 && self.find_all_keys {
                order = schedule(&sizes);
            }
            let iteration = Iteration {
                pos: &self.pos,
                moves: &root,
                order: &order,
                n,
                first_only: !self.find_all_keys,
                table: &table,
                limits: &limits,
            };
            let results = iteration.run(threads_now, &mut nodes, &mut sizes);
            if let Some(reason) = iteration.incomplete(&results) {
                return Err(stopped(reason, n - 1, nodes));
            }
            keys = found(&root, &results);
            if !keys.is_empty() {
                mate = Some(n);
                break;
            }
        }

        let keys_within = match (self.keys_within, mate) {
            (false, _) => None,
            (true, None) => Some(Vec::new()),
            (true, Some(m)) if m == self.mate_in && self.find_all_keys => Some(keys.clone()),
            (true, Some(_)) => {
                let threads_now = active(&mut killers, nodes);
                if threads_now.len() > 1 {
                    order = schedule(&sizes);
                }
                let iteration = Iteration {
                    pos: &self.pos,
                    moves: &root,
                    order: &order,
                    n: self.mate_in,
                    first_only: false,
                    table: &table,
                    limits: &limits,
                };
                let results = iteration.run(threads_now, &mut nodes, &mut sizes);
                if let Some(reason) = iteration.incomplete(&results) {
                    return Err(stopped(reason, mate.unwrap_or(1) - 1, nodes));
                }
                Some(found(&root, &results))
            }
        };

        let mut searcher = Searcher::new(&table, &limits, killers[0]);
        let mut builder = TreeBuilder::new(&mut searcher, self.tree_limit);
        let trees: Vec<MateTree> = match mate {
            Some(m) => keys
                .iter()
                .map(|&key| builder.build(&self.pos, key, m))
                .collect(),
            None => Vec::new(),
        };
        let tree_complete = builder.complete;
        nodes += searcher.finish().1;

        let main_line_moves = trees.first().map(MateTree::main_line).unwrap_or_default();
        let main_line = san_line(&self.pos, &main_line_moves);
        Ok(Solution {
            mate,
            unique: self.find_all_keys && keys.len() == 1,
            all_keys: self.find_all_keys,
            keys,
            keys_within,
            trees,
            tree_complete,
            shortest_proven: true,
            main_line,
            main_line_moves,
            nodes,
            elapsed: start.elapsed(),
        })
    }
}

/// The killer sets of the threads to use for the next iteration: one while the search is
/// small (starting threads would cost more than they save), else all.
fn active(killers: &mut [Killers], nodes_so_far: u64) -> &mut [Killers] {
    if nodes_so_far < PARALLEL_MIN_NODES {
        &mut killers[..1]
    } else {
        killers
    }
}

/// The order in which threads take the root moves when every one must be settled: the
/// biggest searches of the last iteration first (ties in search order), so that no thread is
/// left alone with a big one at the end.
fn schedule(sizes: &[u64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    order
}

/// The root moves in search order (mates, checks, then the rest, each by fewest replies),
/// without the moves that stalemate.
fn root_moves(pos: &Position) -> Vec<Move> {
    let mut moves: Vec<(u32, usize, Move)> = Vec::new();
    for &mv in pos.legal_moves().iter() {
        let child = pos.after(mv);
        let replies = child.count_legal() as u32;
        let class = match (child.is_check(), replies) {
            (true, 0) => 0,
            (false, 0) => continue,
            (true, _) => 1,
            (false, _) => 2,
        };
        moves.push(((class << 16) | replies, moves.len(), mv));
    }
    moves.sort_unstable_by_key(|&(key, index, _)| (key, index));
    moves.into_iter().map(|(_, _, mv)| mv).collect()
}

/// The moves whose result is a proven mate.
fn found(moves: &[Move], results: &[u8]) -> Vec<Move> {
    moves
        .iter()
        .zip(results)
        .filter(|&(_, &r)| r == WIN)
        .map(|(&mv, _)| mv)
        .collect()
}

/// `line` in SAN, played from `pos`.
fn san_line(pos: &Position, line: &[Move]) -> Vec<String> {
    let mut pos = *pos;
    line.iter()
        .map(|&mv| {
            let san = pos.san(mv);
            pos.play_unchecked(mv);
            san
        })
        .collect()
}

/// Root result codes.
const UNKNOWN: u8 = 0;
const FAIL: u8 = 1;
const WIN: u8 = 2;

/// One root iteration: every root move searched for a mate within `n`.
struct Iteration<'r, 'a> {
    pos: &'r Position,
    moves: &'r [Move],
    /// The indices of `moves` in the order the threads take them.
    order: &'r [usize],
    n: u32,
    first_only: bool,
    table: &'r MateTable,
    limits: &'r Limits<'a>,
}

impl Iteration<'_, '_> {
    /// Why the iteration did not settle every root move it had to, if it did not.
    fn incomplete(&self, results: &[u8]) -> Option<StopReason> {
        let done = if self.first_only {
            results.contains(&WIN) || !results.contains(&UNKNOWN)
        } else {
            !results.contains(&UNKNOWN)
        };
        if done {
            None
        } else {
            // Only a limit leaves moves unsettled.
            Some(self.limits.stop_reason().unwrap_or(StopReason::Cancelled))
        }
    }

    /// Searches the root moves on one thread per killer set; returns a code per move and
    /// sets `sizes` to each settled move's nodes.
    fn run(&self, killers: &mut [Killers], nodes: &mut u64, sizes: &mut [u64]) -> Vec<u8> {
        let results: Vec<AtomicU8> = self.moves.iter().map(|_| AtomicU8::new(UNKNOWN)).collect();
        let searched: Vec<AtomicU64> = sizes.iter().map(|&n| AtomicU64::new(n)).collect();
        let next = AtomicUsize::new(0);
        if killers.len() == 1 {
            *nodes += self.work(&mut killers[0], &next, &results, &searched, false);
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = killers
                    .iter_mut()
                    .map(|k| s.spawn(|| self.work(k, &next, &results, &searched, true)))
                    .collect();
                for h in handles {
                    // A searcher thread does not panic; count nothing if one did.
                    *nodes += h.join().unwrap_or(0);
                }
            });
        }
        self.limits.set_enough(false);
        for (size, searched) in sizes.iter_mut().zip(searched) {
            *size = searched.into_inner();
        }
        results.into_iter().map(AtomicU8::into_inner).collect()
    }

    /// One thread's share: takes root moves until none is left; then, when every move must
    /// be settled and other threads are still at theirs, helps with the unsettled ones (the
    /// biggest first): the shared table gives the helper what the other has proven, the first
    /// to settle a move settles it and the other abandons it. A thread that is late (a busy
    /// machine, or one big move at the end) so no longer holds the iteration up alone.
    /// Returns the thread's node count.
    fn work<'s>(
        &'s self,
        killers: &mut Killers,
        next: &AtomicUsize,
        results: &'s [AtomicU8],
        sizes: &[AtomicU64],
        shared: bool,
    ) -> u64 {
        let mut searcher = Searcher::new(self.table, self.limits, *killers);
        let helping = shared && !self.first_only;
        while !(self.first_only && self.limits.is_enough()) {
            let i = match self.order.get(next.fetch_add(1, Relaxed)) {
                Some(&i) => i,
                None if helping => {
                    match self
                        .order
                        .iter()
                        .find(|&&i| results[i].load(Relaxed) == UNKNOWN)
                    {
                        Some(&i) => i,
                        None => break,
                    }
                }
                None => break,
            };
            let mv = self.moves[i];
            if helping {
                searcher.watch(&results[i]);
            }
            let before = searcher.nodes;
            let answer = searcher.defend(&self.pos.after(mv), self.n - 1, 1);
            match answer {
                Some(true) => {
                    sizes[i].store(searcher.nodes - before, Relaxed);
                    results[i].store(WIN, Relaxed);
                    if self.first_only {
                        self.limits.set_enough(true);
                        break;
                    }
                }
                Some(false) => {
                    sizes[i].store(searcher.nodes - before, Relaxed);
                    results[i].store(FAIL, Relaxed);
                }
                None if searcher.take_abandoned() => {}
                None => break,
            }
        }
        let (k, nodes) = searcher.finish();
        *killers = k;
        nodes
    }
}
