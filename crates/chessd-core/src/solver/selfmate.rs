//! Selfmates (`s#N`): the side to move (the attacker, White in a problem) begins and forces
//! the other side (the defender) to checkmate it within N defender moves, the defender trying
//! not to. At the last move the defender must have legal moves and every one of them must
//! mate; earlier, a defence that mates the attacker is the attacker's success, and every other
//! defence must be answered. A stalemated side, or an attacker move that mates the defender,
//! fails.
//!
//! The search is a depth-first AND/OR search with a table of proven results per position and
//! moves left (a win within n is a win within n + 1, so each entry is exact for its n). Every
//! first move is searched at N, so the keys are all the first moves that work; the tree of
//! each key answers every defence with the attacker's shortest continuation.
//!
//! Move ordering (it changes the time, never the answer): the attacker tries checks first,
//! then the moves that leave the defender fewest replies; the defender tries first the
//! defence that last refuted at the same number of moves left (a killer), then the defences
//! that cannot check (so cannot mate the attacker), then the rest. The defender's last move
//! is tested without making most moves: a move that cannot give check (by the check squares
//! of [`CheckSquares`]) refutes at once.

use std::{
    collections::HashMap,
    hash::{BuildHasherDefault, Hasher},
    time::Instant,
};

use super::{
    checks::CheckSquares,
    limits::{Limits, NodeCount},
    SolveError, Solver,
};
use crate::{Move, MoveList, Position};

/// The solution of a selfmate.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SelfSolution {
    /// The defender moves N.
    pub moves: u32,
    /// Every first move that forces the defender to mate within N, in move generation order.
    pub keys: Vec<Move>,
    /// One tree per key, in the order of [`SelfSolution::keys`].
    pub trees: Vec<SelfTree>,
    /// Whether the trees are complete (none cut at the size limit).
    pub tree_complete: bool,
    /// Positions searched.
    pub nodes: u64,
    /// Wall time of the solve.
    pub elapsed: std::time::Duration,
}

impl SelfSolution {
    /// Whether there is exactly one key.
    pub fn unique(&self) -> bool {
        self.keys.len() == 1
    }
}

/// An attacker move and every legal defence against it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SelfTree {
    /// The attacker's move.
    pub mv: Move,
    /// Defender moves to the forced mate from here, against the most stubborn defence.
    pub mate_in: u32,
    /// Every legal defence, in move generation order (empty only when the tree was cut).
    pub defences: Vec<SelfDefence>,
    /// Whether the defences were left out at the tree size limit.
    pub truncated: bool,
}

/// A defence in a selfmate tree: it mates the attacker, or the attacker answers it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SelfDefence {
    /// The defender's move.
    pub mv: Move,
    /// Whether this move checkmates the attacker (the tree ends here).
    pub mates: bool,
    /// The attacker's shortest forcing answer, when the move does not mate.
    pub reply: Option<SelfTree>,
}

impl SelfTree {
    /// The number of attacker moves in the tree.
    pub fn attacker_moves(&self) -> usize {
        1 + self
            .defences
            .iter()
            .filter_map(|d| d.reply.as_ref())
            .map(SelfTree::attacker_moves)
            .sum::<usize>()
    }
}

/// Solves the selfmate in `solver`'s N.
pub(super) fn solve(solver: &Solver<'_>, start: Instant) -> Result<SelfSolution, SolveError> {
    let limits = Limits::of(solver);
    let mut search = SelfSearch {
        limits: &limits,
        table: HashMap::default(),
        cap: (solver.table_mb.max(1) << 20) / 32,
        count: NodeCount::default(),
        killers: Vec::new(),
    };
    let n = solver.mate_in;
    let pos = &solver.pos;
    let mut keys = Vec::new();
    for &mv in pos.legal_moves().iter() {
        let won = search.forced(&pos.after(mv), n);
        search.count.check(start)?;
        if won {
            keys.push(mv);
        }
    }
    let mut budget = solver.tree_limit;
    let mut complete = true;
    let trees = keys
        .iter()
        .map(|&key| search.tree(pos, key, n, &mut budget, &mut complete))
        .collect();
    Ok(SelfSolution {
        moves: n,
        keys,
        trees,
        tree_complete: complete && search.count.stopped.is_none(),
        nodes: search.count.nodes,
        elapsed: start.elapsed(),
    })
}

/// Whether the side to move is checkmated.
fn is_mate(pos: &Position) -> bool {
    pos.is_check() && !pos.has_legal_moves()
}

/// The legal moves of the side to move, each with whether it may give check (a superset of
/// the checking moves, from the check squares: `false` means it certainly does not), the
/// moves that cannot check first.
fn quiet_first(pos: &Position) -> Vec<(Move, bool)> {
    let cs = CheckSquares::new(pos);
    let mut quiet = Vec::new();
    let mut checks = Vec::new();
    pos.generate_moves(|group| {
        let candidates = cs.candidates(pos, &group);
        for mv in group {
            if candidates.contains(mv.to()) {
                checks.push((mv, true));
            } else {
                quiet.push((mv, false));
            }
        }
        false
    });
    quiet.append(&mut checks);
    quiet
}

/// The defender's last move: whether the side to move has a legal move and every one of them
/// checkmates the other side. Any move that cannot give check refutes before a move is made.
fn every_move_mates(pos: &Position) -> bool {
    let cs = CheckSquares::new(pos);
    let mut checks = MoveList::new();
    let refuted = pos.generate_moves(|group| {
        let candidates = cs.candidates(pos, &group);
        if (group.to - candidates).nonempty() {
            return true;
        }
        for mv in group {
            checks.push(mv);
        }
        false
    });
    !refuted
        && !checks.is_empty()
        && checks.iter().all(|&mv| {
            let child = pos.after_unhashed(mv);
            child.is_check() && !child.has_legal_moves()
        })
}

/// A hasher for keys that begin with a Zobrist hash (already uniform): it mixes the words in
/// instead of running SipHash over them.
#[derive(Default)]
pub(super) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
}

struct SelfSearch<'l, 'a> {
    limits: &'l Limits<'a>,
    /// (position key, defender moves left) → whether the attacker wins; both sides' nodes.
    table: HashMap<(u64, u32), bool, BuildHasherDefault<KeyHasher>>,
    cap: usize,
    count: NodeCount,
    /// Per defender moves left: the defence that last refuted (tried first).
    killers: Vec<Option<Move>>,
}

impl SelfSearch<'_, '_> {
    fn visit(&mut self) -> bool {
        self.count.visit(self.limits)
    }

    fn store(&mut self, key: (u64, u32), value: bool) -> bool {
        if self.count.stopped.is_none() {
            if self.table.len() >= self.cap {
                self.table.clear();
            }
            self.table.insert(key, value);
        }
        value
    }

    /// Attacker to move: whether some move forces the defender to mate within `n`.
    fn wins(&mut self, pos: &Position, n: u32) -> bool {
        if n == 0 || self.visit() {
            return false;
        }
        let key = (pos.hash(), 2 * n);
        if let Some(&v) = self.table.get(&key) {
            return v;
        }
        let mut won = false;
        if n == 1 {
            // The defender's last move: no table, so the children need no hash.
            for &mv in pos.legal_moves().iter() {
                if self.visit() {
                    return false;
                }
                if every_move_mates(&pos.after_unhashed(mv)) {
                    won = true;
                    break;
                }
            }
            return self.store(key, won);
        }
        for child in self.attacker_children(pos) {
            if self.forced(&child, n) {
                won = true;
                break;
            }
            if self.count.stopped.is_some() {
                return false;
            }
        }
        self.store(key, won)
    }

    /// The positions after each attacker move, ordered: checks first, then fewest defender
    /// replies first within each group.
    fn attacker_children(&mut self, pos: &Position) -> Vec<Position> {
        let mut children: Vec<(u32, Position)> = pos
            .legal_moves()
            .iter()
            .map(|&mv| {
                let child = pos.after(mv);
                let check = u32::from(!child.is_check()) << 16;
                let replies = child.count_legal() as u32;
                (check | replies, child)
            })
            .collect();
        children.sort_by_key(|&(rank, _)| rank);
        children.into_iter().map(|(_, child)| child).collect()
    }

    /// Defender to move: whether every defence mates the attacker or (with moves left) leads
    /// to a position the attacker wins within `n - 1`.
    fn forced(&mut self, pos: &Position, n: u32) -> bool {
        if self.visit() {
            return false;
        }
        if n == 1 {
            // Cheap enough to recompute: most positions refute on the first move group.
            return every_move_mates(pos);
        }
        let key = (pos.hash(), 2 * n + 1);
        if let Some(&v) = self.table.get(&key) {
            return v;
        }
        let mut order = quiet_first(pos);
        if order.is_empty() {
            return self.store(key, false);
        }
        // The killer first, then the defences that cannot check (they cannot mate the
        // attacker, so each must be answered), then the checks.
        let slot = n as usize;
        if self.killers.len() <= slot {
            self.killers.resize(slot + 1, None);
        }
        if let Some(killer) = self.killers[slot] {
            if let Some(at) = order.iter().position(|&(mv, _)| mv == killer) {
                let k = order.remove(at);
                order.insert(0, k);
            }
        }
        let mut all = true;
        for (d, may_check) in order {
            let child = pos.after(d);
            if may_check && is_mate(&child) {
                continue;
            }
            if !self.wins(&child, n - 1) {
                all = false;
                if self.count.stopped.is_none() {
                    self.killers[slot] = Some(d);
                }
                break;
            }
        }
        if self.count.stopped.is_some() {
            return false;
        }
        self.store(key, all)
    }

    /// The tree of attacker move `mv` in `pos`, known to force a mate within `n`.
    fn tree(
        &mut self,
        pos: &Position,
        mv: Move,
        n: u32,
        budget: &mut usize,
        complete: &mut bool,
    ) -> SelfTree {
        let child = pos.after(mv);
        let moves = child.legal_moves();
        let mut node = SelfTree {
            mv,
            mate_in: 1,
            defences: Vec::with_capacity(moves.len()),
            truncated: false,
        };
        if *budget == 0 {
            *complete = false;
            node.mate_in = n;
            node.truncated = true;
            return node;
        }
        *budget -= 1;
        for &d in moves.iter() {
            let grand = child.after(d);
            if is_mate(&grand) {
                node.defences.push(SelfDefence {
                    mv: d,
                    mates: true,
                    reply: None,
                });
                continue;
            }
            // The shortest forcing answer (one exists: the position is proven won).
            let answer = (1..n).find_map(|j| {
                grand
                    .legal_moves()
                    .iter()
                    .copied()
                    .find(|&a| self.forced(&grand.after(a), j))
                    .map(|a| (a, j))
            });
            let Some((a, j)) = answer else {
                *complete = false;
                node.truncated = true;
                node.mate_in = n;
                continue;
            };
            let sub = self.tree(&grand, a, j, budget, complete);
            node.mate_in = node.mate_in.max(1 + sub.mate_in);
            node.defences.push(SelfDefence {
                mv: d,
                mates: false,
                reply: Some(sub),
            });
        }
        node
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FenMode;

    /// The definition the fast test must equal: some legal move, and every one mates.
    fn naive(pos: &Position) -> bool {
        let moves = pos.legal_moves();
        !moves.is_empty() && moves.iter().all(|&mv| pos.after(mv).is_checkmate())
    }

    /// `every_move_mates` and `quiet_first` agree with the definitions on every position two
    /// plies from positions rich in checks, discoveries, promotions, castling and en passant,
    /// and on composed selfmate positions one move before the end.
    #[test]
    fn the_last_move_test_and_the_check_split_match_the_definitions() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "8/8/8/2p5/8/kpR5/p7/K7 w - - 0 1",
            "8/8/1Q6/8/krR5/bp3p1p/qr3PpP/R3K1n1 w Q - 0 1",
            "2b2Knq/RP1BP1rr/7b/4p1p1/1N2k1P1/3n2P1/1pQPP3/NR4B1 w - - 0 1",
            "8/6p1/1p2p1R1/b3K3/3P4/3Qnk1B/2pprp2/2q1r3 w - - 0 1",
        ];
        let mut checked = 0;
        let mut mating = 0;
        for fen in fens {
            let root = Position::from_fen(fen, FenMode::Strict).unwrap();
            for &a in root.legal_moves().iter() {
                let one = root.after(a);
                for pos in
                    std::iter::once(one).chain(one.legal_moves().iter().map(|&b| one.after(b)))
                {
                    let fast = every_move_mates(&pos);
                    assert_eq!(fast, naive(&pos), "{fen}: {}", pos.fen());
                    mating += usize::from(fast);
                    let split = quiet_first(&pos);
                    assert_eq!(split.len(), pos.count_legal());
                    for (mv, may_check) in split {
                        if pos.gives_check(mv) {
                            assert!(may_check, "{fen}: a check counted quiet");
                        }
                    }
                    checked += 1;
                }
            }
        }
        assert!(
            checked > 4_000 && mating > 0,
            "{checked} positions, {mating} all-mating"
        );
    }
}
