//! Move ordering: the transposition-table move first, then winning and equal captures and
//! queen promotions (most valuable victim, least valuable attacker), the two killer moves of
//! the ply, quiet moves by their history score, and losing captures last.

use super::{eval::SEE_VALUE, score::MAX_PLY, see::see};
use crate::{Move, MoveList, Position, Role, MAX_MOVES};

const TT_MOVE: i32 = 1 << 30;
const GOOD_CAPTURE: i32 = 1 << 24;
const KILLER_1: i32 = 1 << 22;
const KILLER_2: i32 = KILLER_1 - 1;
const BAD_CAPTURE: i32 = -(1 << 24);

/// The largest magnitude of a history score.
const HISTORY_MAX: i32 = 16_384;

/// Quiet-move scores per side, origin and target, learnt from beta cutoffs.
#[derive(Clone)]
pub(crate) struct History(Box<[[[i32; 64]; 64]; 2]>);

impl History {
    /// All zero.
    pub(super) fn new() -> History {
        History(Box::new([[[0; 64]; 64]; 2]))
    }

    /// Forgets everything.
    pub(super) fn clear(&mut self) {
        *self.0 = [[[0; 64]; 64]; 2];
    }

    /// Shrinks every score (between searches, so old knowledge fades).
    pub(super) fn age(&mut self) {
        for side in self.0.iter_mut() {
            for row in side.iter_mut() {
                for v in row.iter_mut() {
                    *v /= 2;
                }
            }
        }
    }

    #[inline]
    fn get(&self, pos: &Position, mv: Move) -> i32 {
        self.0[pos.turn().index()][mv.from().index()][mv.to().index()]
    }

    /// Rewards (`bonus > 0`) or punishes a quiet move; scores stay within ±[`HISTORY_MAX`].
    #[inline]
    pub(super) fn update(&mut self, pos: &Position, mv: Move, bonus: i32) {
        let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
        let v = &mut self.0[pos.turn().index()][mv.from().index()][mv.to().index()];
        *v += bonus - *v * bonus.abs() / HISTORY_MAX;
    }
}

/// Two quiet moves per ply that caused a beta cutoff.
pub(crate) struct Killers([[Option<Move>; 2]; MAX_PLY + 1]);

impl Killers {
    /// None yet.
    pub(super) fn new() -> Killers {
        Killers([[None; 2]; MAX_PLY + 1])
    }

    /// Records a cutoff by `mv` at `ply`.
    #[inline]
    pub(super) fn record(&mut self, ply: usize, mv: Move) {
        let k = &mut self.0[ply.min(MAX_PLY)];
        if k[0] != Some(mv) {
            k[1] = k[0];
            k[0] = Some(mv);
        }
    }

    #[inline]
    fn get(&self, ply: usize) -> [Option<Move>; 2] {
        self.0[ply.min(MAX_PLY)]
    }
}

/// Whether `mv` is a capture or a promotion (not a quiet move).
#[inline]
pub(crate) fn is_tactical(pos: &Position, mv: Move) -> bool {
    pos.is_capture(mv) || mv.is_promotion()
}

/// Most valuable victim, least valuable attacker.
#[inline]
fn mvv_lva(pos: &Position, mv: Move) -> i32 {
    let victim = pos.captured_role(mv).map_or(0, |r| SEE_VALUE[r.index()]);
    let promo = mv.promotion_role().map_or(0, |r| SEE_VALUE[r.index()]);
    let attacker = pos.moved_role(mv).map_or(0, |r| r.index() as i32);
    (victim + promo) * 8 - attacker
}

/// A list of moves handed out best first (selection sort, so that a cutoff after the first
/// few moves costs no full sort).
pub(crate) struct MovePicker {
    moves: MoveList,
    scores: [i32; MAX_MOVES],
    next: usize,
}

impl MovePicker {
    /// Orders all `moves` of `pos` for the main search.
    pub(super) fn new(
        pos: &Position,
        moves: MoveList,
        tt_move: Option<Move>,
        killers: &Killers,
        history: &History,
        ply: usize,
    ) -> MovePicker {
        let [k1, k2] = killers.get(ply);
        let mut scores = [0; MAX_MOVES];
        for (i, &mv) in moves.iter().enumerate() {
            scores[i] = if Some(mv) == tt_move {
                TT_MOVE
            } else if is_tactical(pos, mv) {
                let under = matches!(
                    mv.promotion_role(),
                    Some(Role::Knight | Role::Bishop | Role::Rook)
                );
                if under {
                    BAD_CAPTURE - 1000 + mvv_lva(pos, mv)
                } else if see(pos, mv) >= 0 {
                    GOOD_CAPTURE + mvv_lva(pos, mv)
                } else {
                    BAD_CAPTURE + mvv_lva(pos, mv)
                }
            } else if Some(mv) == k1 {
                KILLER_1
            } else if Some(mv) == k2 {
                KILLER_2
            } else {
                history.get(pos, mv)
            };
        }
        MovePicker {
            moves,
            scores,
            next: 0,
        }
    }

    /// Orders captures and promotions for quiescence (MVV-LVA only), or all moves when
    /// `moves` are check evasions.
    pub(super) fn tactical(pos: &Position, moves: MoveList) -> MovePicker {
        let mut scores = [0; MAX_MOVES];
        for (i, &mv) in moves.iter().enumerate() {
            scores[i] = if is_tactical(pos, mv) {
                GOOD_CAPTURE + mvv_lva(pos, mv)
            } else {
                0
            };
        }
        MovePicker {
            moves,
            scores,
            next: 0,
        }
    }

    /// The number of moves.
    pub(super) fn len(&self) -> usize {
        self.moves.len()
    }

    /// The best remaining move.
    #[inline]
    pub(super) fn next_move(&mut self) -> Option<Move> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..n {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        let mv = self.moves[self.next];
        self.next += 1;
        Some(mv)
    }
}

/// The captures and promotions of `pos` (legal), for quiescence. Under-promotions are left
/// out unless they capture.
pub(crate) fn tactical_moves(pos: &Position) -> MoveList {
    let theirs = pos.by_color(!pos.turn());
    let mut list = MoveList::new();
    pos.generate_moves(|group| {
        use crate::MoveGroupKind;
        match group.kind {
            MoveGroupKind::Normal => {
                let mut g = group;
                g.to &= theirs;
                for mv in g {
                    list.push(mv);
                }
            }
            MoveGroupKind::Promotion => {
                for mv in group {
                    if mv.promotion_role() == Some(Role::Queen) || theirs.contains(mv.to()) {
                        list.push(mv);
                    }
                }
            }
            MoveGroupKind::EnPassant => {
                for mv in group {
                    list.push(mv);
                }
            }
            MoveGroupKind::Castle => {}
        }
        false
    });
    list
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FenMode;

    #[test]
    fn captures_come_first_and_tactical_moves_are_captures() {
        let pos = Position::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            FenMode::Strict,
        )
        .unwrap();
        let tactical = tactical_moves(&pos);
        let expected: Vec<Move> = pos
            .legal_moves()
            .iter()
            .copied()
            .filter(|&m| pos.is_capture(m))
            .collect();
        assert_eq!(tactical.len(), expected.len());
        assert!(tactical.iter().all(|m| expected.contains(m)));

        let mut picker = MovePicker::new(
            &pos,
            pos.legal_moves(),
            None,
            &Killers::new(),
            &History::new(),
            0,
        );
        // The first move wins material: a capture whose exchange is not losing.
        let first = picker.next_move().unwrap();
        assert!(pos.is_capture(first) && see(&pos, first) >= 0, "{first:?}");
        let mut n = 1;
        while picker.next_move().is_some() {
            n += 1;
        }
        assert_eq!(n, pos.legal_moves().len());
    }

    #[test]
    fn history_stays_bounded() {
        let pos = Position::startpos();
        let mv = pos.parse_uci("e2e4").unwrap();
        let mut h = History::new();
        for _ in 0..1000 {
            h.update(&pos, mv, 4000);
        }
        assert!(h.get(&pos, mv) <= HISTORY_MAX);
        h.age();
        assert!(h.get(&pos, mv) <= HISTORY_MAX / 2 + 1);
    }
}
