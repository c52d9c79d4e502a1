//! The prover: a depth-first AND/OR search on the number of attacker moves left.
//!
//! `attack(pos, n)` (OR node) asks whether the side to move mates within `n` of its moves;
//! `defend(pos, k)` (AND node) asks whether every defence of the side to move loses to a mate
//! within `k` more attacker moves. A defender without legal moves is mated if in check and
//! stalemated (the attacker fails) otherwise. The last attacker move only looks at checks.
//!
//! Ordering: at attacker nodes the move the table remembers, then checks, then the rest, each
//! group by the fewest defender replies (with two moves left quiet moves are not counted: all
//! of them must be refuted anyway); at defender nodes the refutation the table remembers, then
//! checking defences, then the killer defences of the ply (refutations found in sibling
//! nodes), then captures; with one attacker move left, only the killers go first, tried
//! before the other defences are generated.
//!
//! Table: defender nodes with one attacker move left (`k = 1`) are neither looked up nor
//! stored. They are most of the nodes, each is searched again quickly (a killer defence and
//! a mate-in-one test), and their lookups, mostly misses in memory, cost more than they saved:
//! on the `dev` game mates in 5 to 8 the solver took half the time without them.

use super::{
    checks::{mate_in_one, CheckSquares},
    legal::quick_legal,
    limits::{Limits, CHECK_INTERVAL},
    table::{Entry, MateTable},
    MAX_MATE,
};
use crate::{Move, Position, MAX_MOVES};
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// The deepest ply a search reaches (two per attacker move).
const MAX_PLY: usize = 2 * MAX_MATE as usize + 2;

/// The fewest attacker moves left at a defender node for the table to be used there.
const TABLE_MIN_K: u32 = 2;

/// The fewest attacker moves left at a defender node for its defences to be fully ordered.
const ORDERED_MIN_K: u32 = 2;

/// The position after `mv`, with its key only when `hashed` (a search that does not reach the
/// table from there never reads it: attacker nodes with one move left and defender nodes
/// below [`TABLE_MIN_K`]).
#[inline(always)]
fn child(pos: &Position, mv: Move, hashed: bool) -> Position {
    if hashed {
        pos.after(mv)
    } else {
        pos.after_unhashed(mv)
    }
}

/// What the defences of a position came to.
enum Defences {
    /// This defence escapes the mate.
    Refuted(Move),
    /// The defender has no legal move (mated or stalemated).
    NoLegalMove,
    /// Every defence loses.
    AllLose,
}

/// Killer defences: per ply, the two most recent refutations.
pub(crate) type Killers = [[Option<Move>; 2]; MAX_PLY];

/// No killers yet.
pub(crate) const NO_KILLERS: Killers = [[None; 2]; MAX_PLY];

/// One thread's search state over a shared table and shared limits.
pub(crate) struct Searcher<'a> {
    table: &'a MateTable,
    limits: &'a Limits<'a>,
    /// Nodes this searcher visited.
    pub nodes: u64,
    pending: u64,
    stopped: bool,
    killers: Killers,
    /// The result slot of the root move being searched, when other threads may settle it
    /// too: once it is settled the search is abandoned (see [`Searcher::watch`]).
    watched: Option<&'a AtomicU8>,
    /// Whether the search stopped because the watched root move was settled elsewhere.
    abandoned: bool,
}

/// Moves with sort keys, on the stack.
struct Ordered {
    len: usize,
    items: [(u32, Move); MAX_MOVES],
}

impl Ordered {
    fn new() -> Ordered {
        Ordered {
            len: 0,
            items: [(0, Move::normal(crate::Square::A1, crate::Square::A1)); MAX_MOVES],
        }
    }

    fn push(&mut self, key: u32, mv: Move) {
        self.items[self.len] = (key, mv);
        self.len += 1;
    }

    fn sort(&mut self) {
        self.items[..self.len].sort_unstable_by_key(|&(key, _)| key);
    }

    fn moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.items[..self.len].iter().map(|&(_, mv)| mv)
    }
}

/// Sort classes of attacker moves (lower first).
const CLASS_TABLE: u32 = 0;
const CLASS_CHECK: u32 = 1;
const CLASS_QUIET: u32 = 2;

impl<'a> Searcher<'a> {
    /// A searcher starting with the given killers.
    pub(super) fn new(
        table: &'a MateTable,
        limits: &'a Limits<'a>,
        killers: Killers,
    ) -> Searcher<'a> {
        Searcher {
            table,
            limits,
            nodes: 0,
            pending: 0,
            stopped: false,
            killers,
            watched: None,
            abandoned: false,
        }
    }

    /// Searches from now on for the root move whose result is `slot` (0 while unsettled):
    /// when another thread settles it, the search stops (as for a limit, checked every
    /// [`CHECK_INTERVAL`] nodes) and [`Searcher::take_abandoned`] tells so.
    pub(super) fn watch(&mut self, slot: &'a AtomicU8) {
        self.watched = Some(slot);
        self.abandoned = false;
        self.stopped = false;
    }

    /// Whether the last search stopped because its root move was settled elsewhere (and not
    /// for a limit); clears that state so that the searcher can go on.
    pub(super) fn take_abandoned(&mut self) -> bool {
        let abandoned = std::mem::take(&mut self.abandoned);
        if abandoned {
            self.stopped = false;
        }
        abandoned
    }

    /// Reports the pending nodes and returns the killers and the nodes visited.
    pub(super) fn finish(mut self) -> (Killers, u64) {
        self.flush();
        (self.killers, self.nodes)
    }

    /// Reports the nodes not yet counted by the shared limits.
    pub(super) fn flush(&mut self) {
        let batch = std::mem::take(&mut self.pending);
        if self.limits.report(batch) {
            self.stopped = true;
            self.abandoned = false;
        } else if self.watched.is_some_and(|slot| slot.load(Relaxed) != 0) {
            self.stopped = true;
            self.abandoned = true;
        }
    }

    /// Counts a node; `None` when the search must stop.
    #[inline]
    fn visit(&mut self) -> Option<()> {
        if self.stopped {
            return None;
        }
        self.nodes += 1;
        self.pending += 1;
        if self.pending >= CHECK_INTERVAL {
            self.flush();
            if self.stopped {
                return None;
            }
        }
        Some(())
    }

    /// Whether the side to move mates within `n >= 1` of its moves; `None` if stopped.
    pub(super) fn attack(&mut self, pos: &Position, n: u32, ply: usize) -> Option<bool> {
        self.visit()?;
        if n <= 1 {
            return Some(mate_in_one(pos).is_some());
        }
        let entry = self.table.probe(pos.hash());
        if let Some(answer) = entry.answer(n) {
            return Some(answer);
        }
        let moves = match self.order_attacks(pos, entry.mv, n > 2) {
            Ok(moves) => moves,
            Err(mate) => {
                self.table.store(pos.hash(), 1, true, Some(mate));
                return Some(true);
            }
        };
        for mv in moves.moves() {
            if self.defend(&child(pos, mv, n > TABLE_MIN_K), n - 1, ply + 1)? {
                self.table.store(pos.hash(), n, true, Some(mv));
                return Some(true);
            }
        }
        self.table.store(pos.hash(), n, false, None);
        Some(false)
    }

    /// Whether every defence of the side to move loses to a mate within `k` attacker moves
    /// (`k = 0`: whether it is checkmated now); `None` if stopped.
    pub(super) fn defend(&mut self, pos: &Position, k: u32, ply: usize) -> Option<bool> {
        self.visit()?;
        if k == 0 {
            return Some(pos.is_checkmate());
        }
        let entry = if k >= TABLE_MIN_K {
            self.table.probe(pos.hash())
        } else {
            Entry::default()
        };
        if let Some(answer) = entry.answer(k) {
            return Some(answer);
        }
        let slot = ply.min(MAX_PLY - 1);
        let defences = if k >= ORDERED_MIN_K {
            self.defend_ordered(pos, k, ply, entry.mv)?
        } else {
            self.defend_hinted(pos, k, ply)?
        };
        match defences {
            Defences::Refuted(mv) => Some(self.refuted(pos, k, slot, mv)),
            Defences::NoLegalMove => Some(pos.is_check()),
            Defences::AllLose => {
                if k >= TABLE_MIN_K {
                    self.table.store(pos.hash(), k, true, None);
                }
                Some(true)
            }
        }
    }

    /// The defences of `pos` (`k >= 2` attacker moves left) in full order: the table move,
    /// then checks, then the killers, then captures (most valuable victim first), then the
    /// rest. A checking defence leaves the attacker only its evasions, so it is the likeliest
    /// cheap refutation: tried before the killers, the dev game mates in 5 to 8 took 35 %
    /// fewer nodes and time.
    fn defend_ordered(
        &mut self,
        pos: &Position,
        k: u32,
        ply: usize,
        hint: Option<Move>,
    ) -> Option<Defences> {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Some(Defences::NoLegalMove);
        }
        let [k1, k2] = self.killers[ply.min(MAX_PLY - 1)];
        let mut ordered = Ordered::new();
        let theirs = pos.by_color(!pos.turn());
        for (i, &mv) in moves.iter().enumerate() {
            let mut sub = i as u32;
            let class = if Some(mv) == hint {
                0
            } else if pos.after_unhashed(mv).is_check() {
                1
            } else if Some(mv) == k1 || Some(mv) == k2 {
                2
            } else if let Some(victim) = theirs
                .contains(mv.to())
                .then(|| pos.role_on(mv.to()))
                .flatten()
            {
                sub |= (5 - victim.index() as u32) << 8;
                3
            } else {
                4
            };
            ordered.push((class << 20) | sub, mv);
        }
        ordered.sort();
        for mv in ordered.moves() {
            if !self.attack(&pos.after(mv), k, ply + 1)? {
                return Some(Defences::Refuted(mv));
            }
        }
        Some(Defences::AllLose)
    }

    /// The defences of `pos` with one attacker move left: the killers first, before every
    /// defence is generated (most such nodes are refuted by a killer; ordering the rest
    /// costs more than it saves there).
    fn defend_hinted(&mut self, pos: &Position, k: u32, ply: usize) -> Option<Defences> {
        let [k1, k2] = self.killers[ply.min(MAX_PLY - 1)];
        let mut tried: [Option<Move>; 2] = [None; 2];
        for (i, hint) in [k1, k2].into_iter().enumerate() {
            let Some(mv) = hint else { continue };
            if tried[..i].contains(&hint) || !quick_legal(pos, mv) {
                continue;
            }
            tried[i] = hint;
            if !self.attack(&child(pos, mv, k >= 2), k, ply + 1)? {
                return Some(Defences::Refuted(mv));
            }
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Some(Defences::NoLegalMove);
        }
        for &mv in moves.iter() {
            if tried.contains(&Some(mv)) {
                continue;
            }
            if !self.attack(&child(pos, mv, k >= 2), k, ply + 1)? {
                return Some(Defences::Refuted(mv));
            }
        }
        Some(Defences::AllLose)
    }

    /// Records the refutation `mv` of `pos` (k attacker moves left) in the table (from
    /// [`TABLE_MIN_K`] on) and the killers of its ply; returns `false` (not mated).
    fn refuted(&mut self, pos: &Position, k: u32, slot: usize, mv: Move) -> bool {
        if k >= TABLE_MIN_K {
            self.table.store(pos.hash(), k, false, Some(mv));
        }
        let killers = &mut self.killers[slot];
        if killers[0] != Some(mv) {
            killers[1] = killers[0];
            killers[0] = Some(mv);
        }
        false
    }

    /// The first move (in search order) that mates within `n >= 1`, or `Some(None)` when
    /// there is none; `None` if stopped.
    pub(super) fn mating_move(&mut self, pos: &Position, n: u32) -> Option<Option<Move>> {
        if n == 1 {
            self.visit()?;
            return Some(mate_in_one(pos));
        }
        let entry = self.table.probe(pos.hash());
        let moves = match self.order_attacks(pos, entry.mv, n > 2) {
            Ok(moves) => moves,
            Err(mate) => return Some(Some(mate)),
        };
        for mv in moves.moves() {
            if self.defend(&pos.after(mv), n - 1, 1)? {
                return Some(Some(mv));
            }
        }
        Some(None)
    }

    /// The attacker's moves in search order, or `Err` with a move that mates at once.
    /// Moves that stalemate are left out.
    ///
    /// With `count_quiet` false (two moves left, where every quiet move must be refuted
    /// anyway) only checks are played out and counted; quiet moves keep generation order.
    fn order_attacks(
        &self,
        pos: &Position,
        hint: Option<Move>,
        count_quiet: bool,
    ) -> Result<Ordered, Move> {
        let mut out = Ordered::new();
        let mut index = 0u32;
        let mut mate = None;
        let cs = CheckSquares::new(pos);
        pos.generate_moves(|group| {
            let candidates = cs.candidates(pos, &group);
            for mv in group {
                let class;
                let mut replies = 0;
                if count_quiet || candidates.contains(mv.to()) {
                    let child = pos.after_unhashed(mv);
                    replies = child.count_legal() as u32;
                    let check = child.is_check();
                    if replies == 0 {
                        if check {
                            mate = Some(mv);
                            return true;
                        }
                        continue;
                    }
                    class = if check { CLASS_CHECK } else { CLASS_QUIET };
                } else {
                    class = CLASS_QUIET;
                }
                let class = if Some(mv) == hint { CLASS_TABLE } else { class };
                out.push(
                    (class << 20) | (replies.min(1023) << 10) | index.min(1023),
                    mv,
                );
                index += 1;
            }
            false
        });
        if let Some(mv) = mate {
            return Err(mv);
        }
        out.sort();
        Ok(out)
    }
}
